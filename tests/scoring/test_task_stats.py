"""Which tasks separate agents: per-task figures, discrimination, flags and split-half reliability."""

import math

import numpy as np
import pytest

from scoring.task_stats import split_half, task_statistics

# The hand-built round: 4 agents x 3 tasks, outcome points (pass 2, partial 1, fail 0).
#          t1  t2  t3
#   a       0   1   1
#   b       0   1   0
#   c       1   2   0
#   d       1   2   0
NUMBERS = {
    "a": {"t1": 0, "t2": 1, "t3": 1},
    "b": {"t1": 0, "t2": 1, "t3": 0},
    "c": {"t1": 1, "t2": 2, "t3": 0},
    "d": {"t1": 1, "t2": 2, "t3": 0},
}
PASSES = {a: {t: v == 2 for t, v in row.items()} for a, row in NUMBERS.items()}
ROOT3 = math.sqrt(3)


def by_task(stats):
    return {s["task"]: s for s in stats["tasks"]}


def test_the_four_agent_three_task_round_by_hand():
    stats = by_task(task_statistics(NUMBERS, PASSES))
    # t1: values 0, 0, 1, 1 (mean 0.5, deviations -.5 -.5 .5 .5, spread sqrt(4 * .25 / 4) = 0.5).
    #   Rest = mean of t2 and t3: a (1+1)/2 = 1, b (1+0)/2 = .5, c (2+0)/2 = 1, d 1; mean .875,
    #   deviations .125, -.375, .125, .125. Sum of products:
    #   (-.5)(.125) + (-.5)(-.375) + (.5)(.125) + (.5)(.125) = -.0625 + .1875 + .0625 + .0625 = .25.
    #   Sums of squares: 4 * .25 = 1 and .015625 * 3 + .140625 = .1875. r = .25 / sqrt(1 * .1875) = 1 / sqrt(3).
    assert stats["t1"]["mean"] == 0.5
    assert stats["t1"]["spread"] == 0.5
    assert stats["t1"]["pass_share"] == 0.0
    assert stats["t1"]["discrimination"] == pytest.approx(1 / ROOT3)
    assert stats["t1"]["flag"] is None
    # t2: values 1, 1, 2, 2 (mean 1.5, spread .5); pass share 2 / 4 = .5.
    #   Rest = mean of t1 and t3: a .5, b 0, c .5, d .5: the shape of t1's rest shifted by -.5, so r = 1/sqrt(3).
    assert stats["t2"]["mean"] == 1.5
    assert stats["t2"]["spread"] == 0.5
    assert stats["t2"]["pass_share"] == 0.5
    assert stats["t2"]["discrimination"] == pytest.approx(1 / ROOT3)
    # t3: values 1, 0, 0, 0 (mean .25, deviations .75 -.25 -.25 -.25, spread sqrt(.75 / 4) = sqrt(3) / 4).
    #   Rest = mean of t1 and t2: a .5, b .5, c 1.5, d 1.5; mean 1, deviations -.5 -.5 .5 .5.
    #   Sum of products: -.375 + .125 - .125 - .125 = -.5; sums of squares .5625 + 3 * .0625 = .75 and 1.
    #   r = -.5 / sqrt(.75) = -1 / sqrt(3): the agents better elsewhere do worse here.
    assert stats["t3"]["mean"] == 0.25
    assert stats["t3"]["spread"] == pytest.approx(ROOT3 / 4)
    assert stats["t3"]["discrimination"] == pytest.approx(-1 / ROOT3)
    assert stats["t3"]["flag"] == "wrong_way"


def test_the_split_half_reliability_of_the_round_by_hand():
    half = task_statistics(NUMBERS, PASSES)["split_half"]
    # Three tasks split 1 | 2: three distinct splits, each taken once (fewer than 200).
    # {t1} | {t2, t3}: t1 ranks 1.5 1.5 3.5 3.5; rest 1, .5, 1, 1 ranks 3 1 3 3.
    #   Deviations from 2.5: -1 -1 1 1 and .5 -1.5 .5 .5; products -.5 + 1.5 + .5 + .5 = 2;
    #   squares 4 and 3; rho = 2 / sqrt(12) = 1 / sqrt(3).
    # {t2} | {t1, t3}: t2 ranks 1.5 1.5 3.5 3.5; rest .5 0 .5 .5 ranks 3 1 3 3: the same, 1 / sqrt(3).
    # {t3} | {t1, t2}: t3 ranks 4 2 2 2; rest .5 .5 1.5 1.5 ranks 1.5 1.5 3.5 3.5.
    #   Deviations 1.5 -.5 -.5 -.5 and -1 -1 1 1; products -1.5 + .5 - .5 - .5 = -2; squares 3 and 4;
    #   rho = -2 / sqrt(12) = -1 / sqrt(3).
    # Mean r = (1 + 1 - 1) / (3 sqrt(3)) = 1 / (3 sqrt(3)); Spearman-Brown 2r / (1 + r) = 2 / (3 sqrt(3) + 1).
    assert half["tasks"] == 3 and half["splits"] == 3 and half["used"] == 3
    assert half["half_spearman"] == pytest.approx(1 / (3 * ROOT3))
    assert half["reliability"] == pytest.approx(2 / (3 * ROOT3 + 1))


def test_a_task_every_agent_does_equally_does_not_separate():
    numbers = {a: {**row, "same": 2} for a, row in NUMBERS.items()}
    stats = by_task(task_statistics(numbers))
    assert stats["same"]["flag"] == "no_separation"
    assert stats["same"]["spread"] == 0.0
    assert stats["same"]["discrimination"] is None
    assert stats["same"]["pass_share"] is None  # no outcomes given


def test_an_agent_without_a_number_is_left_out_of_that_task():
    numbers = {**NUMBERS, "e": {"t1": 1, "t2": None}}
    stats = by_task(task_statistics(numbers))
    assert stats["t1"]["agents"] == 5 and stats["t2"]["agents"] == 4 and stats["t3"]["agents"] == 4


def test_an_agreeing_round_is_fully_reliable_and_random_splits_are_seeded():
    # Ten tasks, every one ranking a < b < c < d: every split gives rho 1, so r = 1 and 2 * 1 / (1 + 1) = 1.
    numbers = {a: {f"t{j}": float(i + j) for j in range(10)} for i, a in enumerate("abcd")}
    half = task_statistics(numbers)["split_half"]
    # C(10, 5) / 2 = 126 distinct splits: every one once.
    assert half["splits"] == 126 and half["reliability"] == pytest.approx(1.0)
    # Fourteen tasks: C(14, 7) / 2 = 1716 splits, more than 200, so 200 seeded random ones, the same each time.
    wide = {a: {f"t{j}": float((i * j) % 5) for j in range(14)} for i, a in enumerate("abcde")}
    first, again = task_statistics(wide)["split_half"], task_statistics(wide)["split_half"]
    assert first["splits"] == 200 and first == again


def test_too_few_agents_or_tasks_give_no_reliability():
    assert split_half(np.array([[1.0, 2.0], [2.0, 1.0]]))["reliability"] is None  # two agents
    assert split_half(np.array([[1.0], [2.0], [3.0]]))["reliability"] is None  # one task
    assert task_statistics({})["tasks"] == []
