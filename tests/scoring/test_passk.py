"""pass^k and unbiased any-of-k over a family's own task set (τ-bench's reliability figure)."""

from fractions import Fraction

import pytest

from scoring.passk import family_figures, pass_any, pass_hat
from scoring.tau2 import success
from tests.builders.scoring import make_run, make_task


def _runs(task: str, outcomes: list[float | None], *, infra: int = 0):
    runs = [make_run("a", task, trial=i + 1, score=s) for i, s in enumerate(outcomes)]
    runs += [make_run("a", task, trial=90 + i, status="infra_error", score=0.0) for i in range(infra)]
    return runs


def test_pass_hat_and_pass_any_worked_example():
    # Tasks A (n=4, c=4) and B (n=4, c=2), averaged:
    # pass^k = (1 + C(2,k)/C(4,k)) / 2, any-of-k = (1 + 1 - C(2,k)/C(4,k)) / 2.
    # k=1: (1 + 2/4)/2 = 3/4 both; k=2: (1 + 1/6)/2 = 7/12, (1 + 5/6)/2 = 11/12; k=3,4: pass^k 1/2, any-of-k 1.
    tasks = [make_task("A", family="f"), make_task("B", family="f")]
    runs = _runs("A", [1.0] * 4) + _runs("B", [1.0, 1.0, 0.0, 0.0])
    fam = family_figures(tasks, runs, success)["f"]
    assert fam["pass^k"] == pytest.approx({1: 0.75, 2: float(Fraction(7, 12)), 3: 0.5, 4: 0.5}, abs=1e-12)
    assert fam["any-of-k"] == pytest.approx({1: 0.75, 2: float(Fraction(11, 12)), 3: 1.0, 4: 1.0}, abs=1e-12)
    assert (fam["tasks"], fam["tested"], fam["min_trials"]) == (2, 2, 4)
    assert pass_hat(4, 2, 5) is None and pass_any(4, 2, 5) is None


def test_missing_task_counts_as_failure_over_own_set():
    # A third own task C without runs gives 0: pass^1 = (1 + 1/2 + 0)/3 = 1/2; pass^2 = (1 + 1/6 + 0)/3 = 7/18.
    tasks = [make_task(k, family="f") for k in "ABC"]
    runs = _runs("A", [1.0] * 4) + _runs("B", [1.0, 1.0, 0.0, 0.0])
    fam = family_figures(tasks, runs, success)["f"]
    assert fam["pass^k"][1] == 0.5
    assert abs(fam["pass^k"][2] - 7 / 18) < 1e-12
    assert (fam["tasks"], fam["tested"]) == (3, 2)


def test_infra_error_left_out_and_caps_k():
    # B has 3 counted trials (1 infra error left out): k is capped at 3, pass^4 is not computable.
    # pass^3 = (1 + C(2,3)/C(3,3)) / 2 = 1/2; pass^1 = (1 + 2/3) / 2 = 5/6.
    tasks = [make_task("A", family="f"), make_task("B", family="f")]
    runs = _runs("A", [1.0] * 4) + _runs("B", [1.0, 1.0, 0.0], infra=1)
    fam = family_figures(tasks, runs, success)["f"]
    assert sorted(fam["pass^k"]) == [1, 2, 3]
    assert abs(fam["pass^k"][1] - 5 / 6) < 1e-12 and fam["pass^k"][3] == 0.5
    assert fam["min_trials"] == 3


def test_success_is_reward_one_within_a_millionth():
    assert success(1.0) and success(1 - 1e-7) and not success(1 - 1e-5) and not success(None) and not success(0.0)
