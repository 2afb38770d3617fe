"""Thin Celery entry points: they take ids and call recompute.boards.

Their names are `snapshots.tasks.*`. Each is registered a second time under the name it had while the app's
label was "scoring" (`scoring.tasks.*`), so a task queued under that name before a deploy still runs."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from leaderboard.stale import RECOMPUTE_TASK, SWEEP_TASK
from recompute.boards import snapshot_recompute, snapshots_sweep

# The names these tasks were queued under before the label was "snapshots".
OLD_NAMES = {RECOMPUTE_TASK: "scoring.tasks.recompute_snapshot", SWEEP_TASK: "scoring.tasks.sweep_stale"}


def _recompute_snapshot(self, snapshot_id: int) -> bool:
    try:
        return snapshot_recompute(snapshot_id=snapshot_id)
    except OperationalError as exc:  # a lock timeout or a dropped connection: try again later
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc


def _sweep_stale() -> list[int]:
    return snapshots_sweep(older_than_seconds=settings.STALE_SWEEP_SECONDS)


_RECOMPUTE_OPTIONS = {"bind": True, "max_retries": 5, "acks_late": True}

recompute_snapshot = shared_task(**_RECOMPUTE_OPTIONS, name=RECOMPUTE_TASK)(_recompute_snapshot)
sweep_stale = shared_task(name=SWEEP_TASK)(_sweep_stale)
recompute_snapshot_old_name = shared_task(**_RECOMPUTE_OPTIONS, name=OLD_NAMES[RECOMPUTE_TASK])(_recompute_snapshot)
sweep_stale_old_name = shared_task(name=OLD_NAMES[SWEEP_TASK])(_sweep_stale)
