"""Terminal-Bench as the site holds it: the benchmark from the dataset's own task list
(../shared/data/terminal-bench/tasks.json, terminal-bench-core 0.1.1) and its community track, and the three real
submissions as their teams would send them: the `tb run` folders, with the public table's claim for each as a
claims.json at the folder's top."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

from django.core.management import call_command

TBENCH = Path(__file__).resolve().parents[3] / "shared" / "data" / "terminal-bench"
SUBMISSIONS = TBENCH / "submissions"
DROID, GOOSE, OPENHANDS = (
    "20250923_droid_claude-4-sonnet",
    "20250829_goose_claude-4-opus",
    "20250711_openhands_claude-4-sonnet",
)


def tbench_benchmark():
    from leaderboard.models import Benchmark

    call_command("import_tbench_tasks", str(TBENCH / "tasks.json"), benchmark="terminal-bench", title="Terminal-Bench")
    call_command("open_submission_track", benchmark="terminal-bench", formats="tbench", stdout=StringIO())
    return Benchmark.objects.get(slug="terminal-bench")


def claim_of(folder: str) -> dict:
    return next(c for c in json.loads((TBENCH / "claims.json").read_text())["claims"] if c["folder"] == folder)


def sent_folder(tmp: Path, folder: str, *, claims: dict | None = None) -> Path:
    """The submission's folder as its team sends it: the runs, and claims.json (one entry) at its top."""
    out = tmp / folder
    shutil.copytree(SUBMISSIONS / folder, out)
    for path in out.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    entry = claims if claims is not None else claim_of(folder)
    (out / "claims.json").write_text(json.dumps({"claims": [entry]}))
    return out
