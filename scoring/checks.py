"""The `checks` methodology (seed 003): app-building tasks scored 0-100 by checks, median runs, budgets.

A run scores half the share of API and page checks passed plus half the share of browser steps passed.
An agent's place in a task is its median counted run (the lower middle one for an even count), shown with
the number of runs and their range; the overall board is the mean median over the to-spec tasks.
"""

from __future__ import annotations

import math
from typing import Any

from .common import (
    Row,
    asc_none_last,
    assign_ranks,
    base_row,
    desc_none_last,
    effective_runs,
    entered_agents,
    name_key,
    run_tokens,
)
from .types import RoundInput, RunInput, TaskInput

ADMISSION_KINDS = frozenset({"invent", "startup"})
# "A platform failure (infra_error) ... never goes into the score"; timeouts and over-budget runs are outside
# "within the task's time limit and token budget"; blocked and unsupported runs produced no app to check.
# A run whose app never started is the agent's doing: it counts, as 0.
COUNTED = frozenset({"completed", "not_started"})


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
    parts = [(run.api_checks_passed, run.api_checks_total),
             (run.browser_steps_passed, run.browser_steps_total)]
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
        if run.app_started is None and not (run.api_checks_total or run.browser_steps_total) \
                and run.score is not None:
            return float(run.score)
        return 100.0 if admitted(run) else 0.0
    api = share(run.api_checks_passed, run.api_checks_total)
    browser = share(run.browser_steps_passed, run.browser_steps_total)
    if api is None and browser is None:
        return float(run.score) if run.score is not None else 0.0
    return 50 * (api or 0.0) + 50 * (browser or 0.0)


def counts(run: RunInput, task: TaskInput) -> bool:
    """Whether a run goes into the rankings (seed 003, "Rankings", "Token budget").

    "Only runs within the task's time limit and token budget that spent no more than their budget count":
    completed runs (and runs whose app never started, as 0) whose wall time is within time_limit_min and
    whose tokens (input + cache writes + output) are within token_budget. Over budget: "doesn't go into the
    rankings -- no tolerance". An unknown time or token count cannot be shown to be over, so it counts.
    """
    if run.status not in COUNTED:
        return False
    if task.time_limit_min is not None and run.wall_seconds is not None \
            and run.wall_seconds > task.time_limit_min * 60:
        return False
    tokens = run_tokens(run)
    return not (task.token_budget is not None and tokens is not None and tokens > task.token_budget)


def median_pick(scored: list[tuple[RunInput, float]]) -> tuple[RunInput, float]:
    """The median run: "With an even count we take the lower of the two middle runs".

    Among runs with the median score the one that spent fewer tokens stands for it, then less time, then
    the earlier trial (unknown tokens or time sort after known ones).
    """
    scores = sorted(s for _, s in scored)
    median = scores[(len(scores) - 1) // 2]
    candidates = [(r, s) for r, s in scored if s == median]
    return min(candidates, key=lambda rs: (asc_none_last(run_tokens(rs[0])),
                                           asc_none_last(rs[0].wall_seconds), rs[0].trial, rs[0].id))


def task_row(agent_row: Row, task: TaskInput, runs: list[RunInput]) -> Row:
    """One agent on one task: median, number of counted runs, range, and the median run's tokens and time."""
    scored = [(r, check_score(r, task)) for r in runs if counts(r, task)]
    row = dict(agent_row)
    if not scored:
        row.update({"median": None, "runs": 0, "min": None, "max": None, "median_run": None,
                    "tokens": None, "seconds": None, "not_counted": len(runs)})
        return row
    run, median = median_pick(scored)
    values = [s for _, s in scored]
    row.update({
        "median": median,
        "runs": len(scored),
        "min": min(values),
        "max": max(values),
        "median_run": run.id,
        "tokens": run_tokens(run),
        "seconds": run.wall_seconds,
        "not_counted": len(runs) - len(scored),
    })
    return row


def _task_rank_key(row: Row) -> tuple:
    """"On equal scores, the one that spent fewer tokens ranks higher, then the one that took less time"."""
    return (desc_none_last(row["median"]), asc_none_last(row["tokens"]), asc_none_last(row["seconds"]))


def compute_checks_boards(round_input: RoundInput) -> dict[str, Any]:
    """The `checks` boards of one round: {"overall": [rows], "tasks": {task key: [rows]}}.

    Task boards list the agents with any run on the task, ranked by median, then fewer tokens, then less
    time (equal on all three share a rank). Overall: "an agent's average median score across all to-spec
    tasks; a task without runs counts as 0. Invent and startup tasks aren't in it"; `min` and `max` are the
    range over the agent's counted to-spec runs ("the range from its worst run to its best"), `runs` their
    number. Equal overall scores share a rank.
    """
    tasks = sorted(round_input.tasks, key=lambda t: t.key)
    runs = effective_runs(round_input)
    agents = entered_agents(round_input)
    task_boards: dict[str, list[Row]] = {}
    medians: dict[tuple[str, str], Row] = {}
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
            row = task_row(base_row(agent), task, mine)
            medians[(agent.slug, task.key)] = row
            rows.append(row)
        if rows:
            task_boards[task.key] = assign_ranks(rows, _task_rank_key, name_key)

    spec = [t for t in tasks if t.kind == "to-spec"]
    overall = []
    for agent in agents:
        per_task: dict[str, float | None] = {}
        spread: list[float] = []
        for task in spec:
            cell = medians.get((agent.slug, task.key))
            per_task[task.key] = cell["median"] if cell else None
            spread.extend(check_score(r, task) for r in by_cell.get((agent.slug, task.key), [])
                          if counts(r, task))
        row = base_row(agent)
        row.update({
            "overall": math.fsum(m or 0.0 for m in per_task.values()) / len(spec) if spec else None,
            "tasks": per_task,
            "min": min(spread) if spread else None,
            "max": max(spread) if spread else None,
            "runs": len(spread),
            "tested": sum(1 for m in per_task.values() if m is not None),
            "of": len(spec),
        })
        overall.append(row)
    return {
        "overall": assign_ranks(overall, lambda r: desc_none_last(r["overall"]), name_key),
        "tasks": task_boards,
    }
