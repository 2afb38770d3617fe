"""The noise floor of a board and the power of a head-to-head (issue #30, section 1).

Users of the best-known leaderboards measured 5-11 points between identical runs. This module says how big a
gap must be before it means anything on a board with intervals (`scoring.intervals`), and for two agents how
many tasks it would take to tell them apart, the way "Adding Error Bars to Evals" (Miller, 2024) does its
power analysis.

* **Noise floor.** ``floor`` is the median, over every two agents of the round that share a task, of the
  half-width of their paired difference's 95% interval ((high - low) / 2, `intervals.bootstrap`), in the
  board's own units: "two agents must differ by about X before the gap means anything here".
* **Per-pair spread.** For every two agents, ``sd`` is the standard deviation (n - 1 in the denominator) of
  their per-task differences over the tasks both ran, each task's number read by the methodology's interval
  rule (the lower median run, or the best) and scaled by its factor, so it is in the board's units; null
  with fewer than 2 shared tasks.
* **Power (`head_to_head_power`).** With z = z_0.975 + z_0.8 (1.959964 + 0.841621 = 2.801585), the smallest
  difference a round of n shared tasks detects at 80% power is ``detectable = z * sd / sqrt(n)``, and the
  tasks needed to detect the observed difference d are ``tasks_needed = ceil((z * sd / |d|)^2)``
  (Miller 2024, the paired case). ``apart`` is true when the pair's 95% interval excludes 0, and then
  nothing more is needed. ``tasks_needed`` is null when d is 0 (no number of tasks detects no difference) or
  sd is unknown; 0 spread with a non-zero difference needs 1 task.

Pure: numpy and scipy, no Django; nothing random (the intervals it reads are seeded).
"""

from __future__ import annotations

import math
from statistics import median
from typing import TypedDict

import numpy as np
from scipy.stats import norm

from .intervals import Cells, IntervalRule, _cell_stat, _grid
from .types import PairedDifference

__all__ = ["Z_POWER", "head_to_head_power", "noise_floor", "pair_spreads"]

# z_0.975 + z_0.8: a two-sided 5% test with 80% power.
Z_POWER = float(norm.ppf(0.975) + norm.ppf(0.8))


def pair_spreads(cells: Cells, rule: IntervalRule) -> dict[str, dict[str, float | None]]:
    """{a: {b: sd}} for every a before b (by slug) that share a task: the standard deviation of a's task
    numbers minus b's over the tasks both ran, in the board's units (null with one shared task)."""
    grid = _grid(cells)
    observed = np.where(grid.counts > 0, _cell_stat(grid.values, grid.counts, rule.statistic), np.nan)
    x = np.where(grid.ran, np.nan_to_num(observed), 0.0) * rule.factor
    out: dict[str, dict[str, float | None]] = {}
    for i, a in enumerate(grid.agents):
        for j in range(i + 1, len(grid.agents)):
            both = grid.ran[:, i] & grid.ran[:, j]
            if not both.any():
                continue
            diffs = x[both, i] - x[both, j]
            out.setdefault(a, {})[grid.agents[j]] = float(np.std(diffs, ddof=1)) if len(diffs) >= 2 else None
    return out


class NoiseFloor(TypedDict):
    pairs: int  # the pairs of agents read
    floor: float | None  # the median half-width of their paired 95% intervals; None without a pair
    sd: dict[str, dict[str, float | None]]  # each pair's spread of per-task differences, lower key first


class Power(TypedDict):
    apart: bool  # the paired interval leaves out 0
    detectable: float | None  # the smallest difference the round's tasks could detect
    tasks_needed: int | None  # the tasks it would take to detect the observed difference


def noise_floor(pairs: dict[str, dict[str, list]], spreads: dict[str, dict[str, float | None]]) -> NoiseFloor:
    """``{"pairs", "floor", "sd"}``: how many pairs were read, the median half-width of their 95% intervals
    (null without a pair) and the per-pair spreads (`pair_spreads`)."""
    halves = [(high - low) / 2 for row in pairs.values() for _, low, high, _ in row.values()]
    return {"pairs": len(halves), "floor": median(halves) if halves else None, "sd": spreads}


def head_to_head_power(diff: PairedDifference | None, sd: float | None) -> Power | None:
    """``{"apart", "detectable", "tasks_needed"}`` for a pair's paired difference and spread (module
    docstring); None without a paired difference."""
    if diff is None:
        return None
    d, low, high, n = diff["difference"], diff["ci_low"], diff["ci_high"], diff["tasks"]
    apart = low > 0 or high < 0
    detectable = Z_POWER * sd / math.sqrt(n) if sd is not None and n > 0 else None
    needed: int | None = None
    if sd is not None and d != 0:
        needed = max(1, math.ceil((Z_POWER * sd / abs(d)) ** 2))
    return {"apart": apart, "detectable": detectable, "tasks_needed": needed}
