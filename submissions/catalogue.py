"""A benchmark's τ² task set, and a submission track opened on one of its rounds.

`tau2_tasks_import` reads a τ² `tasks.json` (a list of tasks) as one task family of one version of the
benchmark's task set (a `TaskSetVersion`: τ²-bench's "2025-06-10", say): a task per τ² task, keyed
`{domain}-{id}`, each version of it carrying the task's fingerprint (`scoring.tau2.task_fingerprint`). The same
file again changes nothing. In the benchmark's current version a task whose content changed gets a new major
version, which becomes its current one; another version of the set (an older release) adds the versions its
tasks need without changing any task's current one. `track_open` makes (or reuses) the round a track sits on,
publishes it with its task set frozen, and attaches the track.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from leaderboard.models import Benchmark, Evaluation, Round, RoundStatus, Task, TaskVersion
from leaderboard.services.versions import next_version
from leaderboard.stale import snapshots_mark_stale
from scoring.tau2 import TAU2_PASS_THRESHOLD, task_fingerprint
from snapshots.models import BoardSnapshot, SnapshotKind

from .models import SubmissionTrack, TaskSetVersion

COMMUNITY_ROUND = "community"
VERSION_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,19}$")
KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


class TaskSetError(ValueError):
    pass


@dataclass
class TaskSetReport:
    created: list[str] = field(default_factory=list)
    new_versions: list[str] = field(default_factory=list)
    unchanged: int = 0
    version: str = ""  # the task set version loaded


def _prompt(task: dict) -> str:
    instructions = (task.get("user_scenario") or {}).get("instructions")
    if isinstance(instructions, dict):
        return "\n\n".join(f"{k}: {v}" for k, v in instructions.items() if v)
    return str(instructions or "")


def _title(task: dict, domain: str) -> str:
    purpose = (task.get("description") or {}).get("purpose") if isinstance(task.get("description"), dict) else None
    return (purpose or f"{domain} task {task['id']}")[:300]


def tau2_tasks_import(
    *, data: bytes, benchmark: str, domain: str, version: str | None = None, title: str | None = None
) -> TaskSetReport:
    """Load `data` (τ²'s tasks.json) as family `domain` of version `version` of `benchmark`'s task set (default
    its current version; a benchmark created here, or holding no task set yet, takes `version` as current).
    The benchmark is created when missing: scored, no vendor window, τ²'s pass threshold, named `title`."""
    try:
        tasks = json.loads(data)
    except ValueError as exc:
        raise TaskSetError(f"not readable JSON ({exc})") from exc
    if not isinstance(tasks, list) or not all(isinstance(t, dict) and t.get("id") is not None for t in tasks):
        raise TaskSetError("expected a list of τ² tasks, each with an id")
    if version is not None and not VERSION_LABEL.match(version):
        raise TaskSetError(f"--version {version!r}: letters, digits, dots and dashes, at most 20")
    report = TaskSetReport()
    with transaction.atomic():
        bench, created = Benchmark.objects.get_or_create(
            slug=benchmark,
            defaults={
                "name": title or benchmark,
                "methodology": "scored",
                "preview_hours": 0,
                "pass_threshold": TAU2_PASS_THRESHOLD,
            },
        )
        bench = Benchmark.objects.select_for_update().get(pk=bench.pk)
        if title and bench.name != title:
            bench.name = title
            bench.save(update_fields=["name"])
        label = version or bench.task_set_version or "1.0"
        start = bench.tasks.count()
        if label != bench.task_set_version and (created or start == 0):
            bench.task_set_version = label
            bench.save(update_fields=["task_set_version"])
        current = label == bench.task_set_version
        task_set, _ = TaskSetVersion.objects.get_or_create(benchmark=bench, version=label)
        for i, t in enumerate(tasks):
            key, task_version = _task_put(bench, t, domain, start + i, report, current=current)
            task_set.tasks[key] = task_version
        report.version = label
        task_set.save(update_fields=["tasks"])
        if report.created or report.new_versions:
            snapshots_mark_stale(round_ids=bench.rounds.values_list("id", flat=True))
    return report


def _task_put(
    bench: Benchmark, t: dict, domain: str, position: int, report: TaskSetReport, *, current: bool
) -> tuple[str, str]:
    """The task's key and the version of it `t` is: stored already (same fingerprint), or made now."""
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
        return key, task.version
    if current and task.versions.filter(version=task.version, fingerprint=fingerprint).exists():
        report.unchanged += 1
        return key, task.version
    same = task.versions.filter(fingerprint=fingerprint).order_by("-created_at").first()
    if same is not None and not current:
        report.unchanged += 1
        return key, same.version
    version = next_version(task.version, is_major=True)
    while task.versions.filter(version=version).exists():
        version = next_version(version, is_major=True)
    if same is None:
        TaskVersion.objects.create(
            task=task,
            version=version,
            prompt=_prompt(t),
            fingerprint=fingerprint,
            published_at=now,
            change_note="The benchmark's task set changed this task.",
        )
        report.new_versions.append(f"{key} {version}")
    else:
        version = same.version  # the current set goes back to a wording stored before
    if current:
        task.version = version
        task.title = _title(t, domain)
        task.save(update_fields=["version", "title"])
    return key, version


def tbench_dataset(data: bytes, dataset: str | None = None, version: str | None = None) -> tuple[str, str, list[str]]:
    """(dataset, version, task ids) of a Terminal-Bench dataset: from a run's run_metadata.json (`dataset_name`,
    `dataset_version`, `task_ids`), its tb.lock (`dataset`), a list ({"dataset", "version", "task_ids"}), or a
    bare JSON list of task ids; `dataset` and `version` given override (and a bare list needs them)."""
    try:
        doc = json.loads(data)
    except ValueError as exc:
        raise TaskSetError(f"not readable JSON ({exc})") from exc
    if isinstance(doc, dict) and isinstance(doc.get("dataset"), dict):  # tb.lock
        doc = {"dataset": doc["dataset"].get("name"), **doc["dataset"]}
    if isinstance(doc, list):
        doc = {"task_ids": doc}
    if not isinstance(doc, dict):
        raise TaskSetError("expected run_metadata.json, a tb.lock, {dataset, version, task_ids} or a list of task ids")
    name = dataset or doc.get("dataset_name") or doc.get("dataset")
    label = version or doc.get("dataset_version") or doc.get("version")
    ids = doc.get("task_ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and KEY.match(i) for i in ids):
        raise TaskSetError("task_ids: a list of task ids (letters, digits, dots, dashes and underscores)")
    if not isinstance(name, str) or not KEY.match(name) or not isinstance(label, str) or not VERSION_LABEL.match(label):
        raise TaskSetError("name the dataset and its version (--dataset, --version)")
    return name, label, sorted(set(ids))


def tbench_tasks_import(
    *, data: bytes, benchmark: str, title: str | None = None, dataset: str | None = None, version: str | None = None
) -> TaskSetReport:
    """Load a Terminal-Bench dataset's task ids (`tbench_dataset`) as the task family named for the dataset, in
    version `version` of the benchmark's task set: a task per id (keyed by it, evaluated by its tests: a trial
    scores 1 when resolved), the same ids again changing nothing. The benchmark is created when missing (scored,
    no vendor window, a trial passing when resolved), its current task set the dataset's version."""
    name, label, ids = tbench_dataset(data, dataset, version)
    report = TaskSetReport(version=label)
    with transaction.atomic():
        bench, created = Benchmark.objects.get_or_create(
            slug=benchmark,
            defaults={"name": title or benchmark, "methodology": "scored", "preview_hours": 0, "pass_threshold": 1.0},
        )
        bench = Benchmark.objects.select_for_update().get(pk=bench.pk)
        if title and bench.name != title:
            bench.name = title
            bench.save(update_fields=["name"])
        if label != bench.task_set_version and (created or not bench.tasks.exists()):
            bench.task_set_version = label
            bench.save(update_fields=["task_set_version"])
        start = bench.tasks.count()
        task_set, _ = TaskSetVersion.objects.get_or_create(benchmark=bench, version=label)
        for i, task_id in enumerate(ids):
            task, made = Task.objects.get_or_create(
                benchmark=bench,
                key=task_id,
                defaults={
                    "title": task_id,
                    "family": name,
                    "domain": name,
                    "evaluation": Evaluation.AUTO,
                    "position": start + i,
                },
            )
            if made:
                TaskVersion.objects.create(task=task, version=task.version, published_at=timezone.now())
                report.created.append(task_id)
            else:
                report.unchanged += 1
            task_set.tasks[task_id] = task.version
        task_set.save(update_fields=["tasks"])
        if report.created:
            snapshots_mark_stale(round_ids=bench.rounds.values_list("id", flat=True))
    return report


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
        created = rnd is None
        if rnd is None:
            version = benchmark.task_set_version or "1.0"
            tasks = benchmark.tasks.order_by("position", "key")
            stored = TaskSetVersion.objects.filter(benchmark=benchmark, version=version).first()
            if stored is not None:
                tasks = tasks.filter(key__in=list(stored.tasks))
            if families:
                tasks = tasks.filter(family__in=families)
            rnd = Round.objects.create(
                benchmark=benchmark,
                key=round_key,
                name="Community submissions",
                status=RoundStatus.PUBLISHED,
                published_at=timezone.now(),
                task_set_version=version,
                task_keys=list(tasks.values_list("key", flat=True)),
            )
        track, _ = SubmissionTrack.objects.update_or_create(
            round=rnd,
            defaults={"is_open": True, "closed_at": None, **settings},
        )
        # A round without a board (a new one, empty until its first submission) has it computed now, as every
        # round's is: left to the periodic sweep, a site without workers (`make serve`: no beat) would say
        # "computing" for ever.
        boards = created or not BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).exists()
        snapshots_mark_stale(round_ids=[rnd.id], boards=boards)
    return track
