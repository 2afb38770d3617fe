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
