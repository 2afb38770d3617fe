"""Writes of reviewing and publication: verdicts, disputes, re-runs, round status, task versions.

Every rule of seed 000 §5-§9 that a person could break from the admin or the site is checked here, so the
admin forms and the vendor pages are thin: they call a service and show its `ValidationError`.

Every write that changes a board's inputs marks the round's snapshots stale in the same transaction
(`snapshots.stale.snapshots_mark_stale`), which enqueues the recompute after commit. After a round is
published, a change to a verdict or a run also writes a `ChangelogEntry` (what, why, who, when): the
round's public changelog.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format

from leaderboard.models import (
    Agent,
    Benchmark,
    ChangelogEntry,
    Round,
    RoundParameter,
    RoundStatus,
    Task,
    TaskVersion,
    major,
    task_input,
)
from runs.models import run_input
from scoring.common import has_results, reviewed_outcome, verdict_outcome
from scoring.types import RunInput, VerdictInput
from snapshots.stale import snapshots_mark_stale

from .models import Dispute, DisputeReason, DisputeStatus, Outcome, Run, Verdict, VerdictRole
from .selectors import (
    is_reviewed,
    review_stage,
    runs_in_review,
    user_is_editor,
    user_verdict_roles,
    uses_double_review,
    vendor_organization,
)

FROZEN_VERSION_FIELDS = ("prompt", "criteria", "parameters", "interruption")


def _when(value: datetime) -> str:
    return date_format(timezone.localtime(value), "DATETIME_FORMAT")


def _role_of(user) -> str:
    if user_is_editor(user):
        return "editor"
    roles = user_verdict_roles(user)
    if VerdictRole.SECOND in roles:
        return "reviewer"
    if VerdictRole.TESTER in roles:
        return "tester"
    return ""


def _require_editor(user) -> None:
    if not user_is_editor(user):
        raise PermissionDenied("Only editors may do this.")


def _log(*, round: Round, run: Run | None, what: str, why: str, who) -> ChangelogEntry:
    return ChangelogEntry.objects.create(round=round, run=run, what=what, why=why, who=who,
                                         who_role=_role_of(who), created_at=timezone.now())


def _require_reason(round: Round, reason: str) -> None:
    if round.is_published and not (reason or "").strip():
        raise ValidationError({"reason": "The round is published: say why (the reason goes into its public "
                                          "changelog)."}, code="reason_required")


# --- outcomes ---------------------------------------------------------------------------------------------------

def lowest_outcome(*, outcome: str | None = None, matched: Iterable[str] = ()) -> str | None:
    """Seed 000 §3: "If a run matches more than one row, the lowest outcome applies" (scoring's own order)."""
    return verdict_outcome(VerdictInput(role="tester", outcome=outcome or None, matched=tuple(matched)))


def run_final_outcome(*, run: Run) -> str:
    """The outcome the verdicts give a run ("" while it is in review), by the scoring rule itself
    (scoring.common.reviewed_outcome): tester and second agree -> that; else the third's; a lone tester
    stands only where the benchmark has no double review (the weekly table). A violation counts only where
    the methodology allows one on the task (its registry entry's `violation_possible`); elsewhere it is a fail."""
    verdicts = tuple(VerdictInput(role=v.role, outcome=v.outcome, matched=tuple(v.matched or ()))
                     for v in Verdict.objects.filter(run=run))
    if not verdicts:
        return run.outcome
    double = uses_double_review(run)
    possible = run.round.benchmark.rules.violation_possible
    allow_violation = bool(possible and possible(task_input(run.task)))
    as_input = RunInput(id=run.key, round=run.round.key, agent="", task=run.task.key, verdicts=verdicts)
    return reviewed_outcome(as_input, allow_violation=allow_violation, double_review=double) or ""


def _store_outcome(run: Run) -> tuple[str, str]:
    before = run.outcome
    after = run_final_outcome(run=run)
    if after != before:
        run.outcome = after
        run.save(update_fields=["outcome", "updated_at"])
        _preview_restart(run.round)
    return before, after


def _preview_restart(round: Round, now: datetime | None = None) -> None:
    """A result that changes during the vendor preview restarts its 48 hours, and the window runs only while
    every run is decided: vendors get the whole window with the results as they will be published (seed 000
    §6 "Vendors receive their results 48 hours before publication")."""
    if round.status == RoundStatus.PREVIEW:
        started = None if _undecided(round) else (now or timezone.now())
        Round.objects.filter(pk=round.pk, status=RoundStatus.PREVIEW).update(preview_started_at=started)
        round.preview_started_at = started


def _locked_run(run: Run) -> Run:
    # The row lock serialises verdicts on one run: without it a third verdict could be checked against a
    # second verdict that another request is replacing at the same moment.
    return Run.objects.select_for_update(of=("self",)).select_related("round__benchmark", "task", "entry__agent").get(
        pk=run.pk)


# --- verdicts ---------------------------------------------------------------------------------------------------

def verdict_record(*, run: Run, role: str, reviewer, outcome: str | None = None, matched: Sequence[str] = (),
                   note: str = "", reason: str = "", now: datetime | None = None) -> Verdict:
    """Record a new verdict on `run` in `role` by `reviewer`.

    Rules: testers enter the tester's verdict, reviewers the second and third; the third only when the tester
    and the second disagree; one verdict per role; one role per person on a run; nothing before the run's
    effects are due; the outcome is the lowest of the matched rows (and the chosen outcome).
    """
    now = now or timezone.now()
    with transaction.atomic():
        run = _locked_run(run)
        if role not in VerdictRole.values:
            raise ValidationError({"role": f"Unknown role {role!r}."})
        if role not in user_verdict_roles(reviewer):
            raise PermissionDenied(f"You may not enter the {VerdictRole(role).label}'s verdict.")
        if not is_reviewed(run):
            raise ValidationError("This run gets no reviewed outcome (its status or its benchmark's methodology).")
        existing = {v.role: v for v in Verdict.objects.filter(run=run)}
        if role in existing:
            raise ValidationError({"role": f"This run already has a {VerdictRole(role).label}'s verdict."},
                                  code="role_taken")
        mine = [v for v in existing.values() if v.reviewer_id == reviewer.pk]
        if mine:
            raise ValidationError({"role": f"You already reviewed this run as the {mine[0].get_role_display()}; "
                                           "a person reviews a run in one role only."}, code="second_role")
        if role == VerdictRole.TESTER and not (note or "").strip():
            raise ValidationError({"note": "The tester records the outcome with a short note (what happened)."},
                                  code="note_required")
        if role == VerdictRole.THIRD and not review_stage(run).disagree:
            raise ValidationError({"role": "A third reviewer decides only when the tester and the second "
                                           "reviewer disagree (on the outcome the board counts)."},
                                  code="no_disagreement")
        if run.due_at is not None and run.due_at > now:
            raise ValidationError(f"This run's effects are due on {_when(run.due_at)}; it cannot be judged "
                                  "before then.", code="not_due")
        matched = _clean_matched(matched)
        final = lowest_outcome(outcome=outcome, matched=matched)
        if final is None:
            raise ValidationError({"outcome": "Choose an outcome or the rows the run matched."})
        _require_reason(run.round, reason)
        verdict = Verdict.objects.create(run=run, role=role, reviewer=reviewer, outcome=final, matched=matched,
                                         note=note.strip(), created_at=now)
        before, after = _store_outcome(run)
        if run.round.is_published:
            _log(round=run.round, run=run, who=reviewer, why=reason.strip(),
                 what=f"Run {run.key}: {verdict.get_role_display()}'s verdict added ({final})"
                      + (f"; final outcome {before or 'in review'} -> {after or 'in review'}" if before != after
                         else ""))
        snapshots_mark_stale(round_ids=[run.round_id])
    return verdict


def _clean_matched(matched: Iterable[str]) -> list[str]:
    cleaned = []
    for m in matched or ():
        if m not in Outcome.values:
            raise ValidationError({"matched": f"Unknown outcome {m!r}."})
        if m not in cleaned:
            cleaned.append(m)
    return cleaned


def verdict_change(*, verdict: Verdict, by, outcome: str | None = None, matched: Sequence[str] = (),
                   note: str | None = None, reason: str = "") -> Verdict:
    """An editor corrects a verdict. A reviewer never changes their own once entered (the second could
    otherwise adjust theirs after learning that a third review was needed). After publication the reason
    is required and the change goes into the round's changelog; the board is recomputed."""
    _require_editor(by)
    with transaction.atomic():
        run = _locked_run(verdict.run)
        verdict = Verdict.objects.select_for_update().get(pk=verdict.pk)
        matched = _clean_matched(matched)
        final = lowest_outcome(outcome=outcome, matched=matched)
        if final is None:
            raise ValidationError({"outcome": "Choose an outcome or the rows the run matched."})
        _require_reason(run.round, reason)
        changes = []
        if final != verdict.outcome:
            changes.append(f"outcome {verdict.outcome} -> {final}")
        if matched != list(verdict.matched or []):
            changes.append(f"matched rows {', '.join(verdict.matched or []) or 'none'} -> "
                           f"{', '.join(matched) or 'none'}")
        if note is not None and note.strip() != verdict.note:
            changes.append("note edited")
            verdict.note = note.strip()
        if not changes:
            return verdict
        verdict.outcome, verdict.matched = final, matched
        verdict.save()
        before, after = _store_outcome(run)
        if run.round.is_published:
            what = f"Run {run.key}: {verdict.get_role_display()}'s verdict changed: {'; '.join(changes)}"
            if before != after:
                what += f"; final outcome {before or 'in review'} -> {after or 'in review'}"
            _log(round=run.round, run=run, who=by, why=reason.strip(), what=what)
        snapshots_mark_stale(round_ids=[run.round_id])
    return verdict


def run_update(*, run: Run, by, changes: dict[str, Any], reason: str = "") -> Run:
    """An editor changes fields of a run. After publication: reason required, a changelog entry naming each
    field with its old and new value, and a recompute."""
    _require_editor(by)
    with transaction.atomic():
        locked = _locked_run(run)
        _require_reason(locked.round, reason)
        described = []
        for name, value in changes.items():
            old = getattr(locked, name)
            if old != value:
                described.append(f"{run._meta.get_field(name).verbose_name} {_show(old)} -> {_show(value)}")
                setattr(locked, name, value)
        if not described:
            return locked
        locked.save()
        before, after = _store_outcome(locked)
        if before == after:
            _preview_restart(locked.round)  # the run's other fields are its result too (time, checks, score)
        if locked.round.is_published:
            _log(round=locked.round, run=locked, who=by, why=reason.strip(),
                 what=f"Run {locked.key}: {'; '.join(described)}")
        snapshots_mark_stale(round_ids=[locked.round_id])
    return locked


def run_create(*, by, reason: str = "", **fields: Any) -> Run:
    """An editor adds a run. In a published round the reason is required and the addition is logged."""
    _require_editor(by)
    with transaction.atomic():
        run = Run(**fields)
        rnd = Round.objects.select_for_update().get(pk=run.round_id)
        _require_reason(rnd, reason)
        run.save()
        if rnd.is_published:
            _log(round=rnd, run=run, who=by, why=reason.strip(), what=f"Run {run.key} added")
        _preview_restart(rnd)
        snapshots_mark_stale(round_ids=[rnd.id])
    return run


def run_delete(*, run: Run, by) -> None:
    """An editor deletes a run of an unpublished round. A published run is never deleted: it stays, and a
    correction is made to it with a reason (seed 000 §6, "Corrections after publication are logged")."""
    _require_editor(by)
    with transaction.atomic():
        locked = _locked_run(run)
        if locked.round.is_published:
            raise ValidationError(f"Run {locked.key} is published and is never deleted; correct it instead (the "
                                  "correction and its reason go into the round's changelog).", code="published_run")
        if Run.objects.filter(rerun_of=locked).exists():
            raise ValidationError(f"Run {locked.key} has a re-run; delete the re-run first.", code="has_rerun")
        rnd = locked.round
        locked.delete()
        _preview_restart(rnd)
        snapshots_mark_stale(round_ids=[rnd.id])


def run_related_changed(*, run: Run, by, what: list[str], reason: str = "") -> None:
    """Evidence or checks of a run were edited (admin inlines): recompute, and log it once published."""
    _require_editor(by)
    if not what:
        return
    with transaction.atomic():
        locked = _locked_run(run)
        _require_reason(locked.round, reason)
        if locked.round.is_published:
            _log(round=locked.round, run=locked, who=by, why=reason.strip(),
                 what=f"Run {locked.key}: {'; '.join(what)}")
        _preview_restart(locked.round)
        snapshots_mark_stale(round_ids=[locked.round_id])


def verdict_delete(*, verdict: Verdict, by) -> None:
    """An editor removes a verdict of an unpublished round (a mistaken entry); the run's outcome is
    recomputed. A published verdict is never deleted: it is corrected with a reason (`verdict_change`)."""
    _require_editor(by)
    with transaction.atomic():
        run = _locked_run(verdict.run)
        if run.round.is_published:
            raise ValidationError(f"The {verdict.get_role_display()}'s verdict on {run.key} is published and is "
                                  "never deleted; correct it instead, with a reason.", code="published_verdict")
        Verdict.objects.filter(pk=verdict.pk).delete()
        _store_outcome(run)
        snapshots_mark_stale(round_ids=[run.round_id])


def _catalogue_change(obj: Any, *, by, changes: dict[str, Any], reason: str, rounds: list[Round],
                      label: str) -> list[str]:
    """Apply `changes` to `obj`; refuse without a reason when a round it is part of is published; log the
    change in each published round; mark every round it touches stale. Returns what changed."""
    described = []
    for name, value in changes.items():
        old = getattr(obj, name)
        if old != value:
            described.append(f"{obj._meta.get_field(name).verbose_name} {_show(old)} -> {_show(value)}")
            setattr(obj, name, value)
    if not described:
        return []
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    if published and not (reason or "").strip():
        raise ValidationError({"reason": "A round this is part of is published: say why (the reason goes into its "
                                         "public changelog)."}, code="reason_required")
    obj.save()
    for rnd in published:
        _log(round=rnd, run=None, who=by, why=reason.strip(), what=f"{label}: {'; '.join(described)}")
    snapshots_mark_stale(round_ids=[r.id for r in rounds],
                         benchmark_ids={r.benchmark_id for r in rounds})
    return described


def agent_update(*, agent: Agent, by, changes: dict[str, Any], reason: str = "") -> Agent:
    """An editor changes an agent (its name is on every board it is entered in)."""
    _require_editor(by)
    with transaction.atomic():
        locked = Agent.objects.select_for_update().get(pk=agent.pk)
        rounds = list(Round.objects.filter(entries__agent=locked).distinct())
        _catalogue_change(locked, by=by, changes=changes, reason=reason, rounds=rounds, label=f"Agent {locked.slug}")
    return locked


def round_update(*, round: Round, by, changes: dict[str, Any], reason: str = "") -> Round:
    """An editor changes a round's own fields (name, dates, task set, ...): logged once it is published."""
    _require_editor(by)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round.pk)
        _catalogue_change(locked, by=by, changes=changes, reason=reason, rounds=[locked], label=f"Round {locked.key}")
    return locked


def round_details_changed(*, round: Round, by, what: list[str], reason: str = "") -> None:
    """A round's entries or parameter values were edited (admin inlines): recompute, and log it once the round
    is published (a reason is then required)."""
    _require_editor(by)
    if not what:
        return
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round.pk)
        _require_reason(locked, reason)
        if locked.is_published:
            _log(round=locked, run=None, who=by, why=reason.strip(), what=f"Round {locked.key}: {'; '.join(what)}")
        snapshots_mark_stale(round_ids=[locked.id], benchmark_ids=[locked.benchmark_id])


def round_parameter_save(*, parameter: RoundParameter, by, reason: str = "") -> RoundParameter:
    """An editor sets a round's parameter value; once the round is published (its values are public) the
    change needs a reason and is logged."""
    _require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=parameter.round_id)
        _require_reason(rnd, reason)
        created = parameter.pk is None
        parameter.save()
        if rnd.is_published:
            _log(round=rnd, run=None, who=by, why=reason.strip(),
                 what=f"Parameter {parameter.task.key}.{parameter.name} {'added' if created else 'set'}: "
                      f"{parameter.value}")
        snapshots_mark_stale(round_ids=[rnd.id])
    return parameter


def round_parameter_delete(*, parameter: RoundParameter, by) -> None:
    """A parameter of an unpublished round may be removed; a published one is public and stays."""
    _require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=parameter.round_id)
        if rnd.is_published:
            raise ValidationError(f"{rnd} is published: its parameter values are public and are never deleted; "
                                  "correct the value instead, with a reason.", code="published_parameter")
        RoundParameter.objects.filter(pk=parameter.pk).delete()
        snapshots_mark_stale(round_ids=[rnd.id])


def benchmark_update(*, benchmark: Benchmark, by, changes: dict[str, Any], reason: str = "") -> Benchmark:
    """An editor changes a benchmark (its parameters, e.g. the pass threshold, feed every board)."""
    _require_editor(by)
    with transaction.atomic():
        locked = Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        if "methodology" in changes and changes["methodology"] != locked.methodology and \
                Round.objects.filter(benchmark=locked).exclude(status=RoundStatus.DRAFT).exists():
            raise ValidationError({"methodology": "A benchmark with rounds out never changes its methodology."})
        rounds = list(Round.objects.filter(benchmark=locked))
        _catalogue_change(locked, by=by, changes=changes, reason=reason, rounds=rounds,
                          label=f"Benchmark {locked.slug}")
    return locked


def task_delete(*, task: Task, by) -> None:
    """A task with runs is never deleted (its runs are results); one without runs may be, while no round of
    its benchmark is published (a published task set only grows: §9)."""
    _require_editor(by)
    with transaction.atomic():
        if Run.objects.filter(task=task).exists():
            raise ValidationError(f"Task {task.key} has runs and is never deleted.", code="task_has_runs")
        if Round.objects.filter(benchmark=task.benchmark_id, status=RoundStatus.PUBLISHED).exists():
            raise ValidationError(f"A round of {task.benchmark} is published: its task set is never shrunk.",
                                  code="published_task_set")
        bench_id = task.benchmark_id
        task.delete()
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=bench_id).values_list("id", flat=True))


def task_version_delete(*, version: TaskVersion, by) -> None:
    """Only an unpublished version that is not the task's current one and has no runs may be deleted."""
    _require_editor(by)
    with transaction.atomic():
        if version.published_at is not None or version.version == version.task.version or \
                Run.objects.filter(task=version.task, task_version=version.version).exists():
            raise ValidationError(f"{version} is published, current or has runs: it is never deleted.",
                                  code="version_in_use")
        version.delete()


def _show(value: Any) -> str:
    if value is None or value == "":
        return "none"
    if hasattr(value, "pk"):
        return str(value)
    return str(value)


# --- disputes and re-runs ---------------------------------------------------------------------------------------

def dispute_file(*, run: Run, user, reason: str, note: str) -> Dispute:
    """A vendor's user disputes a fact about one of their own agents' runs, while the round is in preview
    (seed 000 §6: "wrong version, wrong plan, environment problem")."""
    org = vendor_organization(user)
    if org is None or run.entry.agent.organization_id != org.id:
        raise PermissionDenied("Only the agent's vendor may dispute this run.")
    if run.round.status != RoundStatus.PREVIEW:
        raise ValidationError("Disputes can be filed only while the round is in preview.", code="not_preview")
    if reason not in DisputeReason.values:
        raise ValidationError({"reason": "Choose a reason."})
    if not (note or "").strip():
        raise ValidationError({"note": "Say what is wrong."})
    with transaction.atomic():
        Run.objects.select_for_update().filter(pk=run.pk).first()
        if Dispute.objects.filter(run=run, status=DisputeStatus.OPEN).exists():
            raise ValidationError("This run already has an open dispute.", code="already_open")
        return Dispute.objects.create(run=run, reason=reason, note=note.strip(), filed_by=user)


def dispute_decide(*, dispute: Dispute, accept: bool, by, note: str = "", now: datetime | None = None) -> Dispute:
    """An editor accepts or rejects an open dispute. An accepted dispute allows one re-run (`rerun_create`)."""
    _require_editor(by)
    with transaction.atomic():
        dispute = Dispute.objects.select_for_update().get(pk=dispute.pk)
        if dispute.status != DisputeStatus.OPEN:
            raise ValidationError(f"This dispute was already {dispute.status}.", code="decided")
        dispute.status = DisputeStatus.ACCEPTED if accept else DisputeStatus.REJECTED
        dispute.decided_by = by
        dispute.decided_at = now or timezone.now()
        if note:
            dispute.decision_note = note.strip()
        dispute.save()
    return dispute


def rerun_create(*, run: Run, by, key: str | None = None) -> Run:
    """Create the one re-run an accepted dispute allows (seed 000 §6: "A disputed run may be re-run once.
    Both runs are published and the re-run counts"). Never a re-run of a re-run (also a database guard).
    The re-run starts in review: it is completed by the tester and reviewed like any run."""
    _require_editor(by)
    with transaction.atomic():
        run = _locked_run(run)
        if run.rerun_of_id is not None:
            raise ValidationError(f"Run {run.key} is itself a re-run; a re-run is never re-run.", code="rerun_of_rerun")
        if Run.objects.filter(rerun_of=run).exists():
            raise ValidationError(f"Run {run.key} already has its re-run; a run is re-run once.", code="rerun_exists")
        if not Dispute.objects.filter(run=run, status=DisputeStatus.ACCEPTED).exists():
            raise ValidationError(f"Run {run.key} has no accepted dispute; only an accepted dispute allows a re-run.",
                                  code="no_accepted_dispute")
        key = key or f"{run.key}-rerun"
        rerun = Run.objects.create(key=key, round=run.round, entry=run.entry, task=run.task,
                                   task_version=run.task_version, trial=run.trial, language=run.language,
                                   rerun_of=run)
        if run.round.is_published:
            _log(round=run.round, run=rerun, who=by, why="An accepted dispute.",
                 what=f"Run {run.key} re-run as {rerun.key}; the re-run counts once it has results.")
        _preview_restart(run.round)  # the window waits for the re-run's results
        snapshots_mark_stale(round_ids=[run.round_id])
    return rerun


# --- rounds -----------------------------------------------------------------------------------------------------

def round_enter_preview(*, round: Round, by, now: datetime | None = None) -> Round:
    """draft -> preview: vendors see their decided results and may dispute them (seed 000 §6). The
    PREVIEW_HOURS window starts only once every run of the round is decided, and restarts whenever a result
    changes during it (`_preview_restart`)."""
    _require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=round.pk)
        if rnd.status != RoundStatus.DRAFT:
            raise ValidationError(f"{rnd} is {rnd.status}; only a draft round enters preview.", code="not_draft")
        rnd.status = RoundStatus.PREVIEW
        # The window starts now only if every run is decided; otherwise when the last one is (_store_outcome).
        rnd.preview_started_at = None if _undecided(rnd) else (now or timezone.now())
        rnd.save(update_fields=["status", "preview_started_at"])
        snapshots_mark_stale(round_ids=[rnd.id])
    return rnd


def preview_ends_at(round: Round) -> datetime | None:
    if round.preview_started_at is None:
        return None
    return round.preview_started_at + timedelta(hours=settings.PREVIEW_HOURS)


def pending_reruns(round: Round) -> list[Run]:
    """Re-runs of `round` with no results yet (scoring.common.has_results): they do not count yet, and the
    round waits for them."""
    reruns = (Run.objects.filter(round=round, rerun_of__isnull=False).select_related("task")
              .prefetch_related("verdicts").order_by("key"))
    return [r for r in reruns if not has_results(run_input(r, with_verdicts=True))]


def _undecided(round: Round) -> list[str]:
    """Why the results of `round` are not final yet: runs in review, re-runs without results."""
    problems = []
    in_review = runs_in_review(round.id)
    if in_review:
        listed = ", ".join(f"{r.key} ({review_stage(r).label})" for r in in_review[:20])
        more = f" and {len(in_review) - 20} more" if len(in_review) > 20 else ""
        problems.append(f"{len(in_review)} run{'s are' if len(in_review) != 1 else ' is'} still in review: "
                        f"{listed}{more}.")
    pending = [r for r in pending_reruns(round) if r not in in_review]
    if pending:
        problems.append(f"{len(pending)} re-run{'s have' if len(pending) != 1 else ' has'} no results yet: "
                        + ", ".join(r.key for r in pending) + ".")
    return problems


def round_publish_problems(round: Round, now: datetime | None = None) -> list[str]:
    """Why `round` cannot be published now (empty: it can)."""
    now = now or timezone.now()
    if round.status == RoundStatus.PUBLISHED:
        return [f"{round} is already published."]
    if round.status != RoundStatus.PREVIEW:
        return [f"{round} is a draft: it enters the vendor preview first ({settings.PREVIEW_HOURS} hours)."]
    problems = []
    ends = preview_ends_at(round)
    if ends is None:
        problems.append(f"The vendor preview of {round} has not started: its {settings.PREVIEW_HOURS} hours start "
                        "once every run is decided.")
    elif now < ends:
        problems.append(f"The vendor preview of {round} runs until {_when(ends)}; it cannot be published before.")
    problems += _undecided(round)
    open_disputes = list(Dispute.objects.filter(run__round=round, status=DisputeStatus.OPEN)
                         .select_related("run").order_by("filed_at"))
    if open_disputes:
        problems.append(f"{len(open_disputes)} dispute{'s are' if len(open_disputes) != 1 else ' is'} still open: "
                        + ", ".join(f"{d.get_reason_display()} on {d.run.key}" for d in open_disputes) + ".")
    return problems


def round_publish(*, round: Round, by, now: datetime | None = None) -> Round:
    """preview -> published. Refused (with the reasons) before the preview window has passed, while a run is
    in review or a dispute is open. Publishing makes the round's results, verdicts and parameter values
    public, and freezes the wording of the task versions its runs used."""
    _require_editor(by)
    now = now or timezone.now()
    with transaction.atomic():
        rnd = Round.objects.select_for_update().select_related("benchmark").get(pk=round.pk)
        problems = round_publish_problems(rnd, now)
        if problems:
            raise ValidationError(problems, code="cannot_publish")
        rnd.status = RoundStatus.PUBLISHED
        rnd.published_at = now
        rnd.save(update_fields=["status", "published_at"])
        used = set(Run.objects.filter(round=rnd).values_list("task_id", "task_version"))
        for task_id, version in used:
            TaskVersion.objects.filter(task_id=task_id, version=version, published_at__isnull=True).update(
                published_at=now)
        rnd.task_set_freeze()
        # Its agents may become public now, and with them their votes: the public ratings refit.
        snapshots_mark_stale(round_ids=[rnd.id], benchmark_ids=[rnd.benchmark_id])
    return rnd


# --- task versions ----------------------------------------------------------------------------------------------

def next_version(current: str, *, is_major: bool) -> str:
    parts = [int(p) for p in current.split(".") if p.isdigit()] or [1, 0]
    if is_major:
        return f"{parts[0] + 1}.0"
    minor = parts[1] if len(parts) > 1 else 0
    return f"{parts[0]}.{minor + 1}"


def task_version_create(*, task: Task, by, prompt: str, criteria: dict, parameters: list | None = None,
                        interruption: str | None = None, evidence: list | None = None,
                        observes_later_effects: bool | None = None, change_note: str = "") -> TaskVersion:
    """A new version of a task's wording (seed 000 §9). A changed prompt or criterion is a major change
    (1.x -> 2.0): results under the old version stay as they were and are marked stale. Anything else is a
    minor change (1.0 -> 1.1) that adds. The task's current version moves to the new one."""
    _require_editor(by)
    with transaction.atomic():
        task = Task.objects.select_for_update().select_related("benchmark").get(pk=task.pk)
        current = task.current_version
        if current is None:
            version, is_major = task.version, False
            base: dict[str, Any] = {"parameters": [], "interruption": "", "evidence": [],
                                    "observes_later_effects": False}
        else:
            is_major = prompt != current.prompt or (criteria or {}) != (current.criteria or {})
            version = next_version(task.version, is_major=is_major)
            base = {"parameters": current.parameters, "interruption": current.interruption,
                    "evidence": current.evidence, "observes_later_effects": current.observes_later_effects}
            while TaskVersion.objects.filter(task=task, version=version).exists():
                version = next_version(version, is_major=is_major)
        new = TaskVersion.objects.create(
            task=task, version=version, prompt=prompt, criteria=criteria or {},
            parameters=base["parameters"] if parameters is None else parameters,
            interruption=base["interruption"] if interruption is None else interruption,
            evidence=base["evidence"] if evidence is None else evidence,
            observes_later_effects=(base["observes_later_effects"] if observes_later_effects is None
                                    else observes_later_effects),
            change_note=change_note)
        old = task.version
        task.version = version
        task.save(update_fields=["version"])
        round_ids = list(Round.objects.filter(benchmark=task.benchmark_id).values_list("id", flat=True))
        if current is not None and major(version) > major(old):
            for rnd in Round.objects.filter(runs__task=task, status=RoundStatus.PUBLISHED).distinct():
                _log(round=rnd, run=None, who=by, why=change_note or "A prompt or criterion changed.",
                     what=f"Task {task.key} is now v{version}; results under v{old} stay as they were and are "
                          "marked stale.")
        snapshots_mark_stale(round_ids=round_ids)
    return new


def task_version_update(*, version: TaskVersion, by, **fields: Any) -> TaskVersion:
    """Edit a task version in place: allowed only while it is unpublished for the wording (prompt, criteria,
    parameters, interruption); a published version's wording is never edited (a change is a new version)."""
    _require_editor(by)
    with transaction.atomic():
        version = TaskVersion.objects.select_for_update().get(pk=version.pk)
        if version.published_at is not None:
            frozen = [f for f in FROZEN_VERSION_FIELDS if f in fields and fields[f] != getattr(version, f)]
            if frozen:
                raise ValidationError(
                    f"{version} is published: its {', '.join(frozen)} are never edited in place; create a new "
                    "version instead.", code="published_version")
            if "published_at" in fields and fields["published_at"] is None:
                raise ValidationError(f"{version} is published and stays published.", code="published_version")
        for name, value in fields.items():
            setattr(version, name, value)
        version.save()
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=version.task.benchmark_id)
                             .values_list("id", flat=True))
    return version


def task_version_publish(*, version: TaskVersion, by, now: datetime | None = None) -> TaskVersion:
    """Publish a task's prompt and pass checklist (possible before any run, e.g. seed 004's trip plan);
    from then on its wording is frozen."""
    _require_editor(by)
    TaskVersion.objects.filter(pk=version.pk, published_at__isnull=True).update(published_at=now or timezone.now())
    version.refresh_from_db()
    return version


# --- tasks --------------------------------------------------------------------------------------------------------

TASK_FIELDS = ("title", "kind", "dimensions", "domain", "difficulty", "evaluation", "time_limit_min", "token_budget",
               "human_minutes", "tags", "position")


def task_create(*, benchmark: Benchmark, by, key: str, reason: str = "", **fields: Any) -> Task:
    """Add a task to a benchmark's task set. Seed 000 §9: "Adding tasks is a minor version change (v1.1)":
    the task set moves to the next minor version when its current version is already out (a round that left
    draft was run on it); tasks added before the next round is out join that same new version. A published
    round's boards can change with the task set (coverage, a to-spec task without runs counts 0), so each
    published round gets a changelog entry and every round of the benchmark is recomputed."""
    _require_editor(by)
    unknown = set(fields) - set(TASK_FIELDS) - {"version"}
    if unknown:
        raise ValueError(f"not task fields: {sorted(unknown)}")
    with transaction.atomic():
        bench = Benchmark.objects.select_for_update().get(pk=benchmark.pk)
        old = bench.task_set_version or "1.0"
        out = Round.objects.filter(benchmark=bench, task_set_version=old).exclude(status=RoundStatus.DRAFT)
        new = next_version(old, is_major=False) if out.exists() else old
        if new != old:
            bench.task_set_version = new
            bench.save(update_fields=["task_set_version"])
        task = Task.objects.create(benchmark=bench, key=key, **fields)
        for rnd in Round.objects.filter(benchmark=bench, status=RoundStatus.PUBLISHED):
            _log(round=rnd, run=None, who=by, why=reason.strip() or "A task was added to the task set.",
                 what=f"Task {key} added; the task set is v{new}" + (f" (was v{old})" if new != old else ""))
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=bench).values_list("id", flat=True))
    return task


def task_update(*, task: Task, by, changes: dict[str, Any], reason: str = "") -> Task:
    """An editor changes a task's attributes (title, kind, dimensions, limits...). Its wording changes only
    through a new version (`task_version_create`). Once a round of its benchmark is published the reason is
    required, each published round gets a changelog entry, and every round of the benchmark is recomputed."""
    _require_editor(by)
    with transaction.atomic():
        locked = Task.objects.select_for_update().get(pk=task.pk)
        described = []
        for name, value in changes.items():
            if name not in TASK_FIELDS:
                raise ValidationError(f"A task's {name} is not edited here.", code="not_editable")
            old = getattr(locked, name)
            if old != value:
                described.append(f"{locked._meta.get_field(name).verbose_name} {_show(old)} -> {_show(value)}")
                setattr(locked, name, value)
        if not described:
            return locked
        published = list(Round.objects.filter(benchmark=locked.benchmark_id, status=RoundStatus.PUBLISHED))
        if published and not (reason or "").strip():
            raise ValidationError({"reason": "A round of this benchmark is published: say why (the reason goes "
                                             "into its public changelog)."}, code="reason_required")
        locked.save()
        for rnd in published:
            _log(round=rnd, run=None, who=by, why=reason.strip(), what=f"Task {locked.key}: {'; '.join(described)}")
        snapshots_mark_stale(round_ids=Round.objects.filter(benchmark=locked.benchmark_id)
                             .values_list("id", flat=True))
    return locked
