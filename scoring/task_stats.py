"""Which tasks separate agents, and how much the ranking depends on which tasks were drawn.

Read from each agent's number on each task (`Methodology.task_numbers`: the points of the counted run, the best
trial, the median run), over the agents of the round's board:

* **Per task**: `agents` (how many have a number there), `mean` (their mean number), `pass_share` (the share
  whose outcome is a pass, on methodologies that count outcomes; else None), `spread` (the standard deviation
  of the numbers across those agents, population: divided by n) and `discrimination`: the Pearson correlation
  between the agents' numbers on the task and their mean on every other task (their overall without that
  task). None with fewer than 3 agents, or when either side is the same for every agent.
* **Flags**: "no_separation" when every agent has the same number on the task (the task tells no agent apart);
  "wrong_way" when the discrimination is negative (agents better elsewhere do worse here: a broken or
  ambiguous task, or one that rewards something the rest does not).
* **Split-half reliability** (per round): the tasks are split into two halves (floor(T/2) and the rest), each
  agent's mean is taken over each half, and the two rankings are compared with Spearman's rank correlation
  (average ranks for ties); the mean over `SPLITS` seeded random splits (every distinct split, each once,
  when there are no more than that) is corrected to the full length with Spearman-Brown, 2r / (1 + r). A
  split where either half ranks every agent equal is left out. Near 1: the ranking would mostly hold on a
  different half of the tasks.

Pure: numpy and scipy only, seeded with the constant `SEED`; agents and tasks are read in sorted order.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator, Mapping
from typing import TypedDict

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

SEED = 20240717
SPLITS = 200
# Below this a correlation is 0 written in floating point, not a task that separates the wrong way.
TOLERANCE = 1e-12


class TaskStat(TypedDict):
    task: str
    agents: int
    mean: float | None
    pass_share: float | None
    spread: float | None
    discrimination: float | None
    flag: str | None  # "no_separation", "wrong_way" or None


class SplitHalf(TypedDict):
    tasks: int
    splits: int  # splits drawn (or every distinct split)
    used: int  # splits where both halves told some agents apart
    half_spearman: float | None  # mean Spearman correlation between the two halves' rankings
    reliability: float | None  # Spearman-Brown corrected: 2r / (1 + r)


class TaskStatistics(TypedDict):
    tasks: list[TaskStat]
    split_half: SplitHalf


def _correlation(x: NDArray[np.float64], y: NDArray[np.float64]) -> float | None:
    """Pearson's r of two equal-length vectors; None with fewer than 3 points or a constant side."""
    if len(x) < 3:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    sxx, syy = float(dx @ dx), float(dy @ dy)
    if sxx <= TOLERANCE or syy <= TOLERANCE:
        return None
    return float(dx @ dy) / math.sqrt(sxx * syy)


def _task_stat(key: str, j: int, grid: NDArray[np.float64], passed: list[bool | None]) -> TaskStat:
    """The figures of task `j` (column of `grid`, agents x tasks, nan where an agent has no number)."""
    has = ~np.isnan(grid[:, j])
    others = np.delete(grid, j, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an agent with no other task: nan, left out
        rest = np.nanmean(others, axis=1) if others.shape[1] else np.full(len(grid), np.nan)
    both = has & ~np.isnan(rest)
    values = grid[has, j]
    shares = [p for p, h in zip(passed, has, strict=True) if h and p is not None]
    same = len(values) >= 2 and float(values.max() - values.min()) <= TOLERANCE
    discrimination = _correlation(grid[both, j], rest[both])
    flag = "no_separation" if same else ("wrong_way" if discrimination is not None and discrimination < 0 else None)
    return {
        "task": key,
        "agents": int(has.sum()),
        "mean": float(values.mean()) if len(values) else None,
        "pass_share": sum(shares) / len(shares) if shares else None,
        "spread": float(values.std()) if len(values) else None,
        "discrimination": discrimination,
        "flag": flag,
    }


def _splits(n_tasks: int, splits: int, seed: int) -> Iterator[NDArray[np.int64]]:
    """The first half of each split: every distinct split once when there are at most `splits` of them,
    else `splits` seeded random ones."""
    size = n_tasks // 2
    distinct = math.comb(n_tasks, size) // (2 if n_tasks == 2 * size else 1)
    if distinct <= splits:
        for half in itertools.combinations(range(n_tasks), size):
            if n_tasks == 2 * size and 0 not in half:
                continue  # an even split and its mirror are one split
            yield np.array(half, dtype=np.int64)
        return
    rng = np.random.default_rng(seed)
    for _ in range(splits):
        yield rng.permutation(n_tasks)[:size]


def split_half(grid: NDArray[np.float64], splits: int = SPLITS, seed: int = SEED) -> SplitHalf:
    """Split-half reliability of the ranking by mean number (module docstring)."""
    n_agents, n_tasks = grid.shape
    rhos: list[float] = []
    drawn = 0
    if n_tasks >= 2 and n_agents >= 3:
        for first in _splits(n_tasks, splits, seed):
            drawn += 1
            mask = np.zeros(n_tasks, dtype=bool)
            mask[first] = True
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an agent with no task in a half: nan
                a, b = np.nanmean(grid[:, mask], axis=1), np.nanmean(grid[:, ~mask], axis=1)
            keep = ~np.isnan(a) & ~np.isnan(b)
            rho = _correlation(rankdata(a[keep]), rankdata(b[keep]))
            if rho is not None:
                rhos.append(rho)
    r = math.fsum(rhos) / len(rhos) if rhos else None
    reliability = 2 * r / (1 + r) if r is not None and r > -1 else None
    return {"tasks": n_tasks, "splits": drawn, "used": len(rhos), "half_spearman": r, "reliability": reliability}


def task_statistics(
    numbers: Mapping[str, Mapping[str, float | None]],
    passes: Mapping[str, Mapping[str, bool | None]] | None = None,
    splits: int = SPLITS,
    seed: int = SEED,
) -> TaskStatistics:
    """The figures of every task and the split-half reliability of one round, from `numbers[agent][task]` (None
    or absent: the agent has no number there) and, where outcomes are counted, `passes[agent][task]`."""
    agents = sorted(a for a, row in numbers.items() if any(v is not None for v in row.values()))
    tasks = sorted({t for a in agents for t, v in numbers[a].items() if v is not None})
    grid = np.full((len(agents), len(tasks)), np.nan)
    for i, agent in enumerate(agents):
        for j, task in enumerate(tasks):
            value = numbers[agent].get(task)
            if value is not None:
                grid[i, j] = float(value)
    stats = []
    for j, task in enumerate(tasks):
        passed = [(passes or {}).get(a, {}).get(task) if passes is not None else None for a in agents]
        stats.append(_task_stat(task, j, grid, passed))
    return {"tasks": stats, "split_half": split_half(grid, splits, seed)}
