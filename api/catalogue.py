"""Benchmarks and their published rounds."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.http import HttpRequest
from ninja import Path, Router

from leaderboard.models import Benchmark, Round, RoundParameter
from scoring.types import ENTRY_FIELDS, KEY_PATTERN

from . import schemas as s
from .common import ERRORS
from .lookups import benchmark_or_404, published_round_or_404

router = Router()


def _round_summary(rnd: Round) -> dict[str, Any]:
    return {
        "key": rnd.key,
        "name": rnd.name,
        "status": rnd.status,
        "task_set_version": rnd.task_set_version,
        "starts_on": rnd.starts_on,
        "published_at": rnd.published_at,
        "entry_count": rnd.entry_count,
        "run_count": rnd.run_count,
    }


def _published_rounds(benchmark: Benchmark):
    return (
        Round.objects.published()
        .filter(benchmark=benchmark)
        .annotate(entry_count=Count("entries", distinct=True), run_count=Count("runs", distinct=True))
        .newest_first()
    )


def _benchmark_fields(b: Benchmark, latest: str | None) -> dict[str, Any]:
    return {
        "slug": b.slug,
        "name": b.name,
        "methodology": b.methodology,
        "description": b.description,
        "task_set_version": b.task_set_version,
        # Only a methodology with a pass threshold (scored) answers one; elsewhere the field is absent.
        **({"pass_threshold": threshold} if (threshold := b.pass_mark) is not None else {}),
        "params": b.params or {},
        "latest_round": latest,
    }


@router.get("/benchmarks", response={200: list[s.BenchmarkOut], **ERRORS}, tags=["benchmarks"], exclude_unset=True)
def benchmarks(request: HttpRequest):
    """Every benchmark, with the key of its latest published round."""
    latest: dict[int, str] = {}
    for bench_id, key in Round.objects.published().newest_first().values_list("benchmark_id", "key"):
        latest.setdefault(bench_id, key)
    return [_benchmark_fields(b, latest.get(b.id)) for b in Benchmark.objects.all()]


@router.get(
    "/benchmarks/{slug}", response={200: s.BenchmarkDetailOut, **ERRORS}, tags=["benchmarks"], exclude_unset=True
)
def benchmark_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """One benchmark with its published rounds (newest first) and its number of tasks."""
    b = benchmark_or_404(slug)
    rounds = [_round_summary(r) for r in _published_rounds(b)]
    return {
        **_benchmark_fields(b, rounds[0]["key"] if rounds else None),
        "rounds": rounds,
        "tasks": b.tasks.public().count(),
    }


@router.get("/benchmarks/{slug}/rounds", response={200: list[s.RoundSummaryOut], **ERRORS}, tags=["rounds"])
def rounds(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The benchmark's published rounds, newest first. Draft and preview rounds are not listed."""
    return [_round_summary(r) for r in _published_rounds(benchmark_or_404(slug))]


@router.get("/benchmarks/{slug}/rounds/{key}", response={200: s.RoundDetailOut, **ERRORS}, tags=["rounds"])
def round_detail(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    key: str = Path(..., pattern=KEY_PATTERN, max_length=100),
):
    """A published round: entries with their test conditions, task parameters and the corrections log."""
    b = benchmark_or_404(slug)
    rnd = published_round_or_404(b, key)
    rnd = _published_rounds(b).get(pk=rnd.pk)
    params: dict[str, dict[str, str]] = {}
    for p in RoundParameter.objects.filter(round=rnd).select_related("task"):
        params.setdefault(p.task.key, {})[p.name] = p.value
    entries = [
        {
            "agent": e.agent.slug,
            "agent_name": e.agent.name,
            **{f: getattr(e, f) for f in ENTRY_FIELDS},
        }
        for e in rnd.entries.select_related("agent")
    ]
    changelog = [{"what": c.what, "why": c.why, "who": c.who_role, "at": c.created_at} for c in rnd.changelog.all()]
    return {
        **_round_summary(rnd),
        "benchmark": b.slug,
        "entries": entries,
        "parameters": params,
        "changelog": changelog,
    }
