"""Thin Celery entry points: they take ids and call snapshots.recompute. Their names are the ones they had
when they lived in `scoring.tasks`, so tasks already queued and the beat schedule keep working."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from .recompute import snapshot_recompute, snapshots_sweep
from .stale import RECOMPUTE_TASK


@shared_task(bind=True, max_retries=5, acks_late=True, name=RECOMPUTE_TASK)
def recompute_snapshot(self, snapshot_id: int) -> bool:
    try:
        return snapshot_recompute(snapshot_id=snapshot_id)
    except OperationalError as exc:  # a lock timeout or a dropped connection: try again later
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc


@shared_task(name="scoring.tasks.sweep_stale")
def sweep_stale() -> list[int]:
    return snapshots_sweep(older_than_seconds=settings.STALE_SWEEP_SECONDS)
