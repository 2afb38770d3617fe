"""Thin Celery entry points of the voting app (scheduled in settings.CELERY_BEAT_SCHEDULE)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from leaderboard.models import Benchmark

from .draw.matchups import matchups_prune
from .services.counting import votes_mature
from .services.flagging import voters_flag


@shared_task(bind=True, max_retries=5)
def votes_housekeeping(self) -> int:
    """New accounts' votes start counting once they are old enough; long-expired unused matchups go."""
    try:
        matured = votes_mature()
    except OperationalError as exc:  # a lock timeout: try again later
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
    matchups_prune()
    return matured


@shared_task
def voters_flag_all() -> int:
    """Run the agreement check on every benchmark that has votes."""
    flagged = 0
    for bench_id in Benchmark.objects.filter(tasks__votes__isnull=False).distinct().values_list("id", flat=True):
        flagged += len(voters_flag(benchmark_id=bench_id))
    return flagged
