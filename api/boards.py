"""A round's boards, a benchmark's ratings (both as stored in their snapshots) and the public bundle."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.http import http_date
from ninja import Path, Router

from bundles.export import bundle_export
from pages.readings import readings_of
from scoring.boards import boards_as_shown
from scoring.types import KEY_PATTERN
from snapshots.models import BoardSnapshot, SnapshotKind

from . import schemas as s
from .common import ERRORS
from .lookups import benchmark_or_404, published_round_or_404

router = Router()


def _snapshot_payload(snap: BoardSnapshot | None, response: HttpResponse) -> dict[str, Any]:
    if snap is None:
        return {"stale": True, "computed_at": None, "version": 0, "data": None}
    if not snap.stale and snap.computed_at is not None:
        # Only while fresh: a stale flag flips without computed_at moving, so If-Modified-Since could miss it.
        response["Last-Modified"] = http_date(snap.computed_at.timestamp())
    return {"stale": snap.stale, "computed_at": snap.computed_at, "version": snap.version, "data": snap.data}


@router.get("/benchmarks/{slug}/rounds/{key}/board", response={200: s.BoardOut, **ERRORS}, tags=["boards"])
def board(
    request: HttpRequest,
    response: HttpResponse,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    key: str = Path(..., pattern=KEY_PATTERN, max_length=100),
):
    """The round's computed boards as stored in its snapshot. `stale: true` means a recompute is queued: poll
    with If-None-Match until it turns false. `data` is null before the first computation."""
    b = benchmark_or_404(slug)
    rnd = published_round_or_404(b, key)
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    payload = _snapshot_payload(snap, response)
    if payload["data"] and b.rules.with_votes:  # ranked by votes (checks invent and startup tasks)
        ratings = BoardSnapshot.objects.filter(benchmark=b, round=None, kind=SnapshotKind.RATINGS).first()
        payload["data"] = boards_as_shown(b.methodology, payload["data"], ratings.data if ratings else None)
    return {"benchmark": b.slug, "round": rnd.key, **payload}


@router.get("/benchmarks/{slug}/rounds/{key}/readings", response={200: s.ReadingsOut, **ERRORS}, tags=["boards"])
def readings(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    key: str = Path(..., pattern=KEY_PATTERN, max_length=100),
):
    """The round's boards under every other reading of its methodology's open questions: each question with the
    seed's words, both readings and what moves under the other (whose rank and score, by how much, in words),
    every other reading at once (`together`), and each agent whose rank differs across them (`ranges`)."""
    b = benchmark_or_404(slug)
    rnd = published_round_or_404(b, key)
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    summary = readings_of(b, rnd, snap.data if snap else None)
    return {"benchmark": b.slug, "round": rnd.key, "stale": snap is None or snap.stale, **summary}


@router.get("/benchmarks/{slug}/ratings", response={200: s.SnapshotOut, **ERRORS}, tags=["boards"])
def ratings(request: HttpRequest, response: HttpResponse, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """Bradley-Terry ratings from the blind pairwise votes: `data` holds `all` and per-task `tasks`."""
    b = benchmark_or_404(slug)
    snap = BoardSnapshot.objects.filter(benchmark=b, round=None, kind=SnapshotKind.RATINGS).first()
    return {"benchmark": b.slug, **_snapshot_payload(snap, response)}


@router.get("/benchmarks/{slug}/bundle", response={200: s.BundleOut, **ERRORS}, tags=["bundle"])
def bundle(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The public bundle: published rounds with their runs, verdicts (roles only) and parameters, every task,
    and the votes under stable pseudonyms. `recount` computes every board from this document alone."""
    return bundle_export(benchmark=benchmark_or_404(slug))
