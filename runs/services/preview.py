"""The vendor preview: its window, and what keeps a round's results from being final."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from leaderboard.models import Round, RoundStatus
from scoring.common import has_results

from ..inputs import run_input
from ..models import Run
from ..selectors import review_label, review_stage, runs_in_review


def preview_ends_at(round: Round) -> datetime | None:
    """When the vendor window of `round` ends: its benchmark's `preview_hours` after it started."""
    if round.preview_started_at is None:
        return None
    return round.preview_started_at + timedelta(hours=round.benchmark.preview_hours)


def pending_reruns(round: Round) -> list[Run]:
    """Re-runs of `round` with no results yet (scoring.common.has_results): they do not count yet, and the
    round waits for them."""
    reruns = (
        Run.objects.filter(round=round, rerun_of__isnull=False)
        .select_related("task")
        .prefetch_related("verdicts")
        .order_by("key")
    )
    double_review = round.benchmark.rules.double_review
    return [r for r in reruns if not has_results(run_input(r, with_verdicts=True), double_review=double_review)]


def undecided(round: Round, viewer=None) -> list[str]:
    """Why the results of `round` are not final yet: runs in review, re-runs without results. Told to `viewer`,
    each run's stage is named as they may read it (runs.selectors.review_label: a reviewer of a run never learns
    from it whether the other reviewer agreed); without one, in full."""
    problems = []
    in_review = runs_in_review(round.id)
    if in_review:
        stage = (lambda r: review_stage(r).label) if viewer is None else (lambda r: review_label(viewer, r))
        listed = ", ".join(f"{r.key} ({stage(r)})" for r in in_review[:20])
        more = f" and {len(in_review) - 20} more" if len(in_review) > 20 else ""
        problems.append(
            f"{len(in_review)} run{'s are' if len(in_review) != 1 else ' is'} still in review: {listed}{more}."
        )
    pending = [r for r in pending_reruns(round) if r not in in_review]
    if pending:
        problems.append(
            f"{len(pending)} re-run{'s have' if len(pending) != 1 else ' has'} no results yet: "
            + ", ".join(r.key for r in pending)
            + "."
        )
    return problems


def preview_restart(round: Round, now: datetime | None = None) -> None:
    """A result that changes during the vendor preview restarts its 48 hours, and the window runs only while
    every run is decided: vendors get the whole window with the results as they will be published (seed 000
    §6 "Vendors receive their results 48 hours before publication")."""
    if round.status == RoundStatus.PREVIEW:
        started = None if undecided(round) else (now or timezone.now())
        Round.objects.filter(pk=round.pk, status=RoundStatus.PREVIEW).update(preview_started_at=started)
        round.preview_started_at = started
