"""The `checks` methodology (seed 003): app-building tasks scored 0-100 by checks, median runs, budgets.

A run scores half the share of API and page checks passed plus half the share of browser steps passed.
An agent's place in a task is its median counted run (the lower middle one for an even count), shown with
the number of runs and their range; the overall board is the mean median over the to-spec tasks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

from .common import (
    asc_none_last,
    assign_ranks,
    base_row,
    cost_time_axes,
    desc_none_last,
    effective_runs,
    entered_agents,
    name_key,
    rank_value,
    run_tokens,
)
from .readings import INFRA_ERROR, MISSING_USAGE, SITE, SPREAD, TIME_LIMIT_DEFAULT, Readings
from .standings import by_run_rule
from .types import (
    CHECK_COUNT_PAIRS,
    BaseRow,
    ChecksBoards,
    ChecksOverallRow,
    ChecksTaskRow,
    RatingRow,
    RoundInput,
    RunInput,
    Standings,
    TaskInput,
)

ADMISSION_KINDS = frozenset({"invent", "startup"})
# "A run stops at the task's time limit or when the token budget runs out. Whatever is in /work at that moment
# is what's handed in": completed runs, runs stopped at the time limit (timeout) and runs stopped because the
# budget ran out (budget_exhausted) are all checked and counted. A run whose app never started is the agent's
# doing: it counts, as 0. Not counted: over_budget ("Going over ... doesn't go into the rankings"),
# infra_error ("our fault and never goes into the score"), blocked and unsupported runs (no app to check).
COUNTED = frozenset({"completed", "not_started", "timeout", "budget_exhausted"})
PLATFORM_FAILURE = "infra_error"


def share(passed: int | None, total: int | None) -> float | None:
    """passed / total, or None when the part has no checks."""
    if not total or passed is None:
        return None
    return passed / total


def admitted(run: RunInput) -> bool:
    """Invent and startup tasks: "Their checks only admit the run (it starts, it shows the data)".

    Admitted when the app started (app_started true, or unknown but with checks recorded) and no check
    failed.
    """
    parts = [(getattr(run, passed), getattr(run, total)) for passed, total in CHECK_COUNT_PAIRS]
    recorded = [(p, t) for p, t in parts if t]
    if any(p is None or p < t for p, t in recorded):
        return False
    return run.app_started is True or (run.app_started is None and bool(recorded))


def check_score(run: RunInput, task: TaskInput) -> float:
    """Score 0-100 (seed 003, "Score").

    "Score = half the share of API and page checks passed + half the share of browser steps passed";
    "If the app didn't start, the score is 0" (app_started false or status not_started). A half without
    any checks contributes 0 (an app must earn both halves); a run with no checks recorded at all keeps
    the score published with it, else 0. Invent and startup tasks: a run the checks admit scores 100,
    any other 0.
    """
    if run.status == "not_started" or run.app_started is False:
        return 0.0
    if task.kind in ADMISSION_KINDS:
        if run.app_started is None and not (run.api_checks_total or run.browser_steps_total) and run.score is not None:
            return float(run.score)
        return 100.0 if admitted(run) else 0.0
    api = share(run.api_checks_passed, run.api_checks_total)
    browser = share(run.browser_steps_passed, run.browser_steps_total)
    if api is None and browser is None:
        return float(run.score) if run.score is not None else 0.0
    return 50 * (api or 0.0) + 50 * (browser or 0.0)


def known_tokens(run: RunInput) -> int:
    """The part of a run's budgeted usage that is known (input + cache writes + output, unknown parts left out):
    a lower bound of what it spent, enough to show it went over."""
    return (run.tokens_input or 0) + (run.tokens_output or 0) + (run.tokens_cache_write or 0)


# "A run stops at the task's time limit ... Whatever is in /work at that moment is what's handed in": a run the
# harness stopped at the limit is recorded as a timeout, and its wall time is a little past the limit (stopping
# takes a moment). It was within the limit by definition, whatever overshoot its clock shows.
STOPPED_AT_TIME_LIMIT = "timeout"


# 000's default, which the other reading of "time-limit-default" gives a checks task that states no limit.
OUTCOMES_DEFAULT_TIME_LIMIT_MIN = 30.0


def time_limit_min(task: TaskInput, *, readings: Readings = SITE) -> float | None:
    """The task's time limit: the one it states; a task stating none has no limit (003 sets no default), or 000's
    30 minutes under the other reading of "time-limit-default"."""
    if task.time_limit_min is None and readings.takes(TIME_LIMIT_DEFAULT, "30-minutes"):
        return OUTCOMES_DEFAULT_TIME_LIMIT_MIN
    return task.time_limit_min


def over_time(run: RunInput, task: TaskInput, *, readings: Readings = SITE) -> bool:
    """Whether a run went past its task's time limit by its own numbers: a wall time above time_limit_min on a
    run that was not stopped at the limit (a `completed` run that ran past it does not count, "Only runs within
    the task's time limit ... count"); a `timeout` run never is. No limit, or no recorded time: not over."""
    limit = time_limit_min(task, readings=readings)
    if run.status == STOPPED_AT_TIME_LIMIT or limit is None or run.wall_seconds is None:
        return False
    return run.wall_seconds > limit * 60


def counts(run: RunInput, task: TaskInput, *, readings: Readings = SITE) -> bool:
    """Whether a run goes into the rankings (seed 003, "The run", "Rankings", "Token budget").

    "Only runs within the task's time limit and token budget that spent no more than their budget count":
    a handed-in run (completed, timeout, budget_exhausted, or an app that never started, as 0) counts unless
    its own numbers put it over: wall time above time_limit_min on a run that was not stopped at the limit
    (`over_time`), or usage above token_budget ("no tolerance": 1,001 tokens of 1,000 is over). Usage already
    known to exceed the budget is over even when another part of it is unknown; an entirely unknown time or
    usage cannot show the run over, so it counts; under the other reading of "missing-usage" it cannot show it
    stayed within the budget either, and does not count.
    """
    if run.status not in COUNTED:
        return False
    if over_time(run, task, readings=readings):
        return False
    if task.token_budget is not None and run_tokens(run) is None and readings.takes(MISSING_USAGE, "not-counted"):
        return False
    return not (task.token_budget is not None and known_tokens(run) > task.token_budget)


def not_counted_why(run: RunInput, task: TaskInput) -> str | None:
    """Why a handed-in run stays out of the rankings (`counts`), in words a reader checks against the run's
    own numbers; None when the status already says it (an infra error, over budget) or the run counts."""
    if run.status not in COUNTED:
        return None
    if over_time(run, task) and task.time_limit_min is not None:
        return f"over the time limit: {run.wall_seconds:,.0f} s of {task.time_limit_min * 60:,.0f} s"
    if task.token_budget is not None and known_tokens(run) > task.token_budget:
        return f"over the token budget: {known_tokens(run):,} tokens of {task.token_budget:,}"
    return None


# "A run stops at the task's time limit or when the token budget runs out": every checks task has both. A task
# without one is refused (in a bundle, on import and in `recount`, and in the admin), never given a limit taken
# from another methodology (000's 30 minutes) nor read as unlimited.
REQUIRED_LIMITS = (("time_limit_min", "time limit"), ("token_budget", "token budget"))


def missing_limits(task: Mapping[str, Any], *, readings: Readings = SITE) -> list[tuple[str, str]]:
    """The limits a checks task (a bundle's task document, or the admin's task fields) lacks, as (field, why),
    naming the task: 003 stops every run "at the task's time limit or when the token budget runs out", so a task
    without either cannot say which runs were "within the task's time limit and token budget". Under the other
    reading of "time-limit-default" a task without a time limit has 000's 30 minutes (`time_limit_min`)."""
    key = task.get("key")
    defaulted = readings.takes(TIME_LIMIT_DEFAULT, "30-minutes")
    return [
        (
            field,
            f'task {key!r} has no {what}: every checks task needs a time limit and a token budget (003: "A run '
            f"stops at the task's time limit or when the token budget runs out\"); none is assumed",
        )
        for field, what in REQUIRED_LIMITS
        if task.get(field) is None and not (defaulted and field == "time_limit_min")
    ]


def votable(run: RunInput, task: TaskInput) -> bool:
    """Whether a run may be shown in a blind vote: it counts in the rankings and its app started and showed the
    data (seed 003, check 1); on an invent or startup task the checks admitted it. A run whose app did not
    start, that failed admission or that does not count has nothing fair to compare."""
    if not counts(run, task) or run.status == "not_started" or run.app_started is False:
        return False
    return admitted(run) if task.kind in ADMISSION_KINDS else True


def awaiting_rerun(runs: list[RunInput], task: TaskInput, *, readings: Readings = SITE) -> bool:
    """ "A platform failure (infra_error) is our fault and never goes into the score": an agent whose only runs
    of a task are platform failures has no result there yet, which is not a 0. The task waits for a re-run.
    Under the other reading of "infra-error" no task waits: one without a counted run counts 0 ("a task without
    runs counts as 0")."""
    if readings.takes(INFRA_ERROR, "zero"):
        return False
    return bool(runs) and all(r.status == PLATFORM_FAILURE for r in runs)


def _worse_first(value: float | int | None) -> tuple[int, float]:
    """Sort key putting more first and unknown before everything (missing usage never counts as less)."""
    return (0, 0.0) if value is None else (1, -rank_value(value))


def median_pick(scored: list[tuple[RunInput, float]]) -> tuple[RunInput, float]:
    """The median run: "its median run there, not its best"; "With an even count we take the lower of the two
    middle runs".

    The runs are put in one order from worst to best, by score, then tokens, then time ("On equal scores, the
    one that spent fewer tokens ranks higher, then the one that took less time": a lower score, more tokens
    or more time is worse, and unknown tokens or time are worse than any known), then the earlier trial; the
    median is the middle run of that order, the worse of the two middles for an even count, index
    `(n - 1) // 2`. Among runs tied on the median score it is thus the middle one too, not the luckiest.
    """
    ordered = sorted(
        scored,
        key=lambda rs: (
            rank_value(rs[1]),
            _worse_first(run_tokens(rs[0])),
            _worse_first(rs[0].wall_seconds),
            rs[0].trial,
            rs[0].id,
        ),
    )
    return ordered[(len(ordered) - 1) // 2]


def task_row(agent_row: BaseRow, task: TaskInput, runs: list[RunInput], *, readings: Readings = SITE) -> ChecksTaskRow:
    """One agent on one task: median, number of counted runs, range, and the median run's tokens and time.
    Invent and startup tasks also say whether the median run was admitted; a task with only platform
    failures is awaiting a re-run."""
    scored = [(r, check_score(r, task)) for r in runs if counts(r, task, readings=readings)]
    row = cast(ChecksTaskRow, dict(agent_row))  # its remaining keys are set here
    row["awaiting_rerun"] = not scored and awaiting_rerun(runs, task, readings=readings)
    if task.kind in ADMISSION_KINDS:
        row["admitted"] = False
    if not scored:
        row.update(
            {
                "median": None,
                "runs": 0,
                "min": None,
                "max": None,
                "median_run": None,
                "tokens": None,
                "seconds": None,
                "not_counted": len(runs),
            }
        )
        return row
    run, median = median_pick(scored)
    values = [s for _, s in scored]
    row.update(
        {
            "median": median,
            "runs": len(scored),
            "min": min(values),
            "max": max(values),
            "median_run": run.id,
            "tokens": run_tokens(run),
            "seconds": run.wall_seconds,
            "not_counted": len(runs) - len(scored),
        }
    )
    if task.kind in ADMISSION_KINDS:
        row["admitted"] = median == 100.0
    return row


def _task_rank_key(row: ChecksTaskRow) -> tuple:
    """ "On equal scores, the one that spent fewer tokens ranks higher, then the one that took less time"."""
    return (desc_none_last(row["median"]), asc_none_last(row["tokens"]), asc_none_last(row["seconds"]))


def rank_by_votes(rows: list[ChecksTaskRow], ratings: dict[str, RatingRow]) -> list[ChecksTaskRow]:
    """An invent or startup task's board (seed 003: "Their checks only admit the run ...; people rank the apps
    in blind votes"): admitted agents by their vote rating in the task (Bradley-Terry, highest first; equal
    ratings share a rank), then admitted agents without a rating yet, then agents not admitted. Each row
    carries its rating row (or None). The checks' 100 never orders this board."""

    def key(row: ChecksTaskRow) -> tuple:
        rating = ratings.get(row["agent"]) if row.get("admitted") else None
        group = 0 if rating is not None else (1 if row.get("admitted") else 2)
        return (group, -rank_value(rating["rating"]) if rating is not None else 0.0)

    out: list[ChecksTaskRow] = []
    for row in rows:
        rating = ratings.get(row["agent"])
        out.append({**row, "rating": cast(RatingRow, dict(rating)) if rating is not None else None})
    return assign_ranks(out, key, name_key)


def ranked_by_votes(rows: list[ChecksTaskRow]) -> bool:
    """Whether a task board is ranked by votes (`rank_by_votes`): its rows say whether the checks admitted each
    agent's run, which only invent and startup boards carry."""
    return bool(rows) and "admitted" in rows[0]


def board_ranked_by_votes(boards: dict[str, Any] | None, task: str | None) -> bool:
    """Whether the board of `task` (None: the overall board, never) is ranked by votes."""
    return task is not None and ranked_by_votes(((boards or {}).get("tasks") or {}).get(task) or [])


def boards_with_votes(boards: dict[str, Any], ratings: dict[str, Any] | None) -> dict[str, Any]:
    """The `checks` boards as shown and recounted: invent and startup task boards ranked by the task's vote
    ratings (`rank_by_votes`). The stored boards snapshot holds them ranked without votes (admitted first);
    the site and `recount` both apply this with the ratings of the same votes."""
    per_task = (ratings or {}).get("tasks") or {}
    tasks = {}
    for key, rows in (boards.get("tasks") or {}).items():
        if ranked_by_votes(rows):
            rows = rank_by_votes(rows, {r["agent"]: r for r in per_task.get(key) or []})
        tasks[key] = rows
    return {**boards, "tasks": tasks}


def compute_checks_boards(round_input: RoundInput, *, readings: Readings = SITE) -> ChecksBoards:
    """The `checks` boards of one round: {"overall": [rows], "tasks": {task key: [rows]}}.

    Task boards list the agents with any run on the task, ranked by median, then fewer tokens, then less
    time (equal on all three share a rank); invent and startup boards are ranked by votes (`rank_by_votes`,
    here with no ratings: admitted first). Overall: "an agent's average median score across all to-spec
    tasks; a task without runs counts as 0. Invent and startup tasks aren't in it". A task awaiting a re-run
    (only platform failures) is left out of that agent's mean and listed in `pending`. The spread ("the range
    from its worst run to its best") is the overall the agent would have from its worst counted run on each
    task (`min`) and from its best (`max`), a task without runs 0 in both. Equal overall scores go to fewer
    tokens, then less time, summed over the median runs of every to-spec task: a task without a median run
    (skipped, nothing counted, or awaiting a re-run) makes the total unknown, ranked after known totals, so a
    skipped task never wins the tie with a smaller sum; equal on all three share a rank.
    """
    tasks = sorted(round_input.tasks, key=lambda t: t.key)
    runs = effective_runs(round_input)
    agents = entered_agents(round_input)
    task_boards: dict[str, list[ChecksTaskRow]] = {}
    medians: dict[tuple[str, str], ChecksTaskRow] = {}
    # Group once: scanning every run for every agent and task would be agents x tasks x runs.
    by_cell: dict[tuple[str, str], list[RunInput]] = {}
    for r in runs:
        by_cell.setdefault((r.agent, r.task), []).append(r)
    for task in tasks:
        rows = []
        for agent in agents:
            mine = by_cell.get((agent.slug, task.key), [])
            if not mine:
                continue
            row = task_row(base_row(agent), task, mine, readings=readings)
            medians[(agent.slug, task.key)] = row
            rows.append(row)
        if rows:
            task_boards[task.key] = (
                rank_by_votes(rows, {})
                if task.kind in ADMISSION_KINDS
                else assign_ranks(rows, _task_rank_key, name_key)
            )

    spec = [t for t in tasks if t.kind == "to-spec"]
    overall = [overall_row(base_row(agent), spec, medians, readings=readings) for agent in agents]
    for agent_overall in overall:  # the score x cost x time axes, computed with the board, never while serving
        agent_overall.update(cost_time_axes(overall_runs(agent_overall["agent"], spec, by_cell, readings=readings)))
    return {
        "overall": assign_ranks(
            overall,
            lambda r: (desc_none_last(r["overall"]), asc_none_last(r["tokens"]), asc_none_last(r["seconds"])),
            name_key,
        ),
        "tasks": task_boards,
    }


def overall_runs(
    agent: str, spec: list[TaskInput], by_cell: dict[tuple[str, str], list[RunInput]], *, readings: Readings = SITE
) -> list[RunInput]:
    """The runs the overall board counts for an agent: every counted run of a to-spec task (runs stopped at the
    time limit or when the budget ran out included; runs over a limit, platform failures and invent and startup
    tasks left out). The score x cost x time axes average these, the runs behind the overall."""
    return [r for task in spec for r in by_cell.get((agent, task.key), []) if counts(r, task, readings=readings)]


def overall_row(
    base: BaseRow,
    spec: list[TaskInput],
    medians: dict[tuple[str, str], ChecksTaskRow],
    *,
    readings: Readings = SITE,
) -> ChecksOverallRow:
    """One agent's overall row (see `compute_checks_boards`): the mean median over the to-spec tasks less its
    pending ones, the spread from its worst and best runs (`spread`), and the token and time sums of its median
    runs (unknown when a to-spec task has no median run). `base` is completed in place."""
    row = cast(ChecksOverallRow, base)
    per_task: dict[str, float | None] = {}
    worst: list[float] = []
    best: list[float] = []
    pending: list[str] = []
    tokens: list[int | None] = []
    seconds: list[float | None] = []
    n_runs = 0
    for task in spec:
        cell = medians.get((row["agent"], task.key))
        per_task[task.key] = cell["median"] if cell else None
        # The tie-break totals are over every to-spec task: a task without a median run (no counted run, or
        # awaiting a re-run) has unknown tokens and time, so the total is unknown, never a smaller sum.
        has_median = bool(cell and cell["median"] is not None)
        tokens.append(cell["tokens"] if cell and has_median else None)
        seconds.append(cell["seconds"] if cell and has_median else None)
        if cell and cell["awaiting_rerun"]:
            pending.append(task.key)
            continue
        worst.append(cell["min"] if cell and cell["min"] is not None else 0.0)
        best.append(cell["max"] if cell and cell["max"] is not None else 0.0)
        if cell and has_median:
            n_runs += cell["runs"]
    scored_tasks = len(spec) - len(pending)
    cells = [c for task in spec if (c := medians.get((row["agent"], task.key))) and c["median"] is not None]
    low, high = spread(worst, best, scored_tasks, cells, readings=readings)
    row.update(
        {
            "overall": math.fsum(m or 0.0 for k, m in per_task.items() if k not in pending) / scored_tasks
            if scored_tasks
            else None,
            "tasks": per_task,
            "min": low,
            "max": high,
            "runs": n_runs,
            "tokens": None if not tokens or None in tokens else sum(t for t in tokens if t is not None),
            "seconds": None if not seconds or None in seconds else math.fsum(s for s in seconds if s is not None),
            "tested": sum(1 for m in per_task.values() if m is not None),
            "of": len(spec),
            "pending": pending,
        }
    )
    return row


def spread(
    worst: list[float], best: list[float], scored_tasks: int, cells: list[ChecksTaskRow], *, readings: Readings = SITE
) -> tuple[float | None, float | None]:
    """ "the range from its worst run to its best": the overall from the worst counted run of each task to the one
    from the best (`worst`, `best`: one per task in the overall, 0 for a task without runs); under the other
    reading of "spread", the single worst and best counted runs of the to-spec tasks (`cells`: the task rows
    with counted runs), None without any."""
    if readings.takes(SPREAD, "single-runs"):
        lows = [c["min"] for c in cells if c["min"] is not None]
        highs = [c["max"] for c in cells if c["max"] is not None]
        return (min(lows), max(highs)) if lows and highs else (None, None)
    if not scored_tasks:
        return None, None
    return math.fsum(worst) / scored_tasks, math.fsum(best) / scored_tasks


def interval_cells(
    round_input: RoundInput, boards: dict[str, Any], *, readings: Readings = SITE
) -> dict[tuple[str, str], tuple[list[float], bool]]:
    """The cells the overall's interval resamples (`scoring.intervals`): every counted run score of each agent
    on each to-spec task; a task without counted runs counts 0 (not ran), one awaiting a re-run is left out, as
    in `overall_row`."""
    by_cell: dict[tuple[str, str], list[RunInput]] = {}
    for r in effective_runs(round_input):
        by_cell.setdefault((r.agent, r.task), []).append(r)
    cells: dict[tuple[str, str], tuple[list[float], bool]] = {}
    for task in (t for t in round_input.tasks if t.kind == "to-spec"):
        for agent in entered_agents(round_input):
            runs = by_cell.get((agent.slug, task.key), [])
            scores = [check_score(r, task) for r in runs if counts(r, task, readings=readings)]
            if scores:
                cells[(agent.slug, task.key)] = (scores, True)
            elif not awaiting_rerun(runs, task, readings=readings):
                cells[(agent.slug, task.key)] = ([0.0], False)
    return cells


def run_standings(round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
    """The standing of every run the boards read (`effective_runs`), by the rule the task boards counted them
    with (`counts`, `standings.by_run_rule`): a counted run counts with its score; a handed-in run over the
    time limit or the token budget is over a limit (`not_counted_why`, "no tolerance"), as is an over-budget
    run; a platform failure, a region block or an unsupported product stays out by its status. The median run
    of each task board stands for its agent there ("its median run there, not its best"). Every run carries its
    own score (`check_score`)."""
    out = by_run_rule(counts, not_counted_why, check_score)(round_input, boards)
    for rows in (boards.get("tasks") or {}).values():
        for row in rows:
            if row.get("median_run"):
                out[row["median_run"]]["stands"] = True
    return out


# The list's kinds behind each pair of counts (003 "Score": "half the share of API and page checks passed +
# half the share of browser steps passed").
LISTED_COUNTS = (
    (("api", "page"), *CHECK_COUNT_PAIRS[0], "API and page checks"),
    (("browser",), *CHECK_COUNT_PAIRS[1], "browser steps"),
)
LISTED_COUNT_FIELDS = tuple(name for _, passed, total, _ in LISTED_COUNTS for name in (passed, total))


def listed_checks_problems(run: Mapping[str, Any]) -> list[str]:
    """Where a checks run's `checks` list (003: "The run page shows every check and what it got") and the
    counts its score is computed from disagree: a list of 2 API checks, 1 passed, beside `api_checks_passed:
    2` would show one result on the run page and score another. A list without the counts is refused too (the
    score reads the counts), and a failed start check beside `app_started: true`. The bundle check and the
    admin's run form both ask this."""
    listed = run.get("checks")
    if not isinstance(listed, list) or not all(isinstance(ch, dict) for ch in listed):
        return []
    problems = []
    for kinds, passed_key, total_key, what in LISTED_COUNTS:
        mine = [ch for ch in listed if ch.get("kind") in kinds and isinstance(ch.get("passed"), bool)]
        if not mine:
            continue
        passed = sum(1 for ch in mine if ch["passed"])
        given = (run.get(passed_key), run.get(total_key))
        if given != (passed, len(mine)):
            said = "are missing" if given == (None, None) else f"say {given[0]} of {given[1]}"
            problems.append(f"lists {passed} of {len(mine)} {what} passed, but {passed_key}/{total_key} {said}")
    if run.get("app_started") is True and any(ch.get("kind") == "start" and ch.get("passed") is False for ch in listed):
        problems.append("lists a failed start check, but app_started is true")
    return problems
