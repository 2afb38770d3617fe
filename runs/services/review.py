"""Verdicts and the outcome they give a run (seed 000 §3, §5): the blind double review's writes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from leaderboard.models import task_input
from leaderboard.stale import snapshots_mark_stale
from scoring.common import verdict_outcome
from scoring.review import verdicts_outcome
from scoring.types import VerdictInput

from ..models import Run, Verdict, VerdictRole
from ..selectors import is_reviewed, review_stage, user_verdict_roles
from ._common import clean_matched, locked_run, require_reason, verdict_logged
from .preview import preview_restart
from .round_rules import round_rules_kept
from .search import notes_index


def lowest_outcome(*, outcome: str | None = None, matched: Iterable[str] = ()) -> str | None:
    """Seed 000 §3: "If a run matches more than one row, the lowest outcome applies" (scoring's own order)."""
    return verdict_outcome(VerdictInput(role="tester", outcome=outcome or None, matched=tuple(matched)))


def run_final_outcome(*, run: Run) -> str:
    """The outcome the verdicts give a run ("" while it is in review; its own label when it has none), by the
    one rule the boards and the public pages use (`scoring.review.verdicts_outcome`)."""
    verdicts = list(Verdict.objects.filter(run=run))
    if not verdicts:
        return run.outcome
    return verdicts_outcome(run.round.benchmark.methodology, task_input(run.task), verdicts) or ""


def store_outcome(run: Run) -> tuple[str, str]:
    before = run.outcome
    after = run_final_outcome(run=run)
    if after != before:
        run.outcome = after
        run.save(update_fields=["outcome", "updated_at"])
        preview_restart(run.round)
    return before, after


def _require_verdict_allowed(*, run: Run, role: str, reviewer) -> None:
    """Refuse, with the reason, a verdict `reviewer` may not enter on the (locked) run in `role`. The tester's note
    and the due time are round rules (`scoring.round_rules`), asked of the run with the verdict recorded."""
    if role not in VerdictRole.values:
        raise ValidationError({"role": f"Unknown role {role!r}."})
    if role not in user_verdict_roles(reviewer):
        raise PermissionDenied(f"You may not enter the {VerdictRole(role).label}'s verdict.")
    if not is_reviewed(run):
        raise ValidationError("This run gets no reviewed outcome (its status or its benchmark's methodology).")
    existing = {v.role: v for v in Verdict.objects.filter(run=run)}
    # Their own verdict first: to someone who reviewed the run already, "this run already has a second
    # reviewer's verdict" would say whether the other reviewer has judged (blind review, runs.selectors).
    mine = [v for v in existing.values() if v.reviewer_id == reviewer.pk]
    if mine:
        raise ValidationError(
            {
                "role": f"You already reviewed this run as the {mine[0].get_role_display()}; "
                "a person reviews a run in one role only."
            },
            code="second_role",
        )
    if role in existing:
        raise ValidationError(
            {"role": f"This run already has a {VerdictRole(role).label}'s verdict."}, code="role_taken"
        )
    if role == VerdictRole.THIRD and not review_stage(run).disagree:
        raise ValidationError(
            {
                "role": "A third reviewer decides only when the tester and the second "
                "reviewer disagree (on the outcome the board counts)."
            },
            code="no_disagreement",
        )


def verdict_record(
    *,
    run: Run,
    role: str,
    reviewer,
    outcome: str | None = None,
    matched: Sequence[str] = (),
    note: str = "",
    reason: str = "",
    now: datetime | None = None,
) -> Verdict:
    """Record a new verdict on `run` in `role` by `reviewer`.

    Rules: testers enter the tester's verdict, reviewers the second and third; the third only when the tester
    and the second disagree; one verdict per role; one role per person on a run; nothing before the run's
    effects are due; the outcome is the lowest of the matched rows (and the chosen outcome).
    """
    now = now or timezone.now()
    with transaction.atomic():
        run = locked_run(run)
        _require_verdict_allowed(run=run, role=role, reviewer=reviewer)
        matched = clean_matched(matched)
        final = lowest_outcome(outcome=outcome, matched=matched)
        if final is None:
            raise ValidationError({"outcome": "Choose an outcome or the rows the run matched."})
        require_reason(run.round, reason)
        counted = run_final_outcome(run=run)  # what the board counted before (not a label it never read)
        with round_rules_kept([run.round_id]):
            verdict = Verdict.objects.create(
                run=run, role=role, reviewer=reviewer, outcome=final, matched=matched, note=note.strip(), created_at=now
            )
        _, after = store_outcome(run)
        what = f"Run {run.key}: {verdict.get_role_display()}'s verdict added ({final})"
        verdict_logged(run=run, who=reviewer, reason=reason, what=what, before=counted, after=after)
        notes_index([run.pk])
        snapshots_mark_stale(round_ids=[run.round_id])
    return verdict
