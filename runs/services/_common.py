"""What the run service modules share: the reason a published round asks for, the changelog of a verdict,
the row lock on a run. (The editor check and the changelog itself are the catalogue's:
`leaderboard.services.changes`.)"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format

from leaderboard.models import Round
from leaderboard.services import changes
from leaderboard.services.changes import changelog_add

from ..models import Outcome, Run


def when(value: datetime) -> str:
    return date_format(timezone.localtime(value), "DATETIME_FORMAT")


def verdict_logged(
    *, run: Run, who, reason: str, what: str, before: str | None, after: str | None, action: str = "recorded"
) -> None:
    """Log a verdict added or changed (`action`) on a published run, with the run's final outcome when it moved.
    A verdict on a run that stays in review is not logged (the board did not move, and the line would tell a
    reviewer that another has judged); one that sends a counted run back to review says so, not what it says:
    the verdicts are published with the outcome (`scoring.review.verdicts_public`), so the review stays blind."""
    if not run.round.is_published:
        return
    if not after:
        if not before:
            # In review before and after: the board did not change, and a line now would tell a reviewer that
            # another has judged. The review is logged when it completes, with the outcome it gives.
            return
        what = (
            f"Run {run.key}: a verdict was {action}; the verdicts are published once its review is complete; "
            f"counted outcome: {before} -> in review"
        )
    elif before != after:
        what += f"; counted outcome: {before or 'in review'} -> {after or 'in review'}"
    changelog_add(round=run.round, run=run, who=who, why=reason.strip(), what=what)


def require_reason(round: Round, reason: str) -> None:
    """A change to a run of a published round needs a reason (`leaderboard.services.changes`, the one rule)."""
    changes.require_reason(reason, published=round.is_published)


def locked_run(run: Run) -> Run:
    # The row lock serialises verdicts on one run: without it a third verdict could be checked against a
    # second verdict that another request is replacing at the same moment.
    return (
        Run.objects.select_for_update(of=("self",))
        .select_related("round__benchmark", "task", "entry__agent")
        .get(pk=run.pk)
    )


def clean_matched(matched: Iterable[str]) -> list[str]:
    cleaned = []
    for m in matched or ():
        if m not in Outcome.values:
            raise ValidationError({"matched": f"Unknown outcome {m!r}."})
        if m not in cleaned:
            cleaned.append(m)
    return cleaned
