"""Who a person is to the site, by their groups (`leaderboard.groups`): the one reading every check of a role
uses (the services, the admin, the review rules in `runs.selectors`)."""

from __future__ import annotations

from .groups import EDITORS, REVIEWERS, TESTERS


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
