"""The rules every catalogue and run write shares: the editor check, the reason a published round asks for,
its changelog, and how a change is described there."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from ..models import ChangelogEntry, Round
from ..roles import changelog_role, user_is_editor

ROUND_PUBLISHED = "The round is published: say why (the reason goes into its public changelog)."
PART_OF_PUBLISHED = "A round this is part of is published: say why (the reason goes into its public changelog)."
BENCHMARK_PUBLISHED = "A round of this benchmark is published: say why (the reason goes into its public changelog)."


def require_editor(user) -> None:
    if not user_is_editor(user):
        raise PermissionDenied("Only editors may do this.")


def changelog_add(*, round: Round, run: Any | None, what: str, why: str, who) -> ChangelogEntry:
    """A line of the round's public changelog: what changed, why, by whom (named by role) and when."""
    return ChangelogEntry.objects.create(
        round=round, run=run, what=what, why=why, who=who, who_role=changelog_role(who), created_at=timezone.now()
    )


def reason_given(reason: str | None) -> bool:
    """A reason counts once it has something besides white space."""
    return bool((reason or "").strip())


def require_reason(reason: str | None, *, published: bool, message: str = ROUND_PUBLISHED) -> None:
    """A change that reaches a published round needs a reason (it goes into the round's public changelog).
    The one rule: the services call it before they write, and the admin forms call it in `clean()` so the
    editor is asked before anything is written (`runs.admin.ask_reason`)."""
    if published and not reason_given(reason):
        raise ValidationError({"reason": message}, code="reason_required")


def _show(value: Any) -> str:
    return "none" if value is None or value == "" else str(value)


def changes_apply(obj: Any, changes: dict[str, Any]) -> list[str]:
    """Set each field of `obj` that `changes` gives a new value (the caller saves), and describe each change
    for the changelog: "<field> <old> -> <new>"."""
    described = []
    for name, value in changes.items():
        old = getattr(obj, name)
        if old != value:
            described.append(f"{obj._meta.get_field(name).verbose_name} {_show(old)} -> {_show(value)}")
            setattr(obj, name, value)
    return described
