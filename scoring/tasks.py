"""Thin Celery entry points: they take ids and call scoring.services."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import OperationalError


@shared_task(bind=True, max_retries=5, acks_late=True)
def recompute_snapshot(self, snapshot_id: int) -> bool:
    from .services import snapshot_recompute

    try:
        return snapshot_recompute(snapshot_id=snapshot_id)
    except OperationalError as exc:  # a lock timeout or a dropped connection: try again later
        raise self.retry(exc=exc, countdown=2 ** self.request.retries) from exc


@shared_task
def sweep_stale() -> list[int]:
    from .services import snapshots_sweep

    return snapshots_sweep(older_than_seconds=settings.STALE_SWEEP_SECONDS)
