"""A τ² benchmark loaded from the benchmark's own task sets (../shared/data/tau2/tasks), with its community
track open, and the organizations of the two real submissions."""

import pytest
from django.core.management import call_command

from leaderboard.models import Benchmark, Organization
from tests.builders.tau2 import TAU2


@pytest.fixture
def tau2(db):
    for domain in ("airline", "retail"):
        call_command("import_tau2_tasks", str(TAU2 / "tasks" / f"{domain}.json"), benchmark="tau2", domain=domain)
    call_command("open_submission_track", benchmark="tau2")
    Organization.objects.create(slug="distyl-ai", name="Distyl AI")
    Organization.objects.create(slug="nvidia", name="NVIDIA")
    return Benchmark.objects.get(slug="tau2")


@pytest.fixture
def tau2_releases(db):
    """τ²-bench as it stands today (task set 2026-03-18, the current one) and as first released (2025-06-10, the
    task set both real submissions ran), its community track taking both."""
    for version, suffix in (("2026-03-18", ""), ("2025-06-10", "-2025-06-10")):
        for domain in ("airline", "retail"):
            path = TAU2 / "tasks" / f"{domain}{suffix}.json"
            call_command(
                "import_tau2_tasks", str(path), benchmark="tau2", domain=domain, version=version, title="τ²-bench"
            )
    call_command("open_submission_track", benchmark="tau2", task_set_versions="2025-06-10")
    Organization.objects.create(slug="distyl-ai", name="Distyl AI")
    Organization.objects.create(slug="nvidia", name="NVIDIA")
    return Benchmark.objects.get(slug="tau2")
