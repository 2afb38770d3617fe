"""The boards of one round and the per-run rules pages need, by the benchmark's methodology (looked up in
`scoring.methodologies`, never by branching on its name)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any, TypedDict, cast

from .agreement import ReviewAgreement, review_agreement
from .common import verdict_outcome
from .intervals import Cells, IntervalRule, with_intervals
from .methodologies import Methodology, get
from .noise import NoiseFloor, noise_floor, pair_spreads
from .readings import SITE, Readings
from .standings import round_standings
from .task_stats import TaskStatistics, task_statistics
from .tiers import with_tiers
from .types import RoundInput, RunInput, Standings, TaskInput, VerdictInput


def counted_outcome(methodology: str, run: RunInput, task: TaskInput) -> str | None:
    """The outcome the boards of `methodology` count for `run` (None while it is in review).

    outcomes: `outcomes.run_outcome` (a run without a verdict or label is in review, a timeout too; a
    violation off a safety task is a fail); weekly: `weekly.weekly_outcome` (a run at or over the cap is a
    fail whatever its label).
    """
    rule = get(methodology).run_outcome
    if rule is None:
        raise ValueError(f"{methodology!r} boards do not count outcomes")
    return rule(run, task)


def counted_verdict_outcome(methodology: str, verdict: VerdictInput, task: TaskInput) -> str | None:
    """The outcome one verdict gives, as the boards of `methodology` count it: the lowest matched row, and a
    violation read as a fail where the methodology has no violation on this task. Reviewers disagree only
    when these differ (a violation and a fail on a core task are the same 0 points: no disagreement)."""
    possible = get(methodology).violation_possible
    return verdict_outcome(verdict, allow_violation=bool(possible and possible(task)))


def compute_boards(round_input: RoundInput, *, readings: Readings = SITE) -> dict[str, Any]:
    """Every board of `round_input` by the methodology its benchmark publishes (DESIGN.md, "The bundle").

    outcomes: {"overall", "safety", "local-china", "local-global", "other-language"}; scored: {"overall",
    "meta"}; checks: {"overall", "tasks"}; weekly: {"overall"}. Where the methodology has an interval rule,
    its overall rows also carry `ci_low`, `ci_high` and `rank_ub`, and "pairs" holds the paired differences
    of every two agents (`scoring.intervals`). Every methodology's boards also carry "statistics", first
    (`round_statistics`), so a printed recount keeps every line it had before and adds these, and, last,
    "standings": every run of the round's standing, decided from these boards (`scoring.standings`), by run id.

    Under `readings` other than the site's (`scoring.readings`), every board and figure takes them, and the
    boards say which under "readings_taken" in place of "standings": a run's standing, which pages, downloads
    and the API read, is the one the site's boards decide.
    """
    methodology = get(round_input.methodology)
    rule = interval_rule(methodology, readings)
    boards = with_intervals(methodology.boards(round_input, readings=readings), round_input, rule)
    boards = with_tiers(boards, round_input, readings=readings)
    statistics = round_statistics(methodology, round_input, boards, readings=readings)
    if not readings.is_site:
        return {"statistics": statistics, **boards, "readings_taken": dict(readings.chosen)}
    standings = _standings(methodology, round_input, boards)
    return {"statistics": statistics, **boards, "standings": standings}


def interval_rule(methodology: Methodology, readings: Readings = SITE) -> IntervalRule | None:
    """The methodology's interval rule, its cells read under `readings` (the site's: the rule as registered)."""
    rule = methodology.interval
    if rule is None or readings.is_site:
        return rule
    cells = cast(Callable[..., Cells], rule.cells)  # every methodology's cells take the readings
    return replace(rule, cells=partial(cells, readings=readings))


def compute_standings(round_input: RoundInput) -> Standings:
    """Every run's standing exactly as `compute_boards` decides it, without the boards' other figures (no
    bootstrap, no statistics): what a page reads while the round's stored boards are being recomputed."""
    methodology = get(round_input.methodology)
    return _standings(methodology, round_input, methodology.compute_boards(round_input))


def _standings(methodology: Methodology, round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
    standings = round_standings(round_input, boards, methodology.run_standings, methodology.own_result)
    return methodology.run_figures(round_input, standings)


class RoundStatistics(TypedDict, total=False):
    """A round's "statistics" (`round_statistics`): "noise" on boards with intervals, "review" on methodologies
    with blind double review, "tasks" always."""

    noise: NoiseFloor
    tasks: TaskStatistics
    review: ReviewAgreement


def round_statistics(
    methodology: Methodology, round_input: RoundInput, boards: dict[str, Any], *, readings: Readings = SITE
) -> RoundStatistics:
    """The figures about the round rather than any agent (docs/statistics.md): on boards with intervals,
    "noise", the noise floor and the spread of every pair's per-task differences (`scoring.noise`), first, so a
    printed recount keeps its old lines; "tasks", which tasks separate
    the agents of the overall board and the split-half reliability of its ranking (`scoring.task_stats`,
    from each agent's number on each task, `Methodology.task_numbers`; a task ranked by votes, in no overall
    score, is left out); and, on methodologies with blind
    double review, "review", how often the reviewers agreed (`scoring.agreement`)."""
    numbers: dict[str, dict[str, float | None]] = {}
    passes: dict[str, dict[str, bool | None]] = {}
    for row in boards.get("overall") or []:
        # A task ranked by votes is in no overall score, and its checks only admit an app: not read here.
        cells = {k: c for k, c in methodology.task_numbers(boards, row["agent"]).items() if not c.get("by_votes")}
        numbers[row["agent"]] = {task: cell["value"] for task, cell in cells.items()}
        passes[row["agent"]] = {
            task: (cell["label"] == "pass" if cell["label"] else None) for task, cell in cells.items()
        }
    out: RoundStatistics = {}
    rule = interval_rule(methodology, readings)
    if rule is not None and "pairs" in boards:
        spreads = pair_spreads(rule.cells(round_input, boards), rule)
        out["noise"] = noise_floor(boards["pairs"], spreads)
    out["tasks"] = task_statistics(numbers, passes if methodology.counts_outcomes else None)
    if methodology.double_review:
        out["review"] = review_agreement(
            round_input, methodology.violation_possible, methodology.run_counts, methodology.run_outcome
        )
    return out


def boards_as_shown(methodology: str, boards: dict[str, Any] | None, ratings: dict[str, Any] | None) -> dict[str, Any]:
    """A round's stored boards as the site shows them and `recount` prints them: with the vote ratings applied
    where the methodology ranks by votes. Boards snapshots hold the boards without votes, so a vote never
    recomputes a round; the ratings snapshot is joined here."""
    if not boards:
        return boards or {}
    join = get(methodology).with_votes
    return join(boards, ratings) if join else boards
