"""A benchmark's τ² task set, and a submission track opened on one of its rounds.

`tau2_tasks_import` reads a τ² `tasks.json` (a list of tasks) as one task family: a task per τ² task, keyed
`{domain}-{id}`, its current version carrying the task's fingerprint (`scoring.tau2.task_fingerprint`). The same
file again changes nothing; a task whose content changed gets a new major version. `track_open` makes (or
reuses) the round a track sits on, publishes it with its task set frozen, and attaches the track.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from leaderboard.models import Benchmark, Evaluation, Round, RoundStatus, Task, TaskVersion
from leaderboard.services.versions import next_version
from scoring.tau2 import task_fingerprint
from snapshots.stale import snapshots_mark_stale

from .models import SubmissionTrack

# τ²'s success (reward 1 within 1e-6) as the scored boards' pass threshold: rewards are at most 1.
TAU2_PASS_THRESHOLD = 0.999999
COMMUNITY_ROUND = "community"


class TaskSetError(ValueError):
    pass


@dataclass
class TaskSetReport:
    created: list[str] = field(default_factory=list)
    new_versions: list[str] = field(default_factory=list)
    unchanged: int = 0


def _prompt(task: dict) -> str:
    instructions = (task.get("user_scenario") or {}).get("instructions")
    if isinstance(instructions, dict):
        return "\n\n".join(f"{k}: {v}" for k, v in instructions.items() if v)
    return str(instructions or "")


def _title(task: dict, domain: str) -> str:
    purpose = (task.get("description") or {}).get("purpose") if isinstance(task.get("description"), dict) else None
    return (purpose or f"{domain} task {task['id']}")[:300]


def tau2_tasks_import(*, data: bytes, benchmark: str, domain: str) -> TaskSetReport:
    """Load `data` (τ²'s tasks.json) as family `domain` of `benchmark` (created when missing: scored, no
    vendor window, τ²'s pass threshold)."""
    try:
        tasks = json.loads(data)
    except ValueError as exc:
        raise TaskSetError(f"not readable JSON ({exc})") from exc
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and t.get("id") is not None for t in tasks):
        raise TaskSetError("expected a list of τ² tasks, each with an id")
    report = TaskSetReport()
    with transaction.atomic():
        bench, _ = Benchmark.objects.get_or_create(
            slug=benchmark,
            defaults={
                "name": benchmark,
                "methodology": "scored",
                "preview_hours": 0,
                "pass_threshold": TAU2_PASS_THRESHOLD,
            },
        )
        start = bench.tasks.count()
        for i, t in enumerate(tasks):
            _task_put(bench, t, domain, start + i, report)
        if report.created or report.new_versions:
            snapshots_mark_stale(round_ids=bench.rounds.values_list("id", flat=True))
    return report


def _task_put(bench: Benchmark, t: dict, domain: str, position: int, report: TaskSetReport) -> None:
    key = f"{domain}-{t['id']}"
    fingerprint = task_fingerprint(t)
    task = Task.objects.filter(benchmark=bench, key=key).first()
    now = timezone.now()
    if task is None:
        task = Task.objects.create(
            benchmark=bench,
            key=key,
            title=_title(t, domain),
            family=domain,
            domain=domain,
            evaluation=Evaluation.AUTO,
            time_limit_min=None,
            position=position,
        )
        TaskVersion.objects.create(
            task=task, version=task.version, prompt=_prompt(t), fingerprint=fingerprint, published_at=now
        )
        report.created.append(key)
        return
    if task.versions.filter(version=task.version, fingerprint=fingerprint).exists():
        report.unchanged += 1
        return
    version = next_version(task.version, is_major=True)
    while task.versions.filter(version=version).exists():
        version = next_version(version, is_major=True)
    TaskVersion.objects.create(
        task=task,
        version=version,
        prompt=_prompt(t),
        fingerprint=fingerprint,
        published_at=now,
        change_note="The benchmark's task set changed this task.",
    )
    task.version = version
    task.title = _title(t, domain)
    task.save(update_fields=["version", "title"])
    report.new_versions.append(f"{key} {version}")


def track_open(
    *,
    benchmark: Benchmark,
    round_key: str = COMMUNITY_ROUND,
    families: list[str] | None = None,
    **settings,
) -> SubmissionTrack:
    """Open (or reopen) the submission track on `round_key`: a new round is "Community submissions", published
    now, its task set frozen to `families`' tasks (every task when None)."""
    with transaction.atomic():
        rnd = Round.objects.filter(benchmark=benchmark, key=round_key).first()
        if rnd is None:
            tasks = benchmark.tasks.order_by("position", "key")
            if families:
                tasks = tasks.filter(family__in=families)
            rnd = Round.objects.create(
                benchmark=benchmark,
                key=round_key,
                name="Community submissions",
                status=RoundStatus.PUBLISHED,
                published_at=timezone.now(),
                task_keys=list(tasks.values_list("key", flat=True)),
            )
        track, _ = SubmissionTrack.objects.update_or_create(
            round=rnd,
            defaults={"is_open": True, "closed_at": None, **settings},
        )
        snapshots_mark_stale(round_ids=[rnd.id], boards=False)
    return track
