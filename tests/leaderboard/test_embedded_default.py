"""`make serve` with no configuration: SQLite and eager Celery. The demo loads with every board computed and
no task kept from the public for want of a JSON lookup SQLite does not have (a round's frozen task set)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLEAR = ("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG", "PRODUCTION", "DJANGO_ALLOW_ASYNC_UNSAFE")


def _manage(args: list[str], var_dir: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in CLEAR and not k.startswith("TEST_")}
    env.update({"VAR_DIR": str(var_dir), "MEDIA_ROOT": str(var_dir / "media")})
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def test_the_demo_loads_on_sqlite_with_every_board_computed_and_its_tasks_public(tmp_path):
    assert _manage(["migrate", "--noinput", "-v0"], tmp_path).returncode == 0
    loaded = _manage(["load_demo", "--no-users"], tmp_path)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert "Traceback" not in loaded.stdout + loaded.stderr, (loaded.stdout + loaded.stderr)[-3000:]
    assert "could not enqueue" not in loaded.stdout + loaded.stderr
    code = (
        "from leaderboard.models import Task, Round; from snapshots.models import BoardSnapshot as S; "
        "print(S.objects.filter(data__isnull=True).count(), S.objects.filter(stale=True).count(), "
        "Task.objects.public().count(), Task.objects.count(), "
        "Round.objects.published().filter(task_keys__isnull=False).count())"
    )
    shell = _manage(["shell", "-c", code], tmp_path)
    assert shell.returncode == 0, shell.stderr[-3000:]
    never, stale, public, tasks, frozen = map(int, shell.stdout.split()[-5:])
    assert (never, stale) == (0, 0)  # every snapshot computed, none waiting
    assert frozen > 0 and public == tasks  # every demo task is held by a published round
