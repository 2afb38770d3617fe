"""Task versions (seed 000 §9) and the task set's version: what a wording change does to results."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from leaderboard.stale import snapshots_mark_stale
from scoring.common import major

from ..models import Benchmark, ChangelogEntry, Round, RoundStatus, Task, TaskVersion, row_attributes
from .changes import changelog_add, require_editor

FROZEN_VERSION_FIELDS = TaskVersion.WORDING

# What an editor edits on a task: every attribute of the model but its current version, which moves only with a
# new TaskVersion (`task_version_create`).
TASK_FIELDS = tuple(f for f in row_attributes(Task) if f != "version")


def next_version(current: str, *, is_major: bool) -> str:
    parts = [int(p) for p in current.split(".") if p.isdigit()] or [1, 0]
    if is_major:
        return f"{parts[0] + 1}.0"
    minor = parts[1] if len(parts) > 1 else 0
    return f"{parts[0]}.{minor + 1}"


def _version_and_base(
    task: Task, current: TaskVersion | None, *, prompt: str, criteria: dict
) -> tuple[str, dict[str, Any]]:
    """The new version's name (major when the prompt or a criterion changes, never one the task already has)
    and the fields it takes from the current version unless given."""
    if current is None:
        return task.version, {
            "parameters": [],
            "interruption": "",
            "evidence": [],
            "scenarios": [],
            "observes_later_effects": False,
        }
    is_major = prompt != current.prompt or (criteria or {}) != (current.criteria or {})
    version = next_version(task.version, is_major=is_major)
    base = {
        "parameters": current.parameters,
        "interruption": current.interruption,
        "evidence": current.evidence,
        "scenarios": current.scenarios,
        "observes_later_effects": current.observes_later_effects,
    }
    while TaskVersion.objects.filter(task=task, version=version).exists():
        version = next_version(version, is_major=is_major)
    return version, base


def task_version_create(
    *,
    task: Task,
    by,
    prompt: str,
    criteria: dict,
    parameters: list | None = None,
    interruption: str | None = None,
    evidence: list | None = None,
    scenarios: list | None = None,
    observes_later_effects: bool | None = None,
    change_note: str = "",
) -> TaskVersion:
    """A new version of a task's wording (seed 000 §9). A changed prompt or criterion is a major change
    (1.x -> 2.0): results under the old version stay as they were and are marked stale. Anything else is a
    minor change (1.0 -> 1.1) that adds. A field not given (None) is taken from the current version, so a
    new wording keeps the vote screen's scenarios. The task's current version moves to the new one."""
    require_editor(by)
    with transaction.atomic():
        task = Task.objects.select_for_update().select_related("benchmark").get(pk=task.pk)
        current = task.current_version
        version, base = _version_and_base(task, current, prompt=prompt, criteria=criteria)
        new = TaskVersion.objects.create(
            task=task,
            version=version,
            prompt=prompt,
            criteria=criteria or {},
            parameters=base["parameters"] if parameters is None else parameters,
            interruption=base["interruption"] if interruption is None else interruption,
            evidence=base["evidence"] if evidence is None else evidence,
            scenarios=base["scenarios"] if scenarios is None else scenarios,
            observes_later_effects=(
                base["observes_later_effects"] if observes_later_effects is None else observes_later_effects
            ),
            change_note=change_note,
        )
        old = task.version
        task.version = version
        task.save(update_fields=["version"])
        round_ids = list(Round.objects.filter(benchmark=task.benchmark_id).values_list("id", flat=True))
        if current is not None and major(version) > major(old):
            for rnd in Round.objects.published().filter(runs__task=task).distinct():
                changelog_add(
                    round=rnd,
                    run=None,
                    who=by,
                    why=change_note or "A prompt or criterion changed.",
                    what=f"Task {task.key} is now v{version}; results under v{old} stay as they were and are "
                    "marked stale.",
                )
        snapshots_mark_stale(round_ids=round_ids)
    return new


def task_version_update(*, version: TaskVersion, by, **fields: Any) -> TaskVersion:
    """Edit a task version in place: allowed only while it is unpublished for the wording (prompt, criteria,
    parameters, interruption); a published version's wording is never edited (a change is a new version)."""
    require_editor(by)
    with transaction.atomic():
        version = TaskVersion.objects.select_for_update().get(pk=version.pk)
        frozen = version.frozen_changes(fields)
        wording = [f for f in frozen if f != "published_at"]
        if wording:
            raise ValidationError(
                f"{version} is published: its {', '.join(wording)} are never edited in place; create a new "
                "version instead.",
                code="published_version",
            )
        if frozen:
            raise ValidationError(f"{version} is published and stays published.", code="published_version")
        for name, value in fields.items():
            setattr(version, name, value)
        version.save()
        snapshots_mark_stale(
            round_ids=Round.objects.filter(benchmark=version.task.benchmark_id).values_list("id", flat=True)
        )
    return version


def task_version_publish(*, version: TaskVersion, by, now: datetime | None = None) -> TaskVersion:
    """Publish a task's prompt and pass checklist (possible before any run, e.g. seed 004's trip plan);
    from then on its wording is frozen."""
    require_editor(by)
    TaskVersion.objects.filter(pk=version.pk, published_at__isnull=True).update(published_at=now or timezone.now())
    version.refresh_from_db()
    return version


def task_version_delete(*, version: TaskVersion, by) -> None:
    """Only an unpublished version that is not the task's current one and has no runs may be deleted."""
    require_editor(by)
    with transaction.atomic():
        if (
            version.published_at is not None
            or version.version == version.task.version
            or version.task.runs.filter(task_version=version.version).exists()
        ):
            raise ValidationError(
                f"{version} is published, current or has runs: it is never deleted.", code="version_in_use"
            )
        version.delete()


def task_create(*, benchmark: Benchmark, by, key: str, reason: str = "", **fields: Any) -> Task:
    """Add a task to a benchmark's task set. Seed 000 §9: "Adding tasks is a minor version change (v1.1)":
    the task set moves to the next minor version when its current version is already out (a round that left
    draft was run on it); tasks added before the next round is out join that same new version. A published
    round's boards can change with the task set (coverage, a to-spec task without runs counts 0), so each
    published round gets a changelog entry and every round of the benchmark is recomputed."""
    require_editor(by)
    unknown = set(fields) - set(TASK_FIELDS) - {"version"}
    if unknown:
        raise ValueError(f"not task fields: {sorted(unknown)}")
    with transaction.atomic():
        bench = Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        task = Task.objects.create(benchmark=bench, key=key, **fields)
        task_set_grown(bench, [key], by=by, why=reason.strip() or "A task was added to the task set.")
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=bench).values_list("id", flat=True))
    return task


def task_set_grown(bench: Benchmark, keys: list[str], *, by, why: str) -> str:
    """Tasks `keys` were added to `bench` (by the admin's task form or an import: the one rule for both). Seed 000
    §9: "Adding tasks is a minor version change (v1.1)": the task set moves to the next minor version when its
    current version is already out (a round that left draft was run on it); tasks added before the next round
    is out join that same new version. Each published round gets a changelog line, written by the site (by
    `by`, an editor, or an import when None). Returns the task set's version."""
    old = bench.task_set_version or "1.0"
    out = Round.objects.filter(benchmark=bench, task_set_version=old).exclude(status=RoundStatus.DRAFT)
    new = next_version(old, is_major=False) if out.exists() else old
    if new != old:
        bench.task_set_version = new
        bench.save(update_fields=["task_set_version"])
    named = f"Task{'s' if len(keys) != 1 else ''} {', '.join(keys)} added"
    what = f"{named}; the task set is v{new}" + (f" (was v{old})" if new != old else "")
    for rnd in Round.objects.published().filter(benchmark=bench):
        if getattr(by, "pk", None):
            changelog_add(round=rnd, run=None, who=by, why=why, what=what)
        else:
            ChangelogEntry.objects.create(round=rnd, what=what, why=why, who_role="import", created_at=timezone.now())
    return new
