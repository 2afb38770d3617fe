"""Corrections by editors: runs, verdicts, agents, benchmarks, tasks, rounds and their parameters. Once a
round is published each change needs a reason and goes into its public changelog; every change marks the
boards it feeds stale."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from leaderboard.models import Agent, Benchmark, ChangelogEntry, Round, RoundParameter, RoundStatus, Task
from leaderboard.services.changes import BENCHMARK_PUBLISHED, PART_OF_PUBLISHED
from leaderboard.services.changes import require_reason as changes_reason
from snapshots.stale import snapshots_mark_stale

from ..models import Run, Verdict
from ._common import (
    changelog_add,
    changes_apply,
    clean_matched,
    locked_run,
    require_editor,
    require_reason,
    verdict_logged,
)
from .preview import preview_restart
from .review import lowest_outcome, store_outcome
from .versions import TASK_FIELDS


def verdict_change(
    *,
    verdict: Verdict,
    by,
    outcome: str | None = None,
    matched: Sequence[str] = (),
    note: str | None = None,
    reason: str = "",
) -> Verdict:
    """An editor corrects a verdict. A reviewer never changes their own once entered (the second could
    otherwise adjust theirs after learning that a third review was needed). After publication the reason
    is required and the change goes into the round's changelog; the board is recomputed."""
    require_editor(by)
    with transaction.atomic():
        run = locked_run(verdict.run)
        verdict = Verdict.objects.select_for_update().get(pk=verdict.pk)
        matched = clean_matched(matched)
        final = lowest_outcome(outcome=outcome, matched=matched)
        if final is None:
            raise ValidationError({"outcome": "Choose an outcome or the rows the run matched."})
        require_reason(run.round, reason)
        changes = []
        if final != verdict.outcome:
            changes.append(f"outcome {verdict.outcome} -> {final}")
        if matched != list(verdict.matched or []):
            changes.append(
                f"matched rows {', '.join(verdict.matched or []) or 'none'} -> {', '.join(matched) or 'none'}"
            )
        if note is not None and note.strip() != verdict.note:
            changes.append("note edited")
            verdict.note = note.strip()
        if not changes:
            return verdict
        verdict.outcome, verdict.matched = final, matched
        verdict.save()
        before, after = store_outcome(run)
        what = f"Run {run.key}: {verdict.get_role_display()}'s verdict changed: {'; '.join(changes)}"
        verdict_logged(run=run, who=by, reason=reason, what=what, before=before, after=after)
        snapshots_mark_stale(round_ids=[run.round_id])
    return verdict


def verdict_delete(*, verdict: Verdict, by) -> None:
    """An editor removes a verdict of an unpublished round (a mistaken entry); the run's outcome is
    recomputed. A published verdict is never deleted: it is corrected with a reason (`verdict_change`)."""
    require_editor(by)
    with transaction.atomic():
        run = locked_run(verdict.run)
        if run.round.is_published:
            raise ValidationError(
                f"The {verdict.get_role_display()}'s verdict on {run.key} is published and is "
                "never deleted; correct it instead, with a reason.",
                code="published_verdict",
            )
        Verdict.objects.filter(pk=verdict.pk).delete()
        store_outcome(run)
        snapshots_mark_stale(round_ids=[run.round_id])


def run_update(*, run: Run, by, changes: dict[str, Any], reason: str = "") -> Run:
    """An editor changes fields of a run. After publication: reason required, a changelog entry naming each
    field with its old and new value, and a recompute."""
    require_editor(by)
    with transaction.atomic():
        locked = locked_run(run)
        require_reason(locked.round, reason)
        described = changes_apply(locked, changes)
        if not described:
            return locked
        locked.save()
        before, after = store_outcome(locked)
        if before == after:
            preview_restart(locked.round)  # the run's other fields are its result too (time, checks, score)
        if locked.round.is_published:
            changelog_add(
                round=locked.round,
                run=locked,
                who=by,
                why=reason.strip(),
                what=f"Run {locked.key}: {'; '.join(described)}",
            )
        snapshots_mark_stale(round_ids=[locked.round_id])
    return locked


def run_create(*, by, reason: str = "", **fields: Any) -> Run:
    """An editor adds a run. In a published round the reason is required and the addition is logged."""
    require_editor(by)
    with transaction.atomic():
        run = Run(**fields)
        rnd = Round.objects.select_for_update().get(pk=run.round_id)
        require_reason(rnd, reason)
        run.save()
        if rnd.is_published:
            changelog_add(round=rnd, run=run, who=by, why=reason.strip(), what=f"Run {run.key} added")
        preview_restart(rnd)
        snapshots_mark_stale(round_ids=[rnd.id])
    return run


def run_delete(*, run: Run, by) -> None:
    """An editor deletes a run of an unpublished round. A published run is never deleted: it stays, and a
    correction is made to it with a reason (seed 000 §6, "Corrections after publication are logged")."""
    require_editor(by)
    with transaction.atomic():
        locked = locked_run(run)
        if locked.round.is_published:
            raise ValidationError(
                f"Run {locked.key} is published and is never deleted; correct it instead (the "
                "correction and its reason go into the round's changelog).",
                code="published_run",
            )
        if Run.objects.filter(rerun_of=locked).exists():
            raise ValidationError(f"Run {locked.key} has a re-run; delete the re-run first.", code="has_rerun")
        rnd = locked.round
        locked.delete()
        preview_restart(rnd)
        snapshots_mark_stale(round_ids=[rnd.id])


def run_related_changed(*, run: Run, by, what: list[str], reason: str = "") -> None:
    """Evidence or checks of a run were edited (admin inlines): recompute, and log it once published."""
    require_editor(by)
    if not what:
        return
    with transaction.atomic():
        locked = locked_run(run)
        require_reason(locked.round, reason)
        if locked.round.is_published:
            changelog_add(
                round=locked.round, run=locked, who=by, why=reason.strip(), what=f"Run {locked.key}: {'; '.join(what)}"
            )
        preview_restart(locked.round)
        snapshots_mark_stale(round_ids=[locked.round_id])


def _catalogue_change(
    obj: Any, *, by, changes: dict[str, Any], reason: str, rounds: list[Round], label: str
) -> list[str]:
    """Apply `changes` to `obj`; refuse without a reason when a round it is part of is published; log the
    change in each published round; mark every round it touches stale. Returns what changed."""
    described = changes_apply(obj, changes)
    if not described:
        return []
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    changes_reason(reason, published=bool(published), message=PART_OF_PUBLISHED)
    obj.save()
    for rnd in published:
        changelog_add(round=rnd, run=None, who=by, why=reason.strip(), what=f"{label}: {'; '.join(described)}")
    snapshots_mark_stale(round_ids=[r.id for r in rounds], benchmark_ids={r.benchmark_id for r in rounds})
    return described


def agent_update(*, agent: Agent, by, changes: dict[str, Any], reason: str = "") -> Agent:
    """An editor changes an agent (its name is on every board it is entered in)."""
    require_editor(by)
    with transaction.atomic():
        locked = Agent.objects.select_for_update().get(pk=agent.pk)
        rounds = list(Round.objects.filter(entries__agent=locked).distinct())
        _catalogue_change(locked, by=by, changes=changes, reason=reason, rounds=rounds, label=f"Agent {locked.slug}")
    return locked


def benchmark_update(*, benchmark: Benchmark, by, changes: dict[str, Any], reason: str = "") -> Benchmark:
    """An editor changes a benchmark (its parameters, e.g. the pass threshold, feed every board)."""
    require_editor(by)
    with transaction.atomic():
        locked = Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        if (
            "methodology" in changes
            and changes["methodology"] != locked.methodology
            and Round.objects.filter(benchmark=locked).exclude(status=RoundStatus.DRAFT).exists()
        ):
            raise ValidationError({"methodology": "A benchmark with rounds out never changes its methodology."})
        rounds = list(Round.objects.filter(benchmark=locked))
        _catalogue_change(
            locked, by=by, changes=changes, reason=reason, rounds=rounds, label=f"Benchmark {locked.slug}"
        )
    return locked


def task_update(*, task: Task, by, changes: dict[str, Any], reason: str = "") -> Task:
    """An editor changes a task's attributes (title, kind, dimensions, limits...). Its wording changes only
    through a new version (`task_version_create`). Once a round of its benchmark is published the reason is
    required, each published round gets a changelog entry, and every round of the benchmark is recomputed."""
    require_editor(by)
    with transaction.atomic():
        locked = Task.objects.select_for_update().get(pk=task.pk)
        refused = [name for name in changes if name not in TASK_FIELDS]
        if refused:
            raise ValidationError(f"A task's {refused[0]} is not edited here.", code="not_editable")
        described = changes_apply(locked, changes)
        if not described:
            return locked
        published = list(Round.objects.published().filter(benchmark=locked.benchmark_id))
        changes_reason(reason, published=bool(published), message=BENCHMARK_PUBLISHED)
        locked.save()
        for rnd in published:
            changelog_add(
                round=rnd, run=None, who=by, why=reason.strip(), what=f"Task {locked.key}: {'; '.join(described)}"
            )
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=locked.benchmark_id).values_list("id", flat=True))
    return locked


def task_delete(*, task: Task, by) -> None:
    """A task with runs is never deleted (its runs are results); one without runs may be, while no round of
    its benchmark is published (a published task set only grows: §9)."""
    require_editor(by)
    with transaction.atomic():
        if Run.objects.filter(task=task).exists():
            raise ValidationError(f"Task {task.key} has runs and is never deleted.", code="task_has_runs")
        if Round.objects.published().filter(benchmark=task.benchmark_id).exists():
            raise ValidationError(
                f"A round of {task.benchmark} is published: its task set is never shrunk.", code="published_task_set"
            )
        bench_id = task.benchmark_id
        task.delete()
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=bench_id).values_list("id", flat=True))


def round_update(*, round: Round, by, changes: dict[str, Any], reason: str = "") -> Round:
    """An editor changes a round's own fields (name, dates, task set, ...): logged once it is published."""
    require_editor(by)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round.pk)
        _catalogue_change(locked, by=by, changes=changes, reason=reason, rounds=[locked], label=f"Round {locked.key}")
    return locked


def round_details_changed(*, round: Round, by, what: list[str], reason: str = "") -> None:
    """A round's entries or parameter values were edited (admin inlines): recompute, and log it once the round
    is published (a reason is then required)."""
    require_editor(by)
    if not what:
        return
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round.pk)
        require_reason(locked, reason)
        if locked.is_published:
            changelog_add(
                round=locked, run=None, who=by, why=reason.strip(), what=f"Round {locked.key}: {'; '.join(what)}"
            )
        snapshots_mark_stale(round_ids=[locked.id], benchmark_ids=[locked.benchmark_id])


def round_parameter_save(*, parameter: RoundParameter, by, reason: str = "") -> RoundParameter:
    """An editor sets a round's parameter value; once the round is published (its values are public) the
    change needs a reason and is logged."""
    require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=parameter.round_id)
        require_reason(rnd, reason)
        created = parameter.pk is None
        parameter.save()
        if rnd.is_published:
            changelog_add(
                round=rnd,
                run=None,
                who=by,
                why=reason.strip(),
                what=f"Parameter {parameter.task.key}.{parameter.name} {'added' if created else 'set'}: "
                f"{parameter.value}",
            )
        snapshots_mark_stale(round_ids=[rnd.id])
    return parameter


def round_parameter_delete(*, parameter: RoundParameter, by) -> None:
    """A parameter of an unpublished round may be removed; a published one is public and stays."""
    require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=parameter.round_id)
        if rnd.is_published:
            raise ValidationError(
                f"{rnd} is published: its parameter values are public and are never deleted; "
                "correct the value instead, with a reason.",
                code="published_parameter",
            )
        RoundParameter.objects.filter(pk=parameter.pk).delete()
        snapshots_mark_stale(round_ids=[rnd.id])


def catalogue_create(*, obj: Agent | Benchmark | Round, by) -> Agent | Benchmark | Round:
    """An editor adds an agent, a benchmark or a round. None is on a public board yet (a new round is a draft,
    an agent becomes public with its first published entry), so nothing turns stale and nothing is logged."""
    require_editor(by)
    if isinstance(obj, Round) and obj.status != RoundStatus.DRAFT:
        raise ValidationError({"status": "A new round starts as a draft; it is published through preview."})
    with transaction.atomic():
        obj.save()
    return obj


def changelog_note_add(*, entry: ChangelogEntry, by) -> ChangelogEntry:
    """An editor writes a note into a round's changelog by hand (a correction explained in words); it names
    who wrote it. Published notes are never edited: a later note corrects an earlier one."""
    require_editor(by)
    if entry.pk is not None:
        raise ValidationError("A changelog note, once written, stays as it is: add another note instead.")
    entry.who = by
    entry.who_role = entry.who_role or "editor"
    with transaction.atomic():
        entry.save()
    return entry
