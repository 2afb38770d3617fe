"""Disputes, re-runs and a round's way to publication: draft -> preview -> published (seed 000 §6)."""

from __future__ import annotations

import copy
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from leaderboard.models import Round, RoundStatus, TaskVersion
from leaderboard.roles import user_organization
from leaderboard.services.changes import changelog_add, require_editor
from leaderboard.stale import snapshots_mark_stale
from scoring.round_rules import breaches_added, refusal_lines

from ..models import Dispute, DisputeReason, DisputeStatus, Run
from ._common import locked_run, when
from .preview import preview_ends_at, preview_restart, undecided
from .round_rules import RoundRulesBroken, form_refusal, rerun_once_breaches, round_rules_kept, would_hold


def dispute_file(*, run: Run, user, reason: str, note: str) -> Dispute:
    """A vendor's user disputes a fact about one of their own agents' runs, while the round is in preview
    (seed 000 §6: "wrong version, wrong plan, environment problem")."""
    org = user_organization(user)
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
        with round_rules_kept([run.round_id]):
            return Dispute.objects.create(run=run, reason=reason, note=note.strip(), filed_by=user)


def dispute_decide(*, dispute: Dispute, accept: bool, by, note: str = "", now: datetime | None = None) -> Dispute:
    """An editor accepts or rejects an open dispute. An accepted dispute allows one re-run (`rerun_create`)."""
    require_editor(by)
    with transaction.atomic():
        dispute = Dispute.objects.select_for_update().get(pk=dispute.pk)
        if dispute.status != DisputeStatus.OPEN:
            raise ValidationError(f"This dispute was already {dispute.status}.", code="decided")
        dispute.status = DisputeStatus.ACCEPTED if accept else DisputeStatus.REJECTED
        dispute.decided_by = by
        dispute.decided_at = now or timezone.now()
        if note:
            dispute.decision_note = note.strip()
        with round_rules_kept([dispute.run.round_id]):
            dispute.save()
    return dispute


def rerun_needs_start(run: Run) -> bool:
    """Whether the re-run of `run` must state when it started: in a round whose methodology runs its table in one
    week (004: "The agents in one table are run in the same week"), its week is checked against that time
    (`scoring.round_rules`, the same-week rule)."""
    return run.round.benchmark.rules.same_week


def _rerun_of(run: Run, key: str | None, started_at: datetime | None) -> Run:
    """The re-run of `run` as it is created: empty (it counts once it has results), in the disputed run's place
    (its round, entry, task and version, trial and language)."""
    return Run(
        key=key or f"{run.key}-rerun",
        round=run.round,
        entry=run.entry,
        task=run.task,
        task_version=run.task_version,
        trial=run.trial,
        language=run.language,
        rerun_of=run,
        started_at=started_at,
    )


def rerun_refusal(
    *, run: Run, started_at: datetime | None = None, key: str | None = None, week: bool = True
) -> list[str]:
    """What `rerun_create` would refuse of the re-run of `run` started at `started_at`, in words, before anything
    is written (empty: nothing): a re-run of a re-run, and the round rules asked of the round with the re-run in
    it (no accepted dispute, a second re-run, and, unless `week` is False, a start outside a weekly round's week
    or none: what an editor asked for the start time is told before being asked)."""
    if run.rerun_of_id is not None:
        return [f"Run {run.key} is itself a re-run; a re-run is never re-run."]
    breaches = breaches_added(*would_hold(run.round, runs=[_rerun_of(run, key, started_at)]))
    return refusal_lines([b for b in breaches if week or b.rule != "same_week"])


def rerun_create(*, run: Run, by, key: str | None = None, started_at: datetime | None = None) -> Run:
    """Create the one re-run an accepted dispute allows (seed 000 §6: "A disputed run may be re-run once.
    Both runs are published and the re-run counts"). Never a re-run of a re-run (also a database guard).
    The re-run starts in review: it is completed by the tester and reviewed like any run. In a weekly round
    (`rerun_needs_start`) the editor states when it started, and the round rules check it is in the round's
    week."""
    require_editor(by)
    with transaction.atomic():
        run = locked_run(run)
        if run.rerun_of_id is not None:
            raise ValidationError(f"Run {run.key} is itself a re-run; a re-run is never re-run.", code="rerun_of_rerun")
        rerun = _rerun_of(run, key, started_at)
        # The round rules: once per run (asked first: the database would refuse a second with an error), and only
        # after a dispute an editor accepted (asked of the round with the re-run in it), started in a weekly
        # round's week.
        once = rerun_once_breaches(run.round, {rerun.key: run.key}, new=True)
        if once:
            raise RoundRulesBroken(once)
        with round_rules_kept([run.round_id]):
            rerun.save(force_insert=True)
        if run.round.is_published:
            changelog_add(
                round=run.round,
                run=rerun,
                who=by,
                why="An accepted dispute.",
                what=f"Run {run.key} re-run as {rerun.key}; the re-run counts once it has results.",
            )
        preview_restart(run.round)  # the window waits for the re-run's results
        snapshots_mark_stale(round_ids=[run.round_id])
    return rerun


def round_enter_preview(*, round: Round, by, now: datetime | None = None) -> Round:
    """draft -> preview: vendors see their decided results and may dispute them (seed 000 §6). The
    benchmark's `preview_hours` window starts only once every run of the round is decided, and restarts
    whenever a result changes during it (`preview_restart`)."""
    require_editor(by)
    with transaction.atomic():
        rnd = Round.objects.select_for_update().get(pk=round.pk)
        if rnd.status != RoundStatus.DRAFT:
            raise ValidationError(f"{rnd} is {rnd.status}; only a draft round enters preview.", code="not_draft")
        rnd.status = RoundStatus.PREVIEW
        # The window starts now only if every run is decided; otherwise when the last one is (store_outcome).
        rnd.preview_started_at = None if undecided(rnd) else (now or timezone.now())
        with round_rules_kept([rnd.id]):
            rnd.save(update_fields=["status", "preview_started_at"])
        snapshots_mark_stale(round_ids=[rnd.id])
    return rnd


def round_publish_problems(round: Round, now: datetime | None = None, viewer=None) -> list[str]:
    """Why `round` cannot be published now (empty: it can), in the words `viewer` may read (`undecided`)."""
    now = now or timezone.now()
    if round.status == RoundStatus.PUBLISHED:
        return [f"{round} is already published."]
    hours = round.benchmark.preview_hours
    if round.status != RoundStatus.PREVIEW and hours:
        return [f"{round} is a draft: it enters the vendor preview first ({hours} hours)."]
    problems = []
    # A benchmark without a vendor window (preview_hours 0) publishes straight from draft, once decided.
    ends = preview_ends_at(round) if hours else None
    if ends is None and hours:
        problems.append(
            f"The vendor preview of {round} has not started: its {hours} hours start once every run is decided."
        )
    else:
        # The round rules asked of the round as it would be published now (the vendor window among them).
        problems += _publish_refusal(round, now)
        if ends is not None and now < ends:
            problems.append(f"The vendor preview of {round} runs until {when(ends)}; it cannot be published before.")
    problems += undecided(round, viewer)
    open_disputes = list(
        Dispute.objects.filter(run__round=round, status=DisputeStatus.OPEN).select_related("run").order_by("filed_at")
    )
    if open_disputes:
        problems.append(
            f"{len(open_disputes)} dispute{'s are' if len(open_disputes) != 1 else ' is'} still open: "
            + ", ".join(f"{d.get_reason_display()} on {d.run.key}" for d in open_disputes)
            + "."
        )
    return problems


def _publish_refusal(rnd: Round, now: datetime) -> list[str]:
    """What the round rules would refuse of `rnd` published at `now` (`runs.services.round_rules`)."""
    published = copy.copy(rnd)
    published.status, published.published_at = RoundStatus.PUBLISHED, now
    return form_refusal(published)


def round_publish(*, round: Round, by, now: datetime | None = None) -> Round:
    """preview -> published (draft -> published where the benchmark has no vendor window). Refused (with
    the reasons) before the preview window has passed, while a run is in review or a dispute is open.
    Publishing makes the round's results, verdicts and parameter values public, and freezes the wording of
    the task versions its runs used."""
    require_editor(by)
    now = now or timezone.now()
    with transaction.atomic():
        rnd = Round.objects.select_for_update().select_related("benchmark").get(pk=round.pk)
        problems = round_publish_problems(rnd, now, viewer=by)
        if problems:
            raise ValidationError(problems, code="cannot_publish")
        rnd.status = RoundStatus.PUBLISHED
        rnd.published_at = now
        with round_rules_kept([rnd.id]):
            rnd.save(update_fields=["status", "published_at"])
        used = set(Run.objects.filter(round=rnd).values_list("task_id", "task_version"))
        for task_id, version in used:
            TaskVersion.objects.filter(task_id=task_id, version=version, published_at__isnull=True).update(
                published_at=now
            )
        rnd.task_set_freeze()
        # Its agents may become public now, and with them their votes: the public ratings refit.
        snapshots_mark_stale(round_ids=[rnd.id], benchmark_ids=[rnd.benchmark_id])
    return rnd
