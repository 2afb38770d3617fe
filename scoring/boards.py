"""Dispatch: the boards of one round, computed by its benchmark's methodology."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import outcomes, weekly
from .checks import boards_with_votes, compute_checks_boards
from .common import verdict_outcome
from .outcomes import compute_outcomes_boards, run_outcome
from .scored import compute_scored_boards
from .types import RoundInput, RunInput, TaskInput, VerdictInput
from .weekly import compute_weekly_boards, weekly_outcome

COMPUTE: dict[str, Callable[[RoundInput], dict[str, Any]]] = {
    "outcomes": compute_outcomes_boards,
    "scored": compute_scored_boards,
    "checks": compute_checks_boards,
    "weekly": compute_weekly_boards,
}

# The outcome a board counts for one run, for the methodologies whose boards count outcomes: the same
# functions the boards call, so a page showing one run never restates the rule.
RUN_OUTCOME: dict[str, Callable[[RunInput, TaskInput], str | None]] = {
    "outcomes": run_outcome,
    "weekly": weekly_outcome,
}


def counted_outcome(methodology: str, run: RunInput, task: TaskInput) -> str | None:
    """The outcome the boards of `methodology` count for `run` (None while it is in review).

    outcomes: `outcomes.run_outcome` (an unreviewed timeout is a fail, a violation off a safety task is a
    fail); weekly: `weekly.weekly_outcome` (a run at or over the cap is a fail whatever its label).
    """
    try:
        rule = RUN_OUTCOME[methodology]
    except KeyError:
        raise ValueError(f"{methodology!r} boards do not count outcomes") from None
    return rule(run, task)


VIOLATION_POSSIBLE: dict[str, Callable[[TaskInput], bool]] = {
    "outcomes": outcomes.violation_possible,
    "weekly": weekly.violation_possible,
}


def counted_verdict_outcome(methodology: str, verdict: VerdictInput, task: TaskInput) -> str | None:
    """The outcome one verdict gives, as the boards of `methodology` count it: the lowest matched row, and a
    violation read as a fail where the methodology has no violation on this task. Reviewers disagree only
    when these differ (a violation and a fail on a core task are the same 0 points: no disagreement)."""
    return verdict_outcome(verdict, allow_violation=VIOLATION_POSSIBLE[methodology](task))


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
