"""Runs of published rounds with their verdicts (roles, never reviewers), a page at a time, and one run in
full."""

from __future__ import annotations

import math
from typing import Any

from django.http import HttpRequest
from ninja import Path, Query, Router
from ninja.errors import HttpError

from leaderboard.models import Agent, RoundParameter, fill_prompt, task_input
from pages.selectors import run_label, runs_standings
from pages.submissions import run_as_ran
from runs.models import Run, Verdict
from scoring import methodologies, task_evidence
from scoring.review import verdicts_public
from scoring.run_setup import RUN_SETUP_FIELDS
from scoring.standings import COUNTS
from scoring.types import DISPUTE_FIELDS, KEY_PATTERN, PUBLIC_RUN_SCALARS, RunStanding

from . import schemas as s
from .common import ERRORS
from .lookups import benchmark_or_404, published_round_or_404, task_or_404, task_version

MAX_PAGE_SIZE = 200
DEFAULT_PAGE_SIZE = 50

router = Router()


def _verdict_fields(v: Verdict) -> dict[str, Any]:
    return {
        "role": v.role,
        "outcome": v.outcome,
        "matched": [str(m) for m in v.matched or []],
        "note": v.note,
        "at": v.created_at,
    }


# The bundle's public run fields (`PRIVATE_RUN_FIELDS` are never public), less the cost (a float below), plus
# the judges' scores.
RUN_FIELDS = (*(f for f in PUBLIC_RUN_SCALARS if f != "cost_usd"), "judge_scores")


def _run_fields(run: Run, methodology: str, standing: RunStanding) -> dict[str, Any]:
    """One run as the API gives it, with its standing as its round's stored boards decided it (`standing`:
    `pages.selectors.runs_standings`), re-runs and replaced trials included (seed 000 §6, §7)."""
    return {
        "key": run.key,
        "round": run.round.key,
        "agent": run.entry.agent.slug,
        "task": run.task.key,
        **{f: getattr(run, f) for f in RUN_FIELDS if f not in RUN_SETUP_FIELDS},
        **_run_setup(run, methodology),
        "outcome": standing["outcome"] or "",
        "label": run_label(run, methodology, standing),
        "cost_usd": float(run.cost_usd) if run.cost_usd is not None else None,
        "rerun_of": run.rerun_of.key if run.rerun_of_id else None,
        "standing": {"board": None, **standing},
        "counts": standing["standing"] == COUNTS,
        "why_not_counted": standing["why"],
        "verdicts": [
            _verdict_fields(v) for v in verdicts_public(methodology, task_input(run.task), run.verdicts.all())
        ],
    }


def _run_setup(run: Run, methodology: str) -> dict[str, Any]:
    """How the run was run, where its methodology records it (002: the judge model and the execution mode,
    `scoring.run_setup`), null where the run does not record it; elsewhere both fields are absent."""
    if methodologies.get(methodology).run_setup is None:
        return {}
    return {f: getattr(run, f) or None for f in RUN_SETUP_FIELDS}


def _runs():
    return Run.objects.published().with_verdicts().select_related("round", "entry__agent", "rerun_of")


@router.get("/benchmarks/{slug}/runs", response={200: s.RunPageOut, **ERRORS}, tags=["runs"], exclude_unset=True)
def runs(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    round: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="a round key"),
    agent: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="an agent slug"),
    task: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="a task key"),
    page: int = Query(1, ge=1, description="1-based; past the last page answers 404"),
    page_size: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE),
):
    """Runs of published rounds with their verdicts, filtered by round, agent and task, a page at a time.
    An unknown (or unpublished) round, agent or task answers 404."""
    b = benchmark_or_404(slug)
    qs = _runs().filter(round__benchmark=b)
    if round is not None:
        qs = qs.filter(round=published_round_or_404(b, round))
    if agent is not None:
        if not Agent.objects.public().filter(slug=agent).exists():  # an unpublished one answers as an unknown one
            raise HttpError(404, f"no agent {agent!r}")
        qs = qs.filter(entry__agent__slug=agent)
    if task is not None:
        qs = qs.filter(task=task_or_404(b, task))
    count = qs.count()
    pages = max(1, math.ceil(count / page_size))
    if page > pages:
        raise HttpError(404, f"page {page} is past the last page ({pages})")
    start = (page - 1) * page_size
    listed = list(qs[start : start + page_size])
    standings = runs_standings(listed)
    items = [_run_fields(r, b.methodology, standings[r.pk]) for r in listed]
    return {"count": count, "page": page, "page_size": page_size, "pages": pages, "items": items}


@router.get(
    "/benchmarks/{slug}/runs/{round}/{path:run_key}",
    response={200: s.RunDetailOut, **ERRORS},
    tags=["runs"],
    exclude_unset=True,
)
def run_detail(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    round: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    run_key: str = Path(..., min_length=1, max_length=200),
):
    """One run of a published round: verdicts (roles, never reviewers), evidence, checks, disputes, and its
    prompt with the round's parameters filled in."""
    b = benchmark_or_404(slug)
    rnd = published_round_or_404(b, round)
    if "\x00" in run_key:
        raise HttpError(404, "no such run")
    run = (
        _runs()
        .filter(round=rnd, key=run_key)
        .prefetch_related("evidence", "checks", "disputes", "task__versions")
        .first()
    )
    if run is None:
        raise HttpError(404, f"no run {run_key!r} in round {rnd.key}")
    values = dict(RoundParameter.objects.filter(round=rnd, task=run.task).values_list("name", "value"))
    version = task_version(run.task, run.task_version)
    rerun = Run.objects.filter(rerun_of=run).values_list("key", flat=True).first()
    return {
        **_run_fields(run, b.methodology, runs_standings([run])[run.pk]),
        "as_ran": (run_as_ran(run) or {}).get("rows", []),
        "prompt": fill_prompt(version.prompt if version else "", values),
        "parameters": values,
        "rerun": rerun,
        "evidence": [{"kind": e.kind, "url": e.href, "caption": e.caption} for e in run.evidence.all()],
        "evidence_lacking": task_evidence.lacking(
            (version.evidence if version else None) or [], run.status, [(e.kind, e.caption) for e in run.evidence.all()]
        ),
        "checks": [
            {"position": c.position, "kind": c.kind, "name": c.name, "passed": c.passed, "detail": c.detail}
            for c in run.checks.all()
        ],
        "disputes": [{f: getattr(d, f) for f in DISPUTE_FIELDS} for d in run.disputes.all()],
    }
