"""The `scored` methodology (seed 002): fractional scores from tests and an LLM judge, pass@k, best of trials.

A run's score comes from its parts (auto = tests passed / total, judge = mean of 1-10 criteria / 10,
composite = 60/40), a heuristic fallback capped at 0.60 and marked, or the score published with the run.
The board ranks agents by their mean best score over the round's tasks (a task without a score counts 0);
cost and latency are separate axes where missing is None, never 0, and `rerank` combines the three axes with
a reader's weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from .common import (
    assign_ranks,
    base_row,
    desc_none_last,
    effective_runs,
    entered_agents,
    mean_or_none,
    name_key,
    rank_value,
    run_sort_key,
    tasks_by_key,
)
from .readings import CAPPED_HEURISTIC, OVERALL_MEAN, SITE, Readings
from .standings import NOT_SCORED, NOT_SCORED_WHY, by_status, counted, standing
from .types import (
    BaseRow,
    RoundInput,
    RunInput,
    ScoredBoards,
    ScoredCell,
    ScoredMeta,
    ScoredRow,
    Standings,
    TaskInput,
)

HEURISTIC_CAP = 0.6
AUTO_WEIGHT, JUDGE_WEIGHT = 0.6, 0.4
DEFAULT_PASS_THRESHOLD = 0.8
# "Agents receive ... A timeout (default 300 seconds)": the limit of a task that states none.
DEFAULT_TIMEOUT_SECONDS = 300.0
# A computed score this close to the threshold is on it: 0.6 * a + 0.4 * j can land a rounding error below.
TOLERANCE = 1e-9
# A timeout, budget-exhausted or over-budget run is handed in as it stood at the limit ("A timeout (default 300
# seconds)"); an infra error is the platform's fault; region blocks, unsupported products and runs that never started
# produced nothing to score.
COUNTED = frozenset({"completed", "timeout", "budget_exhausted", "over_budget"})
ZERO_WHEN_UNSCORED = frozenset({"timeout", "budget_exhausted", "over_budget"})


@dataclass(frozen=True)
class RunScore:
    """The score of one run, whether it rests on a heuristic, and how it was obtained."""

    score: float | None
    heuristic: bool
    source: str  # "auto", "llm-judge", "composite", "published", "timeout" or "none"


def auto_part(run: RunInput) -> float | None:
    """Auto evaluation: "Score = tests_passed / tests_total"; a published pass rate without counts."""
    if run.tests_total and run.tests_passed is not None:
        return run.tests_passed / run.tests_total
    return run.auto_pass_rate


def judge_part(run: RunInput) -> float | None:
    """LLM judge: "each rubric criterion on a 1-10 scale. Final score = average / 10"."""
    if not run.judge_scores:
        return None
    return math.fsum(run.judge_scores) / len(run.judge_scores) / 10


def caps_whole_score(readings: Readings) -> bool:
    """Whether the heuristic's 0.60 cap is read as capping the whole score ("heuristic-cap"), not its judged part."""
    return readings.takes(CAPPED_HEURISTIC, "whole-score")


def heuristic_part(run: RunInput, *, readings: Readings = SITE) -> float | None:
    """Fallback scoring: without a judge, a heuristic score "capped at 0.60. This is clearly marked". Under the
    other reading of "heuristic-cap" the part is the heuristic as given, and the whole score is capped instead."""
    if run.heuristic is None:
        return None
    return run.heuristic if caps_whole_score(readings) else min(run.heuristic, HEURISTIC_CAP)


def published_score(
    score: float, heuristic: float | None, evaluation: str | None, *, readings: Readings = SITE
) -> RunScore:
    """The score published with a run, with the heuristic cap on its judged part only.

    "tasks using LLM-judge evaluation fall back to heuristic scoring (capped at 0.60)": the cap belongs to
    the judge part, never to a whole composite (0.6 auto + 0.4 judge, so a composite with a capped heuristic
    can reach 0.6 + 0.4 * 0.6 = 0.84). Without a heuristic the score stands as published. With one: an
    llm-judge score is all judge, so it is capped at 0.60; a composite loses what its judged part had above
    the cap, 0.4 * (heuristic - 0.60); an auto score has no judged part and stands, unmarked. Under the other
    reading of "heuristic-cap" a score resting on a heuristic is capped whole at 0.60.
    """
    if heuristic is None or evaluation == "auto":
        return RunScore(score, False, "published")
    if caps_whole_score(readings):
        return RunScore(min(score, HEURISTIC_CAP), True, "published")
    if evaluation == "composite":
        excess = max(0.0, heuristic - HEURISTIC_CAP)
        return RunScore(max(0.0, score - JUDGE_WEIGHT * excess), True, "published")
    return RunScore(min(score, HEURISTIC_CAP), True, "published")


def run_score(run: RunInput, task: TaskInput, *, readings: Readings = SITE) -> RunScore:
    """Score one run by its task's evaluation type (seed 002, "Evaluation Types").

    auto => a; llm-judge => j, or the capped heuristic h when no judge scored it; composite => 0.6 a + 0.4
    (j or h). Without an evaluation type it is inferred from the parts present. When the parts the type
    needs are missing, the score published with the run is used (see `published_score` for the heuristic
    cap). A timeout or over-budget run with no score at all scores 0. Under the other reading of
    "heuristic-cap", a score resting on the heuristic is capped whole at 0.60 (`heuristic_part` uncapped).
    """
    result = _run_score(run, task, readings)
    if result.heuristic and result.score is not None and caps_whole_score(readings):
        return RunScore(min(result.score, HEURISTIC_CAP), True, result.source)
    return result


def _run_score(run: RunInput, task: TaskInput, readings: Readings) -> RunScore:
    a, j, h = auto_part(run), judge_part(run), heuristic_part(run, readings=readings)
    judge = j if j is not None else h
    judge_is_heuristic = j is None and h is not None
    evaluation = task.evaluation
    if evaluation not in ("auto", "llm-judge", "composite"):
        if a is not None and judge is not None:
            evaluation = "composite"
        elif a is not None:
            evaluation = "auto"
        elif judge is not None:
            evaluation = "llm-judge"
    if evaluation == "auto" and a is not None:
        return RunScore(a, False, "auto")
    if evaluation == "llm-judge" and judge is not None:
        return RunScore(judge, judge_is_heuristic, "llm-judge")
    if evaluation == "composite" and a is not None and judge is not None:
        return RunScore(AUTO_WEIGHT * a + JUDGE_WEIGHT * judge, judge_is_heuristic, "composite")
    if run.score is not None:
        # Judge scores, when present, are what the judged part rests on: the heuristic then played no part.
        return published_score(run.score, run.heuristic if j is None else None, evaluation, readings=readings)
    if run.status in ZERO_WHEN_UNSCORED:
        return RunScore(0.0, False, "timeout")
    return RunScore(None, False, "none")


def score_parts(run: RunInput, task: TaskInput) -> dict[str, Any] | None:
    """How one run's score is reached, part by part, for its page (`run_score`'s arithmetic, never another).

    `parts`: one row per part the score weighs, in order (tests, then the judge or the heuristic standing in
    for it), each {"part": "tests" | "judge" | "heuristic", "value" (0-1, None when missing), "weight",
    "points" (weight x value, None when missing), and what it rests on: "passed" / "total" (tests), "rate"
    (a published pass rate without counts), "mean" / "criteria" (judge, on the 1-10 scale), "raw" and
    "capped" (the heuristic before and after the 0.60 cap)}. `evaluation` is the type the score followed;
    `source` is `run_score`'s; `published` is the score published with the run when the score is that one
    (its parts are then shown for what they are, not summed), and `cap_taken` what the heuristic cap took off
    it. `score` is the run's score. None when the run has no score."""
    result = run_score(run, task)
    if result.score is None:
        return None
    a, j, h = auto_part(run), judge_part(run), heuristic_part(run)
    evaluation = {"auto": "auto", "llm-judge": "llm-judge", "composite": "composite"}.get(result.source)
    if evaluation is None:
        evaluation = task.evaluation if task.evaluation in ("auto", "llm-judge", "composite") else None
    weights = {"auto": (1.0, 0.0), "llm-judge": (0.0, 1.0), "composite": (AUTO_WEIGHT, JUDGE_WEIGHT)}
    auto_weight, judge_weight = weights.get(evaluation or "", (None, None))
    parts: list[dict[str, Any]] = []
    if evaluation in ("auto", "composite") or (evaluation is None and a is not None):
        tests: dict[str, Any] = {"part": "tests", "value": a, "weight": auto_weight}
        if run.tests_total and run.tests_passed is not None:
            tests.update(passed=run.tests_passed, total=run.tests_total)
        elif a is not None:
            tests["rate"] = a
        parts.append(tests)
    if evaluation in ("llm-judge", "composite") or (evaluation is None and (j is not None or h is not None)):
        if j is not None or h is None:
            mean = math.fsum(run.judge_scores) / len(run.judge_scores) if run.judge_scores else None
            parts.append(
                {"part": "judge", "value": j, "weight": judge_weight, "mean": mean, "criteria": len(run.judge_scores)}
            )
        else:
            parts.append({"part": "heuristic", "value": h, "weight": judge_weight, "raw": run.heuristic, "capped": h})
    for part in parts:
        part["points"] = None if part["value"] is None or part["weight"] is None else part["weight"] * part["value"]
    published = result.score if result.source == "published" else None
    cap_taken = None
    if published is not None and run.score is not None and run.score - published > TOLERANCE:
        cap_taken = run.score - published
    return {
        "score": result.score,
        "source": result.source,
        "evaluation": evaluation,
        "heuristic": result.heuristic,
        "parts": parts,
        "published": published,
        "published_as": run.score if published is not None else None,
        "cap_taken": cap_taken,
        "cap": HEURISTIC_CAP,
    }


def counts(run: RunInput, task: TaskInput) -> bool:
    """Whether a run goes into the board: a counted status, and a score (a run nothing scored is left out and
    listed as not scored, never counted as 0)."""
    return run.status in COUNTED and run_score(run, task).score is not None


def passes(score: float, threshold: float) -> bool:
    """Pass threshold: "An agent passes a task if its score >= 0.80" (benchmark param `pass_threshold`)."""
    return score >= threshold - TOLERANCE


def task_cell(
    task: TaskInput, runs: list[RunInput], threshold: float, *, readings: Readings = SITE
) -> ScoredCell | None:
    """One agent on one task: best score across trials, pass@k, trials, and every trial's score.

    "The leaderboard reports the best score across trials"; "pass@k = (trials where score >= 0.80) /
    total_trials". `heuristic` marks the cell when its best trial rests on a heuristic; ties on the best
    score prefer a non-heuristic trial, then the earlier trial.
    """
    trials = []
    for run in sorted(runs, key=run_sort_key):
        rs = run_score(run, task, readings=readings)
        if rs.score is None:
            continue
        trials.append((run, rs))
    if not trials:
        return None
    best_run, best = min(trials, key=lambda t: (-rank_value(t[1].score or 0.0), t[1].heuristic, run_sort_key(t[0])))
    assert best.score is not None
    passing = sum(1 for _, rs in trials if passes(rs.score or 0.0, threshold))
    return {
        "best": best.score,
        "best_run": best_run.id,
        "trials": len(trials),
        "passes": passing,
        "pass_at_k": passing / len(trials),
        "passed": passes(best.score, threshold),
        "heuristic": best.heuristic,
        "runs": [run.id for run, _ in trials],
        "scores": [
            {
                "run": run.id,
                "trial": run.trial,
                "status": run.status,
                "score": rs.score,
                "source": rs.source,
                "heuristic": rs.heuristic,
                "passed": passes(rs.score or 0.0, threshold),
                "published_score": run.score,
                "score_differs": run.score is not None
                and rs.score is not None
                and abs(rs.score - run.score) > TOLERANCE,
            }
            for run, rs in trials
        ],
    }


def round_mean(best_scores: list[float], task_count: int) -> float | None:
    """Mean of the best scores over `task_count` tasks, a task without a score counting 0 (so an agent that
    skips a task never gains from it); None when there are no tasks."""
    return math.fsum(best_scores) / task_count if task_count else None


def compute_scored_boards(round_input: RoundInput, *, readings: Readings = SITE) -> ScoredBoards:
    """The `scored` board of one round: {"overall": [rows], "meta": {...}}.

    A skipped task is not a free pass: agent `score` (also `overall`) = mean over the round's tasks of the best
    score, a task without a score counting 0 (as seed 003 counts a task without runs); `pass_rate` = tasks
    whose best passes / the round's tasks; `mean_pass_at_k` = the mean over the round's tasks of each task's
    pass@k, again 0 for a task without a score; `domains` = the same mean over each domain's tasks. `tested` and
    `of` say how many of the round's tasks have a score ("tested k of n"). An agent with no score on any task has
    none of these (None, ranked last): a result nobody scored is not a 0. Runs that nothing scored are left out
    and listed (`unscored`, and per task `unscored_tasks`), so the board can say "not scored".

    Cost and latency are means over the scored runs that report them, None when none does ("We treat missing
    data as None, never 0"). `runs_scored`, `cost_runs` and `latency_runs` count those runs; an axis reported
    on only some runs is listed in `partial_axes` ("cost on 3 of 10 runs": a mean of the reported runs may be
    the cheap ones). `meta` counts the agents missing each axis, wholly or partly ("n agents missing data on
    axis X"), and the partial ones apart. Ranked by score descending, blank last, equal scores sharing a rank.
    Under the other reading of "overall-mean" the score is the mean over the tasks the agent has a score on.
    """
    threshold = float(round_input.params.get("pass_threshold", DEFAULT_PASS_THRESHOLD))
    tasks = sorted(round_input.tasks, key=lambda t: t.key)
    by_cell: dict[tuple[str, str], list[RunInput]] = {}
    for r in effective_runs(round_input):
        if r.status in COUNTED:
            by_cell.setdefault((r.agent, r.task), []).append(r)
    rows = [
        agent_row(base_row(agent), tasks, by_cell, threshold, readings=readings)
        for agent in entered_agents(round_input)
    ]
    ranked = assign_ranks(rows, lambda r: desc_none_last(r["score"]), name_key)
    return {"overall": ranked, "meta": board_meta(ranked, threshold)}


def agent_row(
    row: BaseRow,
    tasks: list[TaskInput],
    by_cell: dict[tuple[str, str], list[RunInput]],
    threshold: float,
    *,
    readings: Readings = SITE,
) -> ScoredRow:
    """One agent's row of the scored board (see `compute_scored_boards`): `row` completed in place."""
    agent = row["agent"]
    cells: dict[str, ScoredCell] = {}
    unscored: dict[str, list[str]] = {}  # task key -> its runs without a score
    for task in tasks:
        task_runs = by_cell.get((agent, task.key), [])
        cell = task_cell(task, task_runs, threshold, readings=readings)
        if cell is not None:
            cells[task.key] = cell
        scored_ids = set(cell["runs"]) if cell else set()
        if missing := [r.id for r in task_runs if r.id not in scored_ids]:
            unscored[task.key] = missing
    mine = [r for t in tasks for r in by_cell.get((agent, t.key), [])]
    counted_runs = [r for r in mine if any(r.id in c["runs"] for c in cells.values())]
    domains: dict[str, list[float]] = {}
    for task in tasks:
        if task.domain is not None:
            domains.setdefault(task.domain, []).append(cells[task.key]["best"] if task.key in cells else 0.0)
    # Nothing scored is nothing measured: such a row is blank, not 0 (outcomes: "blank when nothing is tested").
    n = len(tasks) if cells else 0
    score = round_mean([c["best"] for c in cells.values()], score_tasks(n, len(cells), readings))
    out = cast(ScoredRow, row)  # the row's remaining keys are set here
    out.update(
        {
            "score": score,
            "overall": score,
            "pass_rate": sum(1 for c in cells.values() if c["passed"]) / n if n else None,
            "tested": len(cells),
            "of": len(tasks),
            "domains": {d: round_mean(v, len(v) if cells else 0) for d, v in sorted(domains.items())},
            "heuristic": any(c["heuristic"] for c in cells.values()),
            # 002 "pass@k": the share of passing trials per task, averaged over the round's tasks like the score,
            # a task without a score counting 0 (averaged over the tested tasks only, one lucky task would be 100%).
            "mean_pass_at_k": round_mean([c["pass_at_k"] for c in cells.values()], n),
            "cost_usd": mean_or_none(r.cost_usd for r in counted_runs),
            "wall_seconds": mean_or_none(r.wall_seconds for r in counted_runs),
            "first_output_seconds": mean_or_none(r.first_output_seconds for r in counted_runs),
            "runs_scored": len(counted_runs),
            "cost_runs": sum(1 for r in counted_runs if r.cost_usd is not None),
            "latency_runs": sum(1 for r in counted_runs if r.wall_seconds is not None),
            # Runs of a counted status that nothing scored (no tests, judge or score): left out, shown "not scored".
            "unscored": sorted(r for ids in unscored.values() for r in ids),
            "unscored_tasks": {k: len(ids) for k, ids in sorted(unscored.items())},
            "tasks": cells,
        }
    )
    out["partial_axes"] = [
        axis
        for axis, n in (("cost_usd", out["cost_runs"]), ("wall_seconds", out["latency_runs"]))
        if 0 < n < out["runs_scored"]
    ]
    return out


def score_tasks(round_tasks: int, tasks_with_score: int, readings: Readings = SITE) -> int:
    """How many tasks an agent's score is the mean over: the round's tasks, a task without a score counting 0;
    under the other reading of "overall-mean", only the tasks it has a score on."""
    return tasks_with_score if readings.takes(OVERALL_MEAN, "tasks-run") else round_tasks


def board_meta(ranked: list[ScoredRow], threshold: float) -> ScoredMeta:
    """ "surface 'n agents missing data on axis X'": agents missing each axis, wholly or partly."""
    return {
        "agents": len(ranked),
        "missing_cost": sum(1 for r in ranked if r["cost_usd"] is None or "cost_usd" in r["partial_axes"]),
        "missing_latency": sum(1 for r in ranked if r["wall_seconds"] is None or "wall_seconds" in r["partial_axes"]),
        "partial_cost": sum(1 for r in ranked if "cost_usd" in r["partial_axes"]),
        "partial_latency": sum(1 for r in ranked if "wall_seconds" in r["partial_axes"]),
        "pass_threshold": threshold,
    }


def interval_cells(
    round_input: RoundInput, boards: dict[str, Any], *, readings: Readings = SITE
) -> dict[tuple[str, str], tuple[list[float], bool]]:
    """The cells the score's interval resamples (`scoring.intervals`): each agent's best trial on each of the
    round's tasks, a task without a score counting 0 (not ran), as in `agent_row` (left out under the other
    reading of "overall-mean"). The best trial is taken as it is: the best of trials drawn again can only be
    lower, which would pull the interval below the board. An agent with no scored task has no score, and so no
    interval."""
    cells: dict[tuple[str, str], tuple[list[float], bool]] = {}
    skip_missing = readings.takes(OVERALL_MEAN, "tasks-run")
    for row in boards.get("overall") or []:
        if not row.get("tasks"):
            continue
        for task in round_input.tasks:
            cell = (row.get("tasks") or {}).get(task.key)
            if cell:
                cells[(row["agent"], task.key)] = ([cell["best"]], True)
            elif not skip_missing:
                cells[(row["agent"], task.key)] = ([0.0], False)
    return cells


def run_standings(round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
    """The standing of every run the board read (`effective_runs`), from the board's own cells: every scored
    trial counts with its score (pass@k reads them all), the best trial standing for its agent on the task
    ("The leaderboard reports the best score across trials"); a run of a counted status that nothing scored
    is not scored (listed, never a 0); a platform failure, region block, unsupported product or run that
    never started stays out by its status. Every run carries its own score by `run_score`."""
    cells = {(row["agent"], key): cell for row in boards.get("overall") or [] for key, cell in row["tasks"].items()}
    tasks = tasks_by_key(round_input)
    out: Standings = {}
    for run in effective_runs(round_input):
        score = run_score(run, tasks[run.task]).score
        cell = cells.get((run.agent, run.task))
        if run.status not in COUNTED:
            out[run.id] = by_status(run, score=score)
        elif cell is not None and run.id in cell["runs"]:
            out[run.id] = counted(stands=run.id == cell["best_run"], score=score)
        else:
            out[run.id] = standing(NOT_SCORED, why=NOT_SCORED_WHY, score=score)
    return out
