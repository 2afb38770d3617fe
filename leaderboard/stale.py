"""The one way to say "this changed": marking board snapshots stale, enqueueing their recompute, and
retiring what was kept from before (the cached pages, the vote pool).

A write that changes a board's inputs, or what a page or a vote screen shows, calls `snapshots_mark_stale`
inside its transaction. Once it commits: the recompute is enqueued (only for a snapshot that turned from fresh
to stale, so a burst of writes, a vote storm or a bundle import, is one recompute), the cached pages of the
benchmarks it reached are retired (`leaderboard.caching.content_version_bump`), and the vote pool is retired
(`leaderboard.caching.draws_retire`) unless only votes changed. No model signal does any of this. It lives with
the catalogue, the lowest layer every writer may import: it depends only on the catalogue's models and caching
and on the snapshots' models (which import nothing of the site's); the recompute itself (recompute.boards,
layers above) is reached through the Celery task registry, by name.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from celery import current_app
from django.db import transaction
from django.db.models import OuterRef, Q, Subquery
from django.utils import timezone

from snapshots.models import BoardSnapshot, SnapshotKind

from .caching import content_version_bump, draws_retire
from .models import Benchmark, Round, Task

log = logging.getLogger(__name__)

RATINGS_DEBOUNCE_SECONDS = 2
RECOMPUTE_TASK = "snapshots.tasks.recompute_snapshot"
SWEEP_TASK = "snapshots.tasks.sweep_stale"


def enqueue_recompute(snapshot_ids: Iterable[int], countdown: float = 0) -> None:
    """Send recompute tasks; a broker that is down is logged, not raised: the write already committed and
    the periodic sweep will pick the stale snapshot up."""
    recompute_snapshot = current_app.tasks[RECOMPUTE_TASK]
    for snapshot_id in snapshot_ids:
        try:
            if countdown:
                recompute_snapshot.apply_async(args=[snapshot_id], countdown=countdown)
            else:
                recompute_snapshot.delay(snapshot_id)
        except Exception:  # noqa: BLE001 - any broker failure; the sweep heals it
            log.warning("could not enqueue recompute of snapshot %s; the sweep will retry", snapshot_id, exc_info=True)


# The ratings snapshots' ids and flags, built once (every counted vote reads its benchmark's).
_ratings_flags = (
    BoardSnapshot.objects.filter(round=None, kind=SnapshotKind.RATINGS).order_by().values_list("id", "stale")
)


def ratings_stale_of(benchmark: str) -> Subquery:
    """The stale flag of the ratings snapshot of the benchmark `benchmark` names (an outer query's field, as
    `OuterRef` takes it), as a subquery: None when the benchmark has no ratings snapshot. A counted vote reads it
    with its claim (`voting.queries.claim_target`), one statement fewer than `snapshots_mark_stale` reading it
    at the end of the vote; found stale, the vote marks nothing.

    Read earlier in the vote's transaction, the flag can be stale for a refit that is about to commit it fresh
    without the vote's cell (the refit checks the cells again before it calls itself fresh, so only a vote
    committed after that check is missed): such a vote waits for the next counted vote on the benchmark or for
    the sweep, which marks stale every fresh ratings snapshot whose inputs no longer match what it fitted
    (`recompute.boards.snapshots_sweep`), within STALE_SWEEP_SECONDS."""
    return Subquery(_ratings_flags.filter(benchmark_id=OuterRef(benchmark)).values("stale")[:1])


def _ratings_flag(benchmark_id: int) -> dict[int, bool]:
    """{id: stale} of the benchmark's ratings snapshot (empty when there is none): its id and flag only (a
    ratings snapshot's data can be large)."""
    return {snap_id: bool(stale) for snap_id, stale in _ratings_flags.filter(benchmark_id=benchmark_id)[:1]}


def snapshots_mark_stale(
    *,
    round_ids: Iterable[int] = (),
    rating_task_ids: Iterable[int] = (),
    benchmark_ids: Iterable[int] = (),
    boards: bool = True,
) -> list[int]:
    """Mark the boards of these rounds (and the ratings of these benchmarks, and of the benchmarks of these
    tasks) stale, in the caller's transaction; once it commits, enqueue their recompute, retire the cached
    pages they reach and, unless only votes changed (`rating_task_ids` alone), the vote pool. With
    `boards=False` nothing a board counts changed (an app build, an organization's name): only the pages of
    these rounds' benchmarks and the vote pool are retired. Returns the snapshot ids that turned stale."""
    round_ids = set(round_ids)
    bench_ids = set(benchmark_ids)
    rating_task_ids = set(rating_task_ids)
    draws = bool(round_ids)  # votes (ratings alone) never change what a vote can draw
    if not boards:
        _shown_changed(round_ids, bench_ids)
        return []
    if rating_task_ids:
        bench_ids |= set(Task.objects.filter(id__in=rating_task_ids).values_list("benchmark_id", flat=True))
    now = timezone.now()
    turned: list[int] = []
    for rnd in Round.objects.filter(id__in=round_ids).only("id", "benchmark_id") if round_ids else ():
        snap, created = BoardSnapshot.objects.get_or_create(
            round_id=rnd.id,
            kind=SnapshotKind.BOARDS,
            defaults={"benchmark_id": rnd.benchmark_id, "stale": True, "stale_since": now},
        )
        if created:
            turned.append(snap.id)
        elif BoardSnapshot.objects.filter(pk=snap.pk, stale=False).update(stale=True, stale_since=now):
            turned.append(snap.id)
    rating_turned = _ratings_mark_stale(bench_ids, now)
    if draws:
        transaction.on_commit(draws_retire)
    if turned or rating_turned:
        slugs = list(
            Benchmark.objects.filter(snapshots__id__in=turned + rating_turned).distinct().values_list("slug", flat=True)
        )

        def after_commit() -> None:
            # Their cached pages show "updating" from now on; the home and agent pages read board snapshots only.
            content_version_bump(benchmarks=slugs, outside=bool(turned))
            enqueue_recompute(turned)
            enqueue_recompute(rating_turned, countdown=RATINGS_DEBOUNCE_SECONDS)

        transaction.on_commit(after_commit)
    return turned + rating_turned


def _ratings_mark_stale(bench_ids: set[int], now) -> list[int]:
    """Mark these benchmarks' ratings snapshots stale (made stale when missing); the ids that turned."""
    turned: list[int] = []
    for bench_id in bench_ids:
        ratings = _ratings_flag(bench_id)
        if not ratings:
            snap, created = BoardSnapshot.objects.get_or_create(
                benchmark_id=bench_id,
                round=None,
                kind=SnapshotKind.RATINGS,
                defaults={"stale": True, "stale_since": now},
            )
            if created or BoardSnapshot.objects.filter(pk=snap.pk, stale=False).update(stale=True, stale_since=now):
                turned.append(snap.id)
            continue
        [(snap_id, stale)] = ratings.items()
        if not stale and BoardSnapshot.objects.filter(pk=snap_id, stale=False).update(stale=True, stale_since=now):
            turned.append(snap_id)
    return turned


def _shown_changed(round_ids: set[int], bench_ids: set[int]) -> None:
    """What the pages and the vote screen of these benchmarks show changed, not what their boards count."""
    slugs = list(
        Benchmark.objects.filter(Q(id__in=bench_ids) | Q(rounds__id__in=round_ids))
        .distinct()
        .values_list("slug", flat=True)
    )

    def after_commit() -> None:
        content_version_bump(benchmarks=slugs, outside=False)
        draws_retire()

    transaction.on_commit(after_commit)
