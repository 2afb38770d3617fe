"""95% intervals for a board's headline number, Rank (UB), and paired differences between two agents.

Seed 003: "One run is one sample ... When two agents' ranges overlap, the gap between them means little." This
module puts a number on that gap, the way "Adding Error Bars to Evals" (Miller, 2024) does for question sets:

* **The bootstrap.** One resample draws the round's tasks with replacement (the task is the clustering unit:
  runs of one task share its difficulty) and, where the methodology takes a statistic over several runs of
  a task (the median run of `checks`), draws each agent's runs of each drawn task with replacement too. The
  headline is then recomputed by the methodology's own rule from the resampled cells (mean of medians, a
  task without runs 0; mean of best trials; 5 x points / tested, floored at 0). Every agent sees the same
  drawn tasks in one resample, so the agents' numbers stay paired.
* **The interval.** ``ci_low`` / ``ci_high`` are the 2.5th and 97.5th percentiles of `ROUNDS` resamples,
  widened to include the board's own number when the percentiles miss it (a skewed bootstrap of very few
  tasks), so ``ci_low <= score <= ci_high`` always holds.
* **Rank (UB).** As LMArena defines it: 1 + the number of agents whose ``ci_low`` is above this agent's
  ``ci_high``. Agents whose intervals overlap share it.
* **Paired differences.** For every two agents, the mean over the tasks both ran of (A's task number - B's),
  with its 95% interval from the same resamples (paired bootstrap: both agents' numbers come from the same
  drawn tasks).
* **Families.** Where the round's tasks name a `family` (tasks made together, which share more than chance:
  a scenario, a fixture, a batch; AgentBench-Live's domains), one resample draws the families with
  replacement, then, inside each drawn family, as many of its tasks as it has, with replacement (a
  hierarchical bootstrap, as METR's time horizons and Miller 2024's clustered standard errors do). A task
  without a family is a family of its own. Without any family the draw is the flat one above, unchanged.
* **Determinism.** The generator is seeded with the constant `SEED`; agents are ordered by slug and tasks by
  key, so the same round always gives the same numbers, on the site and in `recount`.

A methodology says how its cells are read through an `IntervalRule` in its registry entry
(`scoring.methodologies`); nothing here knows a methodology's name. Pure: numpy only, no Django.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from .types import IntervalMarks, PairedDifference, Pairs, RoundInput

SEED = 20240717
ROUNDS = 1000
LEVEL = 95.0
# Resamples are drawn in blocks of about this many cells (resamples x tasks x agents x runs), so memory stays
# small on a large round and a small round is done in one block.
BLOCK_CELLS = 2_000_000

# The task numbers an agent has on a board: {(agent, task): (run values, ran)}. A cell left out is not in the
# agent's headline (a task in review, awaiting a re-run); `ran` false with values [0.0] is a task that counts
# as 0 because the agent has no result there.
Cells = dict[tuple[str, str], tuple[list[float], bool]]


@dataclass(frozen=True)
class IntervalRule:
    """How a methodology's headline is recomputed from resampled cells.

    `cells(round_input, boards)` reads the cells of the headline board; `board` names it. A cell's number is
    the lower median of its runs (`statistic="median"`, the checks rule) or their best (`"best"`); with
    `resample_runs` the runs of a cell are drawn again in every resample. The headline is
    `factor * mean(cell numbers)` over the agent's cells, floored at `floor` when one is given.
    """

    cells: Callable[[RoundInput, dict[str, Any]], Cells]
    board: str = "overall"
    statistic: str = "median"
    resample_runs: bool = True
    factor: float = 1.0
    floor: float | None = None


@dataclass
class _Grid:
    """Cells as arrays: values [T, A, R] (runs padded with nan), counts [T, A] (0: not in the headline),
    ran [T, A] (the agent has a result there)."""

    agents: list[str]
    tasks: list[str]
    values: NDArray[np.float64]
    counts: NDArray[np.int64]
    ran: NDArray[np.bool_]


def _grid(cells: Cells) -> _Grid:
    agents = sorted({a for a, _ in cells})
    tasks = sorted({t for _, t in cells})
    width = max((len(v) for v, _ in cells.values()), default=1) or 1
    values = np.full((len(tasks), len(agents), width), np.nan)
    counts = np.zeros((len(tasks), len(agents)), dtype=np.int64)
    ran = np.zeros((len(tasks), len(agents)), dtype=bool)
    a_index = {a: i for i, a in enumerate(agents)}
    t_index = {t: i for i, t in enumerate(tasks)}
    for (agent, task), (vals, did_run) in cells.items():
        ti, ai = t_index[task], a_index[agent]
        ordered = sorted(vals)
        values[ti, ai, : len(ordered)] = ordered
        counts[ti, ai] = len(ordered)
        ran[ti, ai] = did_run and bool(ordered)
    return _Grid(agents, tasks, values, counts, ran)


def _cell_stat(sorted_values: NDArray[np.float64], counts: NDArray[np.int64], statistic: str) -> NDArray[np.float64]:
    """The cell number from runs sorted ascending along the last axis (padding after them): the lower middle
    run ("With an even count we take the lower of the two middle runs") or the best."""
    safe = np.maximum(counts, 1)
    pick = (safe - 1) // 2 if statistic == "median" else safe - 1
    out = np.take_along_axis(sorted_values, pick[..., None], axis=-1)[..., 0]
    return np.where(counts > 0, out, np.nan)


def _order_cdf(width: int, statistic: str) -> NDArray[np.float64]:
    """cdf[n, j] = P(the run a resample of n runs puts in the cell is among the j + 1 lowest of them).

    With a cell's runs sorted, the lower median (or the best) of n runs drawn with replacement is the run whose
    position is that order statistic of the n drawn positions: the (m + 1)-th lowest of them, m = (n - 1) // 2
    (or n - 1), is at most j when at least m + 1 draws fall among the j + 1 lowest, a binomial tail with
    p = (j + 1) / n. Drawing that position directly is exact and needs one number per cell, not n plus a sort.
    """
    cdf = np.ones((width + 1, width))
    for n in range(1, width + 1):
        m = (n - 1) // 2 if statistic == "median" else n - 1
        for j in range(n):
            p = (j + 1) / n
            cdf[n, j] = math.fsum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(m + 1, n + 1))
    return cdf


def _with_gap(grid: _Grid) -> _Grid:
    """`grid` with one more task row that no agent has a number on: where a grouped draw has no task to put
    (a drawn family smaller than the largest), it points there, and the row counts for nobody."""
    n_tasks, n_agents, width = grid.values.shape
    values = np.concatenate([grid.values, np.full((1, n_agents, width), np.nan)])
    counts = np.concatenate([grid.counts, np.zeros((1, n_agents), dtype=np.int64)])
    ran = np.concatenate([grid.ran, np.zeros((1, n_agents), dtype=bool)])
    return _Grid(grid.agents, [*grid.tasks, ""], values, counts, ran)


class _FamilyDraw:
    """Draws of a round's tasks by family: families with replacement, then each drawn family's tasks with
    replacement, as many as it has. A draw is [n, families x largest family] task indices, the slots past a
    drawn family's size pointing at the gap row (`_with_gap`)."""

    def __init__(self, tasks: list[str], families: Mapping[str, str]) -> None:
        members: dict[str, list[int]] = {}
        for i, task in enumerate(tasks):
            members.setdefault(families.get(task) or f"\0{task}", []).append(i)
        groups = [members[k] for k in sorted(members)]
        width = max(len(g) for g in groups)
        self.gap = len(tasks)
        self.table = np.full((len(groups), width), self.gap, dtype=np.intp)
        for g, indices in enumerate(groups):
            self.table[g, : len(indices)] = indices
        self.sizes = np.array([len(g) for g in groups], dtype=np.intp)

    def __call__(self, rng: np.random.Generator, n: int) -> NDArray[np.intp]:
        n_groups, width = self.table.shape
        picked = rng.integers(0, n_groups, size=(n, n_groups))
        sizes = self.sizes[picked][..., None]  # [n, G, 1]
        within = np.floor(rng.random((n, n_groups, width)) * sizes).astype(np.intp)
        tasks = self.table[picked[..., None], within]
        return np.where(np.arange(width) < sizes, tasks, self.gap).reshape(n, n_groups * width)


def _resampled_cells(
    grid: _Grid, rule: IntervalRule, rng: np.random.Generator, n: int, draw: _FamilyDraw | None = None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Cell numbers of `n` resamples, [n, T, A] (nan: not in the headline), and whether the agent ran each
    drawn task: tasks drawn with replacement (by family when `draw` is given: then `grid` has its gap row),
    and runs within each drawn cell when the rule resamples runs (through `_order_cdf`)."""
    n_tasks, n_agents, width = grid.values.shape
    drawn = draw(rng, n) if draw is not None else rng.integers(0, n_tasks, size=(n, n_tasks))
    n_tasks = drawn.shape[1]
    if not rule.resample_runs or width == 1:
        return _cell_stat(grid.values, grid.counts, rule.statistic)[drawn], grid.ran[drawn]
    counts = grid.counts[drawn]  # [n, T, A]
    cdf = _order_cdf(width, rule.statistic)[counts]  # [n, T, A, W]
    position = (rng.random((n, n_tasks, n_agents))[..., None] > cdf).sum(axis=-1)
    flat = (drawn[..., None] * n_agents + np.arange(n_agents)) * width + np.minimum(position, width - 1)
    cells = grid.values.reshape(-1)[flat]
    return np.where(counts > 0, cells, np.nan), grid.ran[drawn]


def _headline(cells: NDArray[np.float64], rule: IntervalRule) -> NDArray[np.float64]:
    """The headline of every agent from cell numbers [..., T, A] (nan: not in the headline)."""
    present = ~np.isnan(cells)
    n = present.sum(axis=-2)
    total = np.where(present, cells, 0.0).sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = rule.factor * total / n
    if rule.floor is not None:
        out = np.maximum(out, rule.floor)
    return np.where(n > 0, out, np.nan)


def _paired_sums(cells: NDArray[np.float64], ran: NDArray[np.bool_]) -> tuple[NDArray, NDArray]:
    """Per resample, for every two agents (a, c): the sum over drawn tasks both ran of (a's number - c's),
    and how many such tasks, as [n, A, A] matrices (a matrix product, not a loop over pairs)."""
    x = np.where(ran, np.nan_to_num(cells), 0.0)
    mask = ran.astype(np.float64)
    p = np.swapaxes(x, 1, 2) @ mask  # [n, A, A]: sum over drawn tasks of x[a] * ran[c]
    shared = np.swapaxes(mask, 1, 2) @ mask
    return p - np.swapaxes(p, 1, 2), shared


@dataclass
class IntervalResult:
    """Per agent: point, ci_low, ci_high, rank_ub; per ordered pair of agents: [difference, low, high,
    shared tasks]."""

    agents: dict[str, IntervalMarks]
    pairs: Pairs


def _percentiles(samples: NDArray[np.float64], point: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
    """The 2.5th and 97.5th percentiles over the resamples (axis 0), widened to include `point`."""
    tail = (100.0 - LEVEL) / 2
    if not samples.size or not point.size:
        return point, point
    # nanpercentile is much slower than percentile: only when a resample left some agent without a cell.
    pct = np.nanpercentile if np.isnan(samples).any() else np.percentile
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-nan column (two agents never sharing a draw)
        lo, hi = pct(samples, [tail, 100.0 - tail], axis=0)
    return np.fmin(lo, point), np.fmax(hi, point)


def rank_ub(ci_low: dict[str, float | None], ci_high: dict[str, float | None]) -> dict[str, int | None]:
    """LMArena's Rank (UB): 1 + the number of agents whose lower bound is above this agent's upper bound.
    An agent without an interval has none."""
    lows = [v for v in ci_low.values() if v is not None]
    out: dict[str, int | None] = {}
    for agent, high in ci_high.items():
        out[agent] = None if high is None else 1 + sum(1 for low in lows if low > high)
    return out


def bootstrap(
    cells: Cells,
    rule: IntervalRule,
    rounds: int = ROUNDS,
    seed: int = SEED,
    families: Mapping[str, str] | None = None,
) -> IntervalResult:
    """The interval of every agent's headline and the paired differences of every two agents (module
    docstring), from `rounds` seeded resamples of `cells`; `families` ({task: family}) draws tasks by family."""
    grid = _grid(cells)
    if not grid.agents:
        return IntervalResult({}, {})
    draw = _FamilyDraw(grid.tasks, families) if families and any(families.get(t) for t in grid.tasks) else None
    sampled = _with_gap(grid) if draw is not None else grid
    observed = np.where(grid.counts > 0, _cell_stat(grid.values, grid.counts, rule.statistic), np.nan)
    point = _headline(observed, rule)
    rng = np.random.default_rng(seed)
    upper = np.triu_indices(len(grid.agents), 1)
    heads, diffs = [], []
    step = max(1, BLOCK_CELLS // grid.values.size)
    for start in range(0, rounds, step):
        block, ran = _resampled_cells(sampled, rule, rng, min(step, rounds - start), draw)
        heads.append(_headline(block, rule))
        sums, shared = _paired_sums(block, ran)
        with np.errstate(invalid="ignore", divide="ignore"):
            diffs.append((rule.factor * sums / np.where(shared > 0, shared, np.nan))[:, upper[0], upper[1]])
    low, high = _percentiles(np.concatenate(heads), point)
    agents: dict[str, IntervalMarks] = {}
    for i, agent in enumerate(grid.agents):
        ok = not np.isnan(point[i])
        agents[agent] = {
            "ci_low": float(low[i]) if ok else None,
            "ci_high": float(high[i]) if ok else None,
        }
    ranks = rank_ub({a: v["ci_low"] for a, v in agents.items()}, {a: v["ci_high"] for a, v in agents.items()})
    for agent, r in ranks.items():
        agents[agent]["rank_ub"] = r
    return IntervalResult(agents, _pairs(grid, observed, np.concatenate(diffs, axis=0), rule, upper))


def _pairs(
    grid: _Grid, observed: NDArray, diffs: NDArray, rule: IntervalRule, upper: tuple[NDArray, NDArray]
) -> dict[str, dict[str, list]]:
    """{a: {b: [difference a - b, low, high, shared tasks]}} for every a before b (by slug) that share a task;
    the difference b - a is its negation (`paired_difference`)."""
    ran = grid.ran.astype(np.float64)
    x = np.where(grid.ran, np.nan_to_num(observed), 0.0)
    shared = (ran.T @ ran)[upper]
    sums = (x.T @ ran - ran.T @ x)[upper]
    with np.errstate(invalid="ignore", divide="ignore"):
        point = rule.factor * sums / np.where(shared > 0, shared, np.nan)
    low, high = _percentiles(diffs, point)
    out: dict[str, dict[str, list]] = {}
    for k, (i, j) in enumerate(zip(*upper, strict=True)):
        if shared[k] > 0:
            row = out.setdefault(grid.agents[i], {})
            row[grid.agents[j]] = [float(point[k]), float(low[k]), float(high[k]), int(shared[k])]
    return out


def paired_difference(pairs: dict[str, Any] | None, a: str, b: str) -> PairedDifference | None:
    """The stored paired difference of a over b: {"difference", "ci_low", "ci_high", "tasks"}, or None when
    the two share no task."""
    pairs = pairs or {}
    if a < b:
        found = (pairs.get(a) or {}).get(b)
        if found is None:
            return None
        diff, low, high, n = found
    else:
        found = (pairs.get(b) or {}).get(a)
        if found is None:
            return None
        diff, high, low, n = found[0], -found[1], -found[2], found[3]
        diff = -diff
    return {"difference": diff, "ci_low": low, "ci_high": high, "tasks": n}


def tasks_both_ran(interval_tasks: dict[str, list[str]] | None, a: str, b: str) -> set[str] | None:
    """The tasks a paired difference of a and b is over: those both agents' cells ran (the stored
    "interval_tasks" of `with_intervals`, the same cells the pairs were counted from); None when the boards
    do not carry them."""
    if interval_tasks is None:
        return None
    return set(interval_tasks.get(a) or ()) & set(interval_tasks.get(b) or ())


def with_intervals(boards: Mapping[str, Any], round_input: RoundInput, rule: IntervalRule | None) -> dict[str, Any]:
    """`boards` with `ci_low`, `ci_high` and `rank_ub` on every row of the rule's board (None where an agent has
    no headline) and the paired differences under "pairs" (`paired_difference` reads them), and under
    "interval_tasks" the tasks each agent ran among those cells, by agent: a pair's difference is over the tasks
    both ran (`tasks_both_ran`), so a page listing them counts the same tasks as the pair. `boards` is a
    methodology's boards (`Methodology.compute_boards`), a plain dict at run time whatever its board type."""
    plain = cast(dict[str, Any], boards)
    if rule is None or not isinstance(plain.get(rule.board), list):
        return plain
    families = {t.key: t.family for t in round_input.tasks if t.family}
    cells = rule.cells(round_input, plain)
    result = bootstrap(cells, rule, families=families or None)
    for row in plain[rule.board]:
        found = result.agents.get(row["agent"]) or {}
        row["ci_low"] = found.get("ci_low")
        row["ci_high"] = found.get("ci_high")
        row["rank_ub"] = found.get("rank_ub")
    ran: dict[str, list[str]] = {}
    for (agent, task), (_, did_run) in sorted(cells.items()):
        if did_run:
            ran.setdefault(agent, []).append(task)
    return {**plain, "pairs": result.pairs, "interval_tasks": ran}
