"""The noise floor and the head-to-head power (scoring/noise.py), on numbers worked out by hand."""

from __future__ import annotations

import math

import pytest

from scoring.intervals import IntervalRule
from scoring.noise import Z_POWER, head_to_head_power, noise_floor, pair_spreads


def rule(factor=1.0):
    return IntervalRule(cells=lambda r, b: {}, statistic="best", resample_runs=False, factor=factor)


CELLS = {
    ("a", "t1"): ([1.0, 3.0], True),  # best trial 3
    ("a", "t2"): ([2.0], True),
    ("a", "t3"): ([4.0], True),
    ("b", "t1"): ([1.0], True),
    ("b", "t2"): ([2.0], True),
    ("b", "t3"): ([1.0], True),
    ("c", "t1"): ([0.0], True),  # c ran only t1: one task shared with a and with b
}


def test_the_spread_of_a_pair_is_the_sample_sd_of_its_per_task_differences():
    # a - b per task: 3 - 1 = 2, 2 - 2 = 0, 4 - 1 = 3; mean 5/3; squared deviations 1/9 + 25/9 + 16/9 = 42/9,
    # over n - 1 = 2: 7/3; sd = sqrt(7/3) = 1.5275. In a board of factor 5: 5 * sqrt(7/3).
    out = pair_spreads(CELLS, rule())
    assert out["a"]["b"] == pytest.approx(math.sqrt(7 / 3))
    assert pair_spreads(CELLS, rule(5.0))["a"]["b"] == pytest.approx(5 * math.sqrt(7 / 3))
    # One shared task has no spread.
    assert out["a"]["c"] is None and out["b"]["c"] is None


def test_the_noise_floor_is_the_median_half_width():
    # Half-widths (high - low) / 2: (3 - 1) / 2 = 1, (5 - -1) / 2 = 3, (1 - 0) / 2 = 0.5; median of 0.5, 1, 3: 1.
    pairs = {"a": {"b": [2.0, 1.0, 3.0, 3], "c": [2.0, -1.0, 5.0, 1]}, "b": {"c": [0.5, 0.0, 1.0, 1]}}
    out = noise_floor(pairs, {})
    assert out["pairs"] == 3 and out["floor"] == pytest.approx(1.0)
    assert noise_floor({}, {})["floor"] is None


def diff(d, low, high, n):
    return {"difference": d, "ci_low": low, "ci_high": high, "tasks": n}


def test_power_of_a_head_to_head_worked_by_hand():
    # z = z_0.975 + z_0.8 = 1.959964 + 0.841621 = 2.801585.
    assert Z_POWER == pytest.approx(2.801585, abs=1e-6)
    # d = 2, sd = 4 over n = 16 tasks, interval (-0.5, 4.5) covers 0: not apart.
    # detectable = 2.801585 * 4 / sqrt(16) = 2.801585; needed = ceil((2.801585 * 4 / 2)^2) = ceil(5.60317^2)
    # = ceil(31.3955) = 32 tasks.
    out = head_to_head_power(diff(2.0, -0.5, 4.5, 16), 4.0)
    assert out == {"apart": False, "detectable": pytest.approx(2.801585, abs=1e-6), "tasks_needed": 32}


def test_apart_when_the_interval_excludes_zero_either_way():
    assert head_to_head_power(diff(2.0, 0.5, 3.5, 16), 4.0)["apart"] is True
    assert head_to_head_power(diff(-2.0, -3.5, -0.5, 16), 4.0)["apart"] is True


def test_no_difference_needs_no_finite_number_of_tasks_and_no_spread_one():
    assert head_to_head_power(diff(0.0, -1.0, 1.0, 4), 2.0)["tasks_needed"] is None
    # sd 0 and d 1: (z * 0 / 1)^2 = 0, at least 1 task.
    assert head_to_head_power(diff(1.0, 1.0, 1.0, 4), 0.0)["tasks_needed"] == 1
    assert head_to_head_power(diff(1.0, 0.0, 2.0, 1), None) == {
        "apart": False,
        "detectable": None,
        "tasks_needed": None,
    }
    assert head_to_head_power(None, 1.0) is None
