"""What the service modules share: the editor check, the reason a published round asks for, its
changelog, the row lock on a run, and how a change is described."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone
from django.utils.formats import date_format

from leaderboard.models import ChangelogEntry, Round
from leaderboard.services import changes
from leaderboard.services.changes import changes_apply  # noqa: F401 - moving with the catalogue writes

from ..models import Outcome, Run, VerdictRole
from ..selectors import user_is_editor, user_verdict_roles


def when(value: datetime) -> str:
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


def require_editor(user) -> None:
    if not user_is_editor(user):
        raise PermissionDenied("Only editors may do this.")


def changelog_add(*, round: Round, run: Run | None, what: str, why: str, who) -> ChangelogEntry:
    return ChangelogEntry.objects.create(
        round=round, run=run, what=what, why=why, who=who, who_role=_role_of(who), created_at=timezone.now()
    )


def verdict_logged(*, run: Run, who, reason: str, what: str, before: str | None, after: str | None) -> None:
    """Log a verdict added or changed on a published run, with the run's final outcome when it moved."""
    if not run.round.is_published:
        return
    if before != after:
        what += f"; final outcome {before or 'in review'} -> {after or 'in review'}"
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
