"""The `weekly` methodology (seed 004): one week's table of pass/partial/fail, interventions, time, cost.

A round is one week. The table is sorted by pass rate, then fewer interventions, then lower dollar cost,
then name; points stay visible "so a partial is not hidden".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from .common import (
    OUTCOME_POINTS,
    alphabetical,
    asc_none_last,
    base_row,
    desc_none_last,
    effective_runs,
    entered_agents,
    fsum_or_none,
    latest,
    rank_value,
    reviewed_outcome,
    verdict_outcome,
)
from .readings import INTERVENTIONS, SITE, WEEKLY_REVIEW, Readings
from .standings import IN_REVIEW, IN_REVIEW_WHY, by_status, counted, replaced, standing
from .types import (
    BaseRow,
    EntryInput,
    RoundInput,
    RunInput,
    Standings,
    TaskInput,
    WeekCost,
    WeeklyBoards,
    WeeklyCell,
    WeeklyRow,
)

# "Wall-clock time ... stops when the agent finishes, or at 30 minutes": one cap for every task, whatever time
# limit a task record carries.
CAP_SECONDS = 30 * 60.0
# Statuses that mean "the job was not done": a fail. An infra error is the platform's, not the agent's, and
# is not counted (the task stays in the week's denominator, so it cannot raise the pass rate).
FAIL_STATUSES = frozenset({"timeout", "over_budget", "not_started", "region_blocked", "unsupported"})
NOT_COUNTED = frozenset({"infra_error"})


def reached_cap(run: RunInput) -> bool:
    """ "A run that reaches the cap is a fail": status timeout, or a wall time at or over 30 minutes."""
    return run.status == "timeout" or (run.wall_seconds is not None and run.wall_seconds >= CAP_SECONDS)


def run_seconds(run: RunInput) -> float | None:
    """The run's published time: "stops when the agent finishes, or at 30 minutes, whichever comes first".

    A run that reached the cap took the 30 minutes, recorded or not (a timed-out run with no time adds 30
    minutes to the week, never 0); otherwise its recorded time, None when there is none.
    """
    if reached_cap(run):
        return CAP_SECONDS
    return run.wall_seconds


def violation_possible(task: TaskInput | None) -> bool:
    """The weekly table has only pass, partial and fail: a violation verdict is a fail on every task."""
    return False


def weekly_outcome(run: RunInput, task: TaskInput | None = None, *, readings: Readings = SITE) -> str | None:
    """pass, partial or fail for one run, or None while it is in review.

    "Fail: the job was not done, or the run reached the 30-minute cap": a timeout, a wall time at or over
    the cap, or a status meaning nothing was done is a fail whatever the reviewers said. Otherwise the
    labeled outcome: a lone tester verdict, or tester and second when they agree, else the third; without
    verdicts the run's own label. violation and unsupported labels are fails here (the table has no such
    rows). Under the other reading of "weekly-review" the tester's verdict is the label, whatever a second said.
    """
    if run.status in FAIL_STATUSES or reached_cap(run):
        return "fail"
    tester = next((v for v in run.verdicts if v.role == "tester"), None)
    if tester is not None and readings.takes(WEEKLY_REVIEW, "tester-alone"):
        outcome = verdict_outcome(tester, allow_violation=violation_possible(task))
    else:
        outcome = reviewed_outcome(run, allow_violation=violation_possible(task), double_review=False)
    if outcome in ("unsupported", "violation"):
        return "fail"
    return outcome


def _cost_key(row: WeeklyRow) -> tuple[int, float]:
    """Tie-break 3: dollars compared when both have them; a plan-label-only agent never outranks a dollar
    figure, nor does one whose dollar total is unknown (a task without a run); between two such agents cost
    does not break the tie (both keys equal)."""
    return (0, rank_value(row["cost_usd"])) if row["cost_usd"] is not None else (1, 0.0)


def week_interventions(
    runs: list[RunInput], tasks_without_run: list[str] | None = None, *, readings: Readings = SITE
) -> int | None:
    """ "The table sums interventions across the week's tasks" ("Fewer human interventions across those
    tasks"): the sum, or None (unknown) as soon as one run has no count or one of the week's tasks has no
    counted run. An unreported count is unknown, not 0: summing the others would make the week look smoother
    than it was, and a skipped task would make it look smoother still. Under the other reading of
    "interventions" a task without a run adds nothing: the sum is over the runs the agent has."""
    if readings.takes(INTERVENTIONS, "sum-of-runs"):
        tasks_without_run = None
    if not runs or tasks_without_run or any(r.interventions is None for r in runs):
        return None
    return sum(r.interventions or 0 for r in runs)


def order_key(row: WeeklyRow) -> tuple:
    """Seed 004 "Ranking": higher pass rate, fewer interventions, lower dollar cost, then name.

    Unknown interventions (a run without a count, or a task of the week without a run) sort after every known
    total at the same pass rate (a missing number is not a zero). "Alphabetical by agent name" ignores case
    and accents (`alphabetical`), so "aider" comes before "Claude Code" and "Éclair" before "Yak"; the name as
    written, then the slug, only keep the order total.
    """
    rate = row["pass_rate"]
    return (
        desc_none_last(rate),
        asc_none_last(row["interventions"]),
        _cost_key(row),
        *alphabetical(row["name"]),
        row["agent"],
    )


def week_cost(used: list[RunInput], without_run: list[str], entry: EntryInput | None) -> WeekCost:
    """The week's cost: dollars when every counted run is metered and no task of the week lacks a run (a
    skipped task's cost is unknown, not 0), else the plan the runs were on."""
    metered = bool(used) and all(r.cost_usd is not None for r in used)
    dollars = metered and not without_run
    labels = sorted({r.plan_label for r in used if r.cost_usd is None and r.plan_label})
    plan_label = None
    if not metered:
        plan_label = ", ".join(labels) if labels else (entry.plan if entry else None)
    return {
        "cost_usd": fsum_or_none(r.cost_usd for r in used) if dollars else None,
        "plan_label": plan_label,
        "cost_kind": "dollars" if dollars else ("unknown" if metered else ("plan" if plan_label else None)),
    }


def agent_row(
    base: BaseRow, runs: list[RunInput], week_tasks: list[str], entry: EntryInput | None, *, readings: Readings = SITE
) -> WeeklyRow:
    """One agent's week over the week's task keys: "One run is labeled and scored" (the latest trial when
    several exist).

    A task of the week without a counted run (none at all, or only platform failures) leaves the week's
    interventions and dollar cost unknown, listed under `tasks_without_run`: a total "across those tasks" is
    not known with a term missing, and summing the rest would let a skipped task lower it. Time is published
    with the result: `seconds` sums the runs with a time, and `runs_without_time` counts the runs without one,
    so a partial total is never read as the whole. `base` is completed in place."""
    row = cast(WeeklyRow, base)
    chosen: dict[str, RunInput] = {}
    not_counted: list[str] = []
    for key in sorted({r.task for r in runs}):
        run = latest(r for r in runs if r.task == key and r.status not in NOT_COUNTED)
        if run is None:
            not_counted.append(key)
        else:
            chosen[key] = run
    cells: dict[str, WeeklyCell] = {}
    for key, run in chosen.items():
        outcome = weekly_outcome(run, readings=readings)
        cells[key] = {
            "outcome": outcome if outcome is not None else "in_review",
            "points": OUTCOME_POINTS[outcome] if outcome is not None else None,
            "run": run.id,
            "seconds": run_seconds(run),
            "wall_seconds": run.wall_seconds,
            "capped": reached_cap(run),
            "interventions": run.interventions,
            "cost_usd": run.cost_usd,
            "plan_label": run.plan_label,
        }
    outcomes = [c["outcome"] for c in cells.values()]
    passes = outcomes.count("pass")
    used = list(chosen.values())
    without_run = sorted(k for k in week_tasks if k not in chosen)
    row.update(week_cost(used, without_run, entry))
    row.update(
        {
            "passes": passes,
            "partials": outcomes.count("partial"),
            "fails": outcomes.count("fail"),
            "points": sum(c["points"] or 0 for c in cells.values()),
            "pass_rate": passes / len(week_tasks) if week_tasks else None,
            "tasks_that_week": len(week_tasks),
            "tasks_without_run": without_run,
            "interventions": week_interventions(used, without_run, readings=readings),
            "interventions_unrecorded": sorted(r.task for r in used if r.interventions is None),
            "seconds": fsum_or_none(c["seconds"] for c in cells.values()),
            "runs_without_time": sum(1 for c in cells.values() if c["seconds"] is None),
            "in_review": sorted(k for k, c in cells.items() if c["outcome"] == "in_review"),
            "not_counted": not_counted,
            "tasks": cells,
        }
    )
    row["overall"] = row["pass_rate"]
    return row


def compute_weekly_boards(round_input: RoundInput, *, readings: Readings = SITE) -> WeeklyBoards:
    """The week's table: {"overall": [rows]}.

    pass_rate = passes / "the number of tasks that week": the round's task set (`RoundInput.tasks`: the
    bundle's `rounds[].tasks`, else the tasks with any run in the round);
    interventions summed over the week's runs (unknown when any run has no count or any task of the week has
    no counted run); time summed with each run stopping at the 30-minute cap (a timed-out run counts the 30
    minutes), with the number of runs without a time beside it; cost summed in dollars when every task has a
    run and every run was metered (unknown when a task has none), else the plan label. Rank is the position
    in the order of `order_key`: the order is total (it ends with the name), so ranks are 1..n without ties.
    """
    runs = effective_runs(round_input)
    week_tasks = sorted(t.key for t in round_input.tasks)
    entries = {e.agent: e for e in round_input.entries}
    by_agent: dict[str, list] = {}
    for r in runs:
        by_agent.setdefault(r.agent, []).append(r)
    rows = [
        agent_row(base_row(a), by_agent.get(a.slug, []), week_tasks, entries.get(a.slug), readings=readings)
        for a in entered_agents(round_input)
    ]
    rows.sort(key=order_key)
    for i, row in enumerate(rows, start=1):
        row["rank"] = i
    return {"overall": rows}


def run_standings(round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
    """The standing of every run the week's table read (`effective_runs`), from the table's own pick (the run
    its cell names: "One run is labeled and scored", the latest trial): that run counts with the cell's outcome
    and points, or is in review; an earlier trial is replaced by it; a platform failure stays out by its
    status. Every run also carries its own outcome by `weekly_outcome` (a run at the cap is a fail)."""
    cells = {(row["agent"], key): cell for row in boards.get("overall") or [] for key, cell in row["tasks"].items()}
    runs = effective_runs(round_input)
    by_id = {r.id: r for r in runs}
    out: Standings = {}
    for run in runs:
        cell = cells.get((run.agent, run.task))
        chosen = by_id.get(cell["run"]) if cell else None
        if run.status in NOT_COUNTED or chosen is None or cell is None:
            out[run.id] = by_status(run)
        elif run.id == chosen.id:
            out[run.id] = (
                standing(IN_REVIEW, why=IN_REVIEW_WHY)
                if cell["points"] is None
                else counted(stands=True, outcome=cell["outcome"], points=cell["points"])
            )
        else:
            out[run.id] = replaced(run, chosen, outcome=weekly_outcome(run))
    return out
