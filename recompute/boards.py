"""Recomputing board snapshots from the database, and the sweep that heals stale ones.

The worker (`snapshot_recompute`) locks the snapshot row, so two recomputes of one board cannot interleave,
and skips the work when the digest of the inputs is unchanged. A periodic sweep recomputes anything left
stale (a worker that died, a broker that was down).

The inputs are read as a bundle document (bundles) and scored by scoring.boards through
scoring.bundle, exactly as `recount` does with a download: one path for the site and for anyone checking it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bundles.export import bundle_export
from leaderboard.caching import content_version_bump
from leaderboard.models import Round
from leaderboard.stale import RATINGS_DEBOUNCE_SECONDS, enqueue_recompute, snapshots_mark_stale
from scoring.boards import compute_boards, compute_standings
from scoring.bradley_terry import ratings_from_cells
from scoring.bundle import round_inputs
from scoring.reading_boards import with_readings
from scoring.types import Standings
from scoring.vote_margins import with_vote_margins
from snapshots.models import BoardSnapshot, SnapshotKind
from voting.models import Outcome, VoteCell

# Bump when a scoring rule changes, so every snapshot is recomputed even though its inputs did not change.
# 18: a local or safety task's primary-language run that is region-blocked hides no other run of the task;
# 17: a weekly task cell carries its run's recorded time ("wall_seconds") beside the published one;
# 16: a platform failure replaced by another run shows no outcome or score either;
# 15: the boards under other readings are computed from the round as its download holds it (no verdict of a run
# still in review);
# 14: every standing carries the run's published time ("seconds") and "marks", and a platform failure no score;
# 13: boards carry "readings", every board under each other reading of the methodology's open questions; 12:
# boards with intervals carry "interval_tasks" (the tasks each agent ran, for the head-to-head), and ratings
# "margins" list every neighbour pair below the top two (overlapping ones marked "overlap"); 11: boards carry
# "standings", every run's standing; 10: ratings carry "margins" again (stepped search on large boards); 9:
# statistics carry "noise" (noise floor, per-pair spread); 8: ratings "margins"
SCORING_VERSION = "18"


def _digest(payload: object) -> str:
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{SCORING_VERSION}:{raw}".encode()).hexdigest()


def round_document(round_id: int) -> dict:
    """The bundle of one round (every status: snapshots of draft and preview rounds serve reviewers and
    vendors; public pages only ever read published ones)."""
    rnd = Round.objects.select_related("benchmark").get(pk=round_id)
    return bundle_export(benchmark=rnd.benchmark, include_unpublished=True, round_keys=[rnd.key], include_votes=False)


def board_inputs(doc: dict) -> dict:
    """The part of a round's bundle that boards depend on (not notes, evidence or changelog text)."""
    keep_run = {"verdicts", "evidence", "checks", "disputes"}
    runs = []
    for run in doc.get("runs") or []:
        slim = {k: v for k, v in run.items() if k not in keep_run}
        slim["verdicts"] = [
            {"role": v["role"], "outcome": v["outcome"], "matched": v["matched"]} for v in run.get("verdicts") or []
        ]
        runs.append(slim)
    rounds = [{k: v for k, v in r.items() if k not in ("changelog", "parameters")} for r in doc.get("rounds") or []]
    return {
        "benchmark": doc["benchmark"],
        "agents": doc["agents"],
        "tasks": [{k: v for k, v in t.items() if k not in ("history", "prompt", "criteria")} for t in doc["tasks"]],
        "rounds": rounds,
        "runs": runs,
    }


def compute_round_boards(doc: dict) -> dict:
    """The round's boards as stored: the site's, and under "readings" every board under each other reading of
    its methodology's open questions, computed in the same refresh (`scoring.reading_boards`)."""
    (round_input,) = round_inputs(doc)
    return with_readings(round_input, compute_boards(round_input))


def round_standings_now(round_id: int) -> Standings:
    """The round's standings computed now from the database, by the worker's own path (`round_document`, then
    `scoring.boards.compute_standings`, the function `compute_boards` stores them with): for a page to read
    while the stored boards wait for their recompute, so it never shows a standing the board is about to
    drop (a correction that sends a run back to review)."""
    (round_input,) = round_inputs(round_document(round_id))
    return compute_standings(round_input)


def _public_cells(benchmark_id: int) -> list[tuple]:
    # Public ratings are fitted from public votes only (both agents with a published entry), so the public
    # download recounts to exactly these numbers and an unpublished agent shows nowhere. They are read as vote
    # cells (voting.cells): a few hundred rows, whatever the number of votes.
    return sorted(
        VoteCell.objects.filter(task__benchmark_id=benchmark_id, n__gt=0)
        .public()
        .values_list("task__key", "agent_lo__slug", "agent_hi__slug", "outcome", "n")
    )


def public_tallies(cells: list[tuple]) -> list[tuple[str, str, str, str, int]]:
    """The public vote cells as the scoring side reads them: (task, a, b, winner "a"/"b"/"tie", n)."""
    winner = {Outcome.LO: "a", Outcome.HI: "b", Outcome.TIE: "tie"}
    return [(t, lo, hi, winner[Outcome(o)], n) for t, lo, hi, o, n in cells]


def compute_ratings(benchmark_id: int, *, unless_digest: str = "") -> tuple[str, dict | None]:
    """The benchmark's public ratings and the digest of their inputs; the data is None (no fit) when the
    digest equals `unless_digest`."""
    cells = _public_cells(benchmark_id)
    digest = _digest(cells)
    if digest == unless_digest:
        return digest, None
    tallies = public_tallies(cells)
    # With how many votes hold each vote-ranked board's top place (`scoring.vote_margins`: bounded by fits,
    # not by votes, so a million votes cost about what a thousand do; bench/bench_votes_scale.py).
    return digest, with_vote_margins(tallies, ratings_from_cells(tallies))


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
        behind = False
        if snap.kind == SnapshotKind.RATINGS:
            digest, data = compute_ratings(snap.benchmark_id, unless_digest=snap.digest if snap.data else "")
            changed = data is not None
            # A vote counted while the fit ran found the snapshot already stale and enqueued nothing: the
            # snapshot then stays stale ("updating") and is refitted shortly, instead of calling itself fresh.
            behind = changed and _digest(_public_cells(snap.benchmark_id)) != digest
        else:
            if snap.round_id is None:
                return False
            doc = round_document(snap.round_id)
            digest = _digest(board_inputs(doc))
            changed = digest != snap.digest or snap.data is None
            data = compute_round_boards(doc) if changed else snap.data
        if changed or snap.stale:
            slug, outside = snap.benchmark.slug, snap.kind != SnapshotKind.RATINGS
            transaction.on_commit(lambda: content_version_bump(benchmarks=[slug], outside=outside))
        snap.stale = behind
        if behind:
            transaction.on_commit(lambda: enqueue_recompute([snapshot_id], countdown=RATINGS_DEBOUNCE_SECONDS))
        else:
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
    cutoff = timezone.now() - timedelta(seconds=older_than_seconds)
    missing = Round.objects.exclude(snapshots__kind=SnapshotKind.BOARDS).values_list("id", flat=True)
    if missing:
        with transaction.atomic():
            snapshots_mark_stale(round_ids=list(missing))
    behind = _ratings_behind()
    if behind:
        with transaction.atomic():
            snapshots_mark_stale(benchmark_ids=behind)
    ids = list(
        BoardSnapshot.objects.filter(stale=True)
        .filter(Q(stale_since__lte=cutoff) | Q(stale_since__isnull=True))
        .values_list("id", flat=True)
    )
    enqueue_recompute(ids)
    return ids


def _ratings_behind() -> list[int]:
    """Benchmarks whose ratings call themselves fresh but were fitted from other vote cells than they hold now: a
    vote counted while a refit was committing them fresh, having found them stale, marked nothing
    (`leaderboard.stale.ratings_stale_of`). Their vote cells are a few hundred rows a benchmark."""
    fresh = BoardSnapshot.objects.filter(kind=SnapshotKind.RATINGS, round=None, stale=False, data__isnull=False)
    return [b for b, digest in fresh.values_list("benchmark_id", "digest") if _digest(_public_cells(b)) != digest]
