"""Board snapshots: marking them stale when their inputs change, and recomputing them.

A write that changes a board's inputs calls `snapshots_mark_stale` inside its transaction; the recompute is
enqueued after commit, and only when a snapshot turns from fresh to stale, so a burst of writes (a vote
storm, a bundle import) is one recompute. The worker (`snapshot_recompute`) locks the snapshot row, so two
recomputes of one board cannot interleave, and skips the work when the digest of the inputs is unchanged.
A periodic sweep recomputes anything left stale (a worker that died, a broker that was down).

The inputs are read as a bundle document (leaderboard.bundles) and scored by scoring.boards through
scoring.bundle, exactly as `recount` does with a download: one path for the site and for anyone checking it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard.caching import content_version_bump

from .models import BoardSnapshot, SnapshotKind

log = logging.getLogger(__name__)

# Bump when a scoring rule changes, so every snapshot is recomputed even though its inputs did not change.
SCORING_VERSION = "2"
RATINGS_DEBOUNCE_SECONDS = 2


def _digest(payload: object) -> str:
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{SCORING_VERSION}:{raw}".encode()).hexdigest()


def _enqueue(snapshot_ids: Iterable[int], countdown: float = 0) -> None:
    """Send recompute tasks; a broker that is down is logged, not raised: the write already committed and
    the periodic sweep will pick the stale snapshot up."""
    from .tasks import recompute_snapshot

    for snapshot_id in snapshot_ids:
        try:
            if countdown:
                recompute_snapshot.apply_async(args=[snapshot_id], countdown=countdown)
            else:
                recompute_snapshot.delay(snapshot_id)
        except Exception:  # noqa: BLE001 - any broker failure; the sweep heals it
            log.warning("could not enqueue recompute of snapshot %s; the sweep will retry", snapshot_id,
                        exc_info=True)


def snapshots_mark_stale(*, round_ids: Iterable[int] = (), rating_task_ids: Iterable[int] = (),
                         benchmark_ids: Iterable[int] = ()) -> list[int]:
    """Mark the boards of these rounds (and the ratings of the benchmarks of these tasks) stale, in the
    caller's transaction, and enqueue their recompute once it commits. Returns the snapshot ids that turned
    stale."""
    from leaderboard.models import Round, Task

    round_ids = set(round_ids)
    bench_ids = set(benchmark_ids)
    rating_task_ids = set(rating_task_ids)
    if rating_task_ids:
        bench_ids |= set(Task.objects.filter(id__in=rating_task_ids).values_list("benchmark_id", flat=True))
    now = timezone.now()
    turned: list[int] = []
    rating_turned: list[int] = []
    for rnd in Round.objects.filter(id__in=round_ids).only("id", "benchmark_id"):
        snap, created = BoardSnapshot.objects.get_or_create(
            round_id=rnd.id, kind=SnapshotKind.BOARDS,
            defaults={"benchmark_id": rnd.benchmark_id, "stale": True, "stale_since": now})
        if created:
            turned.append(snap.id)
        elif BoardSnapshot.objects.filter(pk=snap.pk, stale=False).update(stale=True, stale_since=now):
            turned.append(snap.id)
    for bench_id in bench_ids:
        snap, created = BoardSnapshot.objects.get_or_create(
            benchmark_id=bench_id, round=None, kind=SnapshotKind.RATINGS,
            defaults={"stale": True, "stale_since": now})
        if created:
            rating_turned.append(snap.id)
        elif BoardSnapshot.objects.filter(pk=snap.pk, stale=False).update(stale=True, stale_since=now):
            rating_turned.append(snap.id)
    if turned or rating_turned:
        def after_commit() -> None:
            content_version_bump()  # cached public pages show "updating" from now on
            _enqueue(turned)
            _enqueue(rating_turned, countdown=RATINGS_DEBOUNCE_SECONDS)

        transaction.on_commit(after_commit)
    return turned + rating_turned


def round_document(round_id: int) -> dict:
    """The bundle of one round (every status: snapshots of draft and preview rounds serve reviewers and
    vendors; public pages only ever read published ones)."""
    from leaderboard.bundles import bundle_export
    from leaderboard.models import Round

    rnd = Round.objects.select_related("benchmark").get(pk=round_id)
    return bundle_export(benchmark=rnd.benchmark, include_unpublished=True, round_keys=[rnd.key],
                         include_votes=False)


def board_inputs(doc: dict) -> dict:
    """The part of a round's bundle that boards depend on (not notes, evidence or changelog text)."""
    keep_run = {"verdicts", "evidence", "checks", "disputes"}
    runs = []
    for run in doc.get("runs") or []:
        slim = {k: v for k, v in run.items() if k not in keep_run}
        slim["verdicts"] = [{"role": v["role"], "outcome": v["outcome"], "matched": v["matched"]}
                            for v in run.get("verdicts") or []]
        runs.append(slim)
    rounds = [{k: v for k, v in r.items() if k not in ("changelog", "parameters")} for r in doc.get("rounds") or []]
    return {"benchmark": doc["benchmark"], "agents": doc["agents"],
            "tasks": [{k: v for k, v in t.items() if k not in ("history", "prompt", "criteria")} for t in doc["tasks"]],
            "rounds": rounds, "runs": runs}


def compute_round_boards(doc: dict) -> dict:
    from .boards import compute_boards
    from .bundle import round_inputs

    (round_input,) = round_inputs(doc)
    return compute_boards(round_input)


def compute_ratings(benchmark_id: int, *, unless_digest: str = "") -> tuple[str, dict | None]:
    """The benchmark's public ratings and the digest of their inputs; the data is None (no fit) when the
    digest equals `unless_digest`."""
    from voting.models import Vote

    from .bradley_terry import ratings_from_votes
    from .types import VoteInput

    # Public ratings are fitted from public votes only (both agents with a published entry), so the public
    # download recounts to exactly these numbers and an unpublished agent shows nowhere.
    rows = list(Vote.objects.filter(task__benchmark_id=benchmark_id, counts=True).public()
                .order_by("id").values_list("task__key", "agent_a__slug", "agent_b__slug", "winner"))
    digest = _digest(sorted(rows))
    if digest == unless_digest:
        return digest, None
    votes = [VoteInput(task=t, a=a, b=b, winner=w, counts=True) for t, a, b, w in rows]
    return digest, ratings_from_votes(votes)


def snapshot_recompute(*, snapshot_id: int) -> bool:
    """Recompute one snapshot from the database. Returns True when its content changed.

    The row lock (select_for_update) is what keeps two workers from interleaving on one board: the second
    waits, then finds the digest unchanged and only clears the stale flag.
    """
    with transaction.atomic():
        try:
            snap = BoardSnapshot.objects.select_for_update().get(pk=snapshot_id)
        except BoardSnapshot.DoesNotExist:
            return False
        if snap.kind == SnapshotKind.RATINGS:
            digest, data = compute_ratings(snap.benchmark_id, unless_digest=snap.digest if snap.data else "")
            changed = data is not None
        else:
            if snap.round_id is None:
                return False
            doc = round_document(snap.round_id)
            digest = _digest(board_inputs(doc))
            changed = digest != snap.digest or snap.data is None
            data = compute_round_boards(doc) if changed else snap.data
        if changed or snap.stale:
            transaction.on_commit(content_version_bump)
        snap.stale = False
        snap.stale_since = None
        if changed:
            snap.data = data
            snap.digest = digest
            snap.computed_at = timezone.now()
            snap.version += 1
        snap.save()
        return changed


def snapshots_sweep(*, older_than_seconds: int = 60) -> list[int]:
    """Snapshots stale for longer than `older_than_seconds`, and rounds with no snapshot yet: enqueue them.
    This is how a board heals after a worker died mid-recompute or the broker was down."""
    from leaderboard.models import Round

    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    missing = Round.objects.exclude(snapshots__kind=SnapshotKind.BOARDS).values_list("id", flat=True)
    if missing:
        with transaction.atomic():
            snapshots_mark_stale(round_ids=list(missing))
    ids = list(BoardSnapshot.objects.filter(stale=True).filter(Q(stale_since__lte=cutoff) | Q(stale_since__isnull=True))
               .values_list("id", flat=True))
    _enqueue(ids)
    return ids
