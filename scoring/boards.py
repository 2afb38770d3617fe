"""Dispatch: the boards of one round, computed by its benchmark's methodology."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .checks import boards_with_votes, compute_checks_boards
from .outcomes import compute_outcomes_boards
from .scored import compute_scored_boards
from .types import RoundInput
from .weekly import compute_weekly_boards

COMPUTE: dict[str, Callable[[RoundInput], dict[str, Any]]] = {
    "outcomes": compute_outcomes_boards,
    "scored": compute_scored_boards,
    "checks": compute_checks_boards,
    "weekly": compute_weekly_boards,
}


def compute_boards(round_input: RoundInput) -> dict[str, Any]:
    """Every board of `round_input` by the methodology its benchmark publishes (DESIGN.md, "The bundle").

    outcomes: {"overall", "safety", "local-china", "local-global", "other-language"}; scored: {"overall",
    "meta"}; checks: {"overall", "tasks"}; weekly: {"overall"}.
    """
    try:
        compute = COMPUTE[round_input.methodology]
    except KeyError:
        raise ValueError(f"unknown methodology {round_input.methodology!r}") from None
    return compute(round_input)


# Boards that take the vote ratings into their order (checks: invent and startup tasks rank by votes).
WITH_VOTES: dict[str, Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]]] = {
    "checks": boards_with_votes,
}


def boards_as_shown(methodology: str, boards: dict[str, Any] | None, ratings: dict[str, Any] | None) -> dict[str, Any]:
    """A round's stored boards as the site shows them and `recount` prints them: with the vote ratings applied
    where the methodology ranks by votes. Boards snapshots hold the boards without votes, so a vote never
    recomputes a round; the ratings snapshot is joined here."""
    if not boards:
        return boards or {}
    join = WITH_VOTES.get(methodology)
    return join(boards, ratings) if join else boards
