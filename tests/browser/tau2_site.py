"""τ²-bench as the site holds it after an editor's set-up: both task sets (2026-03-18, today's, and 2025-06-10,
the first release), a track on the first, and the two real submissions in ../shared/data/tau2 (Button by Distyl
AI; ToolOrchestra by NVIDIA), its boards computed."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from tests.builders.tau2 import BUTTON, TAU2, TOOLORCHESTRA

ROUND = "community-2025-06-10"  # the round of the first task set, where both submissions land


def load_tau2():
    """The two submissions (Button, ToolOrchestra), once loaded."""
    from leaderboard.models import Organization
    from recompute.boards import snapshot_recompute
    from snapshots.models import BoardSnapshot
    from submissions.models import Submission

    for version, suffix in (("2026-03-18", ""), ("2025-06-10", "-2025-06-10")):
        for domain in ("airline", "retail"):
            path = str(TAU2 / "tasks" / f"{domain}{suffix}.json")
            call_command(
                "import_tau2_tasks", path, benchmark="tau2", domain=domain, version=version, title="τ²-bench",
                stdout=StringIO(),
            )  # fmt: skip
    call_command(
        "open_submission_track",
        benchmark="tau2",
        task_set_versions="2025-06-10",
        formats="tau2,bundle,inspect",
        stdout=StringIO(),
    )
    Organization.objects.get_or_create(slug="distyl-ai", defaults={"name": "Distyl AI"})
    Organization.objects.get_or_create(slug="nvidia", defaults={"name": "NVIDIA"})
    call_command("import_submission", str(BUTTON), benchmark="tau2", organization="distyl-ai", stdout=StringIO())
    button = Submission.objects.latest("id")
    call_command("import_submission", str(TOOLORCHESTRA), benchmark="tau2", organization="nvidia", stdout=StringIO())
    orchestra = Submission.objects.latest("id")
    for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)
    return button, orchestra
