"""The rules every catalogue and run write shares: the editor check, the reason a published round asks for,
its changelog, and how a change is described there."""

from __future__ import annotations

from decimal import Decimal
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
    """A value as a reader writes it: 2.23, not 2.230000 (a stored decimal keeps its trailing zeros)."""
    if value is None or value == "":
        return "none"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _label(field) -> str:
    """A field's name in words: "cost (USD)", not "cost usd"."""
    return str(field.verbose_name).replace(" usd", " (USD)")


def changes_apply(obj: Any, changes: dict[str, Any]) -> list[str]:
    """Set each field of `obj` that `changes` gives a new value (the caller saves), and describe each change
    for the changelog in words: "<field>: <old> -> <new>" ("cost (USD): 2.23 -> 1.23")."""
    described = []
    for name, value in changes.items():
        old = getattr(obj, name)
        if old != value:
            described.append(f"{_label(obj._meta.get_field(name))}: {_show(old)} -> {_show(value)}")
            setattr(obj, name, value)
    return described
