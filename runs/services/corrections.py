"""Corrections by editors: runs and verdicts (the catalogue's own changes, agents to round parameters, are
`leaderboard.services.catalogue`). Once a round is published each change needs a reason and goes into its
public changelog; every change marks the boards it feeds stale."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from leaderboard.models import Round
from leaderboard.services.changes import changelog_add, changes_apply, require_editor
from leaderboard.stale import snapshots_mark_stale

from ..models import Run, Verdict
from ._common import (
    clean_matched,
    locked_run,
    require_reason,
    verdict_logged,
)
from .preview import preview_restart
from .review import lowest_outcome, run_final_outcome, store_outcome
from .round_rules import round_rules_kept
from .search import notes_index


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
        # In words a reader of the changelog follows: "tester verdict: partial -> pass".
        changes = []
        whose = f"{str(verdict.get_role_display()).lower()} verdict"
        if final != verdict.outcome:
            changes.append(f"{whose}: {verdict.outcome} -> {final}")
        if matched != list(verdict.matched or []):
            changes.append(
                f"{whose}, rows matched: {', '.join(verdict.matched or []) or 'none'} -> {', '.join(matched) or 'none'}"
            )
        if note is not None and note.strip() != verdict.note:
            changes.append(f"{whose}: note reworded")
            verdict.note = note.strip()
        if not changes:
            return verdict
        counted = run_final_outcome(run=run)  # what the board counted before (not a label it never read)
        verdict.outcome, verdict.matched = final, matched
        with round_rules_kept([run.round_id]):
            verdict.save()
        _, after = store_outcome(run)
        notes_index([run.pk])  # after the outcome: a run back in review has its notes withdrawn
        what = f"Run {run.key}: {'; '.join(changes)}"
        verdict_logged(run=run, who=by, reason=reason, what=what, before=counted, after=after, action="corrected")
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
        notes_index([run.pk])
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
        with round_rules_kept([locked.round_id]):
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
        with round_rules_kept([rnd.id]):
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
