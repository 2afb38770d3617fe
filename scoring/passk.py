"""pass^k and any-of-k over a task set whose tasks have several trials (τ-bench's reliability figure).

For one task with n counted trials and c successes, and 1 <= k <= n: pass^k = C(c, k) / C(n, k) (all k of k
trials drawn succeed), any-of-k = 1 - C(n - c, k) / C(n, k) (at least one succeeds: the unbiased estimate some
papers call pass@k; here pass@k is 002's alone, the share of an agent's trials of a task that pass,
`scored.task_cell`). A family's figure is the mean
over the family's OWN task set (the round's tasks): a task with no counted run gives 0, so leaving a task out
never raises a figure. k runs from 1 to the smallest trial count among the tasks with runs (τ²'s cap); past it
a figure is None, not computable.

A run is counted when it is not an infrastructure error and has a score (an unscored run is left out, as the
scored methodology leaves it out). The score is the run's own unless a `score_of` is given: the boards give the
scored methodology's run score (tests passed / total, the judge, the composite), so a board whose runs carry test
counts instead of a stored score has its pass^k too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from math import comb
from typing import Any

from .scored import DEFAULT_PASS_THRESHOLD, passes
from .types import RunInput, TaskInput

INFRA_STATUS = "infra_error"


def pass_hat(n: int, c: int, k: int) -> float | None:
    """pass^k of one task: all k of k trials drawn from its n succeed (c successes); None when k > n."""
    if k < 1 or k > n:
        return None
    return comb(c, k) / comb(n, k)


def pass_any(n: int, c: int, k: int) -> float | None:
    """any-of-k of one task (unbiased): at least one of k trials drawn from its n succeeds; None when k > n."""
    if k < 1 or k > n:
        return None
    return 1 - comb(n - c, k) / comb(n, k)


ScoreOf = Callable[[RunInput], float | None]


def own_score(run: RunInput) -> float | None:
    return run.score


def is_counted(run: RunInput, score_of: ScoreOf = own_score) -> bool:
    return run.status != INFRA_STATUS and score_of(run) is not None


def trial_counts(
    task_keys: Iterable[str],
    runs: Iterable[RunInput],
    success: Callable[[float], bool],
    score_of: ScoreOf = own_score,
) -> dict[str, tuple[int, int]]:
    """(n counted trials, c successes) per task of `task_keys` that has counted runs."""
    wanted = set(task_keys)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for run in runs:
        score = score_of(run) if run.task in wanted and run.status != INFRA_STATUS else None
        if score is not None:
            counts[run.task][0] += 1
            counts[run.task][1] += int(success(score))
    return {key: (n, c) for key, (n, c) in counts.items()}


def mean_over_tasks(
    own: list[str], counts: dict[str, tuple[int, int]], k: int, per_task: Callable[[int, int, int], float | None]
) -> float | None:
    """The mean of `per_task` over the own task set, a task without runs giving 0; None past the cap (k larger
    than the smallest trial count among tasks with runs) or without any run."""
    if not own or not counts or k > min(n for n, _ in counts.values()):
        return None
    return sum(per_task(*counts[key], k) or 0.0 if key in counts else 0.0 for key in own) / len(own)


def family_figures(
    tasks: Iterable[TaskInput],
    runs: Iterable[RunInput],
    success: Callable[[float], bool],
    score_of: ScoreOf = own_score,
) -> dict[str, dict[str, Any]]:
    """Per family (a task without one is its own family, named by its key): "pass^k" and "any-of-k" ({k: value}
    for k = 1..min trials), "cost" (mean cost_usd of the counted runs that carry one), "tasks" (the own set's
    size), "tested" (tasks with counted runs) and "min_trials" (0 without runs)."""
    runs = list(runs)
    families: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        families[task.family or task.key].append(task.key)
    out: dict[str, dict[str, Any]] = {}
    for family, own in families.items():
        counts = trial_counts(own, runs, success, score_of)
        top = min((n for n, _ in counts.values()), default=0)
        costs = [r.cost_usd for r in runs if r.task in counts and is_counted(r, score_of) and r.cost_usd is not None]
        out[family] = {
            "pass^k": {k: mean_over_tasks(own, counts, k, pass_hat) for k in range(1, top + 1)},
            "any-of-k": {k: mean_over_tasks(own, counts, k, pass_any) for k in range(1, top + 1)},
            "cost": sum(costs) / len(costs) if costs else None,
            "tasks": len(own),
            "tested": len(counts),
            "min_trials": top,
        }
    return out


def threshold_success(params: dict[str, Any]) -> Callable[[float], bool]:
    """A trial's success as the scored boards count a pass (the benchmark's `pass_threshold`): the one rule
    for the boards' pass^k columns and a submission's recomputed figures."""
    threshold = float(params.get("pass_threshold", DEFAULT_PASS_THRESHOLD))
    return lambda score: passes(score, threshold)
