"""The catalogue's own changes by editors: agents, organizations, benchmarks, tasks, rounds and their
parameters, and the changelog's notes. Once a round such a change reaches is published, the change needs a
reason and goes into that round's public changelog; every change says "this changed" for the boards, pages
and vote screens it feeds (`leaderboard.stale.snapshots_mark_stale`)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from leaderboard.stale import snapshots_mark_stale

from ..models import Agent, Benchmark, ChangelogEntry, Organization, Round, RoundParameter, RoundStatus, Task
from .changes import (
    BENCHMARK_PUBLISHED,
    PART_OF_PUBLISHED,
    changelog_add,
    changes_apply,
    require_editor,
    require_reason,
)
from .versions import TASK_FIELDS


def _catalogue_change(
    obj: Any, *, by, changes: dict[str, Any], reason: str, rounds: list[Round], label: str
) -> list[str]:
    """Apply `changes` to `obj`; refuse without a reason when a round it is part of is published; log the
    change in each published round; mark every round it touches stale. Returns what changed."""
    described = changes_apply(obj, changes)
    if not described:
        return []
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    require_reason(reason, published=bool(published), message=PART_OF_PUBLISHED)
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
        require_reason(reason, published=bool(published), message=BENCHMARK_PUBLISHED)
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
        if task.runs.exists():
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
        require_reason(reason, published=locked.is_published)
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
        require_reason(reason, published=rnd.is_published)
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


def catalogue_create(*, obj: Agent | Benchmark | Organization | Round, by) -> Agent | Benchmark | Organization | Round:
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


def _rounds_of_organization(org: Organization) -> list[Round]:
    return list(Round.objects.filter(entries__agent__organization=org).distinct())


def organization_update(*, organization: Organization, by, changes: dict[str, Any], reason: str = "") -> Organization:
    """An editor renames a vendor (its name is on its agents' pages and decides whether a preview address
    names an agent, so the vote pool is retired with the boards)."""
    require_editor(by)
    with transaction.atomic():
        locked = Organization.objects.select_for_update().get(pk=organization.pk)
        _catalogue_change(
            locked,
            by=by,
            changes=changes,
            reason=reason,
            rounds=_rounds_of_organization(locked),
            label=f"Organization {locked.name}",
        )
    return locked


def organization_delete(*, organization: Organization, by) -> None:
    """An organization is removed (its agents stay, without one): every round of its agents is recomputed."""
    require_editor(by)
    with transaction.atomic():
        rounds = _rounds_of_organization(organization)
        if any(r.is_published for r in rounds):
            raise ValidationError(
                f"{organization} has agents in a published round: rename it instead, with a reason.",
                code="published_organization",
            )
        snapshots_mark_stale(round_ids=[r.id for r in rounds])
        organization.delete()


def catalogue_delete(*, obj: Agent | Benchmark | Round, by) -> None:
    """An editor removes an agent, a benchmark or a round that no published round holds (a published one is
    public and stays); what it fed is recomputed, its pages and the vote pool retired."""
    require_editor(by)
    with transaction.atomic():
        if isinstance(obj, Round):
            rounds = [obj]
        elif isinstance(obj, Benchmark):
            rounds = list(obj.rounds.all())
        else:
            rounds = list(Round.objects.filter(entries__agent=obj).distinct())
        if any(r.is_published for r in rounds):
            raise ValidationError(f"{obj} is part of a published round and is never deleted.", code="published")
        bench_ids = {r.benchmark_id for r in rounds} | ({obj.pk} if isinstance(obj, Benchmark) else set())
        # Said before the delete: the benchmarks' pages are found by the rows about to go.
        snapshots_mark_stale(round_ids=[r.id for r in rounds], boards=False, benchmark_ids=bench_ids)
        obj.delete()
