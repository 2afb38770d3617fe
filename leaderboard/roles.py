"""Who a person is to the site: their roles, by their groups (`leaderboard.groups`), and their organization (by
their membership): the one reading every check of a role or of an organization's own uses (the services, the
admin, the pages, the vote draw, the review rules in `runs.selectors`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import ObjectDoesNotExist

from .groups import EDITORS, REVIEWERS, TESTERS

if TYPE_CHECKING:
    from .models import Membership, Organization


def _membership(user) -> Membership | None:
    if not getattr(user, "is_authenticated", False):
        return None
    try:
        return user.membership  # kept on the user once read
    except ObjectDoesNotExist:
        return None


def user_organization(user) -> Organization | None:
    """The organization the account is a member of, or None (anonymous, or a member of none)."""
    membership = _membership(user)
    return membership.organization if membership is not None else None


def user_organization_id(user) -> int | None:
    """`user_organization`'s id, read without the organization's row."""
    membership = _membership(user)
    return membership.organization_id if membership is not None else None


def user_groups(user) -> set[str]:
    """The names of the user's groups (none for an anonymous visitor), read once per request's user."""
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_review_groups", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        user._review_groups = cached
    return cached


def user_is_editor(user) -> bool:
    return bool(getattr(user, "is_superuser", False)) or EDITORS in user_groups(user)


def changelog_role(user) -> str:
    """The role a changelog entry names its author by: editor, reviewer, tester, or none."""
    if user_is_editor(user):
        return "editor"
    groups = user_groups(user)
    if REVIEWERS in groups:
        return "reviewer"
    if TESTERS in groups:
        return "tester"
    return ""
