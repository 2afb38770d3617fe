"""A benchmark's tasks, and one task with its versions and its parameters in each published round."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.http import HttpRequest
from ninja import Path, Router

from leaderboard.models import Round, RoundParameter, Task, fill_prompt, in_published_round
from runs.models import Run
from scoring.types import KEY_PATTERN

from . import schemas as s
from .common import ERRORS
from .lookups import benchmark_or_404, task_or_404, task_version

router = Router()


def _task_fields(t: Task) -> dict[str, Any]:
    current = task_version(t, t.version)
    limits = t.benchmark.rules.task_limits(t.time_limit_min, t.token_budget)
    return {
        "key": t.key,
        "title": t.title,
        "kind": t.kind,
        "version": t.version,
        "dimensions": [str(d) for d in t.dimensions or []],
        "domain": t.domain,
        "difficulty": t.difficulty,
        "evaluation": t.evaluation,
        "time_limit_min": limits.time_limit_min,
        "time_limit_source": limits.source,
        # Only a methodology with token budgets (checks) answers one; elsewhere the field is absent.
        **({"token_budget": limits.token_budget} if t.benchmark.rules.token_budgets else {}),
        "human_minutes": t.human_minutes,
        "tags": [str(x) for x in t.tags or []],
        "prompt": current.prompt if current else "",
        "parameters": [str(p) for p in (current.parameters if current else []) or []],
        "criteria": (current.criteria if current else None) or {},
        "evidence": [str(e) for e in (current.evidence if current else []) or []],
    }


@router.get("/benchmarks/{slug}/tasks", response={200: list[s.TaskOut], **ERRORS}, tags=["tasks"], exclude_unset=True)
def tasks(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The benchmark's tasks that a published round holds, in their current version (a task only draft or
    preview rounds hold is not listed). Prompts show {placeholders}; the values of a round's parameters are given
    per published round on the task itself."""
    tasks = benchmark_or_404(slug).tasks.public().prefetch_related("versions").order_by("position", "key")
    return [_task_fields(t) for t in tasks]


@router.get(
    "/benchmarks/{slug}/tasks/{key}", response={200: s.TaskDetailOut, **ERRORS}, tags=["tasks"], exclude_unset=True
)
def task_detail(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    key: str = Path(..., pattern=KEY_PATTERN, max_length=100),
):
    """One task: its versions, and for every published round its parameter values and the prompt filled in."""
    t = task_or_404(benchmark_or_404(slug), key)
    values: dict[int, dict[str, str]] = {}
    for p in RoundParameter.objects.filter(in_published_round(), task=t):
        values.setdefault(p.round_id, {})[p.name] = p.value
    used = dict(
        Run.objects.published()
        .filter(task=t)
        .order_by("round_id", "task_version")
        .values_list("round_id", "task_version")
    )
    per_round = []
    for rnd in Round.objects.published().filter(Q(id__in=values.keys()) | Q(id__in=used.keys())):
        version = task_version(t, used.get(rnd.id, t.version))
        per_round.append(
            {
                "round": rnd.key,
                "task_version": version.version if version else t.version,
                "parameters": values.get(rnd.id, {}),
                "prompt": fill_prompt(version.prompt if version else "", values.get(rnd.id, {})),
            }
        )
    versions = [
        {"version": v.version, "published_at": v.published_at, "change_note": v.change_note} for v in t.versions.all()
    ]
    return {**_task_fields(t), "versions": versions, "rounds": per_round}
