"""Review agreement (seed 000 §5): second reviews, agreement, Cohen's kappa, third reviews, worst tasks."""

import pytest

from scoring.agreement import cohen_kappa, review_agreement
from scoring.outcomes import violation_possible
from tests.builders.scoring import make_round, make_run, make_task, verdicts

# The hand-built table: run, task, tester, second, third.
TABLE = [
    ("t3", "pass", "pass", None),
    ("t3", "pass", "pass", None),
    ("t3", "pass", "pass", None),
    ("t1", "pass", "partial", "pass"),
    ("t1", "partial", "partial", None),
    ("t1", "partial", "fail", "partial"),
    ("t2", "fail", "fail", None),
    ("t2", "fail", "fail", None),
    ("t2", "fail", "pass", None),  # a disagreement still waiting for its third reviewer
    ("t3", "pass", "pass", None),
]


def table_round(rows, tasks=("t1", "t2", "t3"), kind="core"):
    runs = [
        make_run(f"a{i}", task, verdicts=verdicts(tester, second, third))
        for i, (task, tester, second, third) in enumerate(rows)
    ]
    return make_round("outcomes", [make_task(t, kind=kind) for t in tasks], runs)


def test_the_ten_run_table_by_hand():
    stats = review_agreement(table_round(TABLE), violation_possible)
    # Run 9 disagrees and waits for its third reviewer: its review is not complete, so it is counted only as in
    # review (the figures must not tell the tester the second disagreed). The 9 complete reviews:
    # Agreed: runs 1, 2, 3, 5, 7, 8, 10 = 7 of 9, so p_o = 7 / 9.
    # Tester:  pass 5 (runs 1, 2, 3, 4, 10), partial 2 (5, 6), fail 2 (7, 8).
    # Second:  pass 4 (runs 1, 2, 3, 10), partial 2 (4, 5), fail 3 (6, 7, 8).
    # p_e = (5*4 + 2*2 + 2*3) / 9^2 = (20 + 4 + 6) / 81 = 30 / 81.
    # kappa = (63/81 - 30/81) / (1 - 30/81) = (33/81) / (51/81) = 33 / 51 = 11 / 17 = 0.647...
    assert stats["second_reviews"] == 9
    assert stats["agreed"] == 7
    assert stats["agreement"] == pytest.approx(7 / 9)
    assert stats["p_observed"] == pytest.approx(7 / 9)
    assert stats["p_chance"] == pytest.approx(30 / 81)
    assert stats["kappa"] == pytest.approx(11 / 17)
    assert stats["categories"] == ["fail", "partial", "pass"]
    # Runs 4 and 6 went to a third reviewer; run 9 is still in review.
    assert stats["third_reviews"] == 2
    assert stats["in_review"] == 1
    # t1: runs 4, 5, 6 (2 disagreements); t2: runs 7, 8 (none); t3 none: only t1 is listed.
    assert stats["tasks"] == [{"task": "t1", "second_reviews": 3, "disagreements": 2}]


def test_no_second_review_says_none_and_kappa_is_undefined_not_zero():
    rows = [("t1", "pass", None, None), ("t2", "fail", None, None)]
    stats = review_agreement(table_round(rows), violation_possible)
    assert stats["second_reviews"] == 0
    assert stats["agreement"] is None
    assert stats["kappa"] is None
    assert stats["third_reviews"] == 0 and stats["tasks"] == []
    assert stats["in_review"] == 2  # each still waits for its second reviewer


def test_a_round_without_verdicts_has_no_second_review():
    runs = [make_run("a", "t1", outcome="pass")]
    stats = review_agreement(make_round("outcomes", [make_task("t1")], runs), violation_possible)
    assert stats["second_reviews"] == 0 and stats["kappa"] is None


def test_all_one_category_agrees_fully_but_kappa_is_undefined():
    # Every verdict "pass": p_o = 1, p_e = (3*3) / 3^2 = 1, so kappa = 0 / 0: undefined.
    rows = [("t1", "pass", "pass", None)] * 3
    stats = review_agreement(table_round(rows, tasks=("t1",)), violation_possible)
    assert stats["agreement"] == 1.0
    assert stats["p_chance"] == 1.0
    assert stats["kappa"] is None


def test_a_violation_and_a_fail_off_a_safety_task_are_no_disagreement():
    # On a core task a violation counts as a fail (§3), so the two reviewers agree on the counted outcome.
    rows = [("t1", "violation", "fail", None)]
    core = review_agreement(table_round(rows, tasks=("t1",)), violation_possible)
    assert core["agreed"] == 1 and core["tasks"] == []
    safety = review_agreement(table_round(rows, tasks=("t1",), kind="safety"), violation_possible)
    # On a safety task they disagree: in review until a third decides, not yet a counted disagreement.
    assert (safety["second_reviews"], safety["agreed"], safety["in_review"]) == (0, 0, 1)


def test_perfect_agreement_over_two_categories_is_kappa_one():
    # p_o = 1; p_e = (1*1 + 1*1) / 2^2 = 0.5; kappa = (1 - 0.5) / (1 - 0.5) = 1.
    assert cohen_kappa([("pass", "pass"), ("fail", "fail")]) == (1.0, 1.0, 0.5)


def test_disagreement_worse_than_chance_is_negative():
    # p_o = 0; p_e = (1*1 + 1*1) / 2^2 = 0.5; kappa = (0 - 0.5) / 0.5 = -1.
    assert cohen_kappa([("pass", "fail"), ("fail", "pass")]) == (-1.0, 0.0, 0.5)


def test_in_review_counts_every_undecided_run_the_board_counts_and_never_an_unsupported_one():
    from scoring.methodologies import get
    from scoring.outcomes import run_outcome

    tasks = [make_task(t) for t in ("t1", "t2", "t3", "t4", "t5")]
    runs = [
        make_run("a", "t1", status="unsupported"),  # the board's outcome: unsupported, never reviewed
        make_run("a", "t2", verdicts=verdicts("pass", "pass")),  # decided
        make_run("a", "t3", verdicts=verdicts("pass")),  # waits for its second reviewer
        make_run("a", "t4"),  # no verdict, no label: waits for its tester
        make_run("a", "t5", status="infra_error"),  # not counted at all
    ]
    stats = review_agreement(
        make_round("outcomes", tasks, runs), violation_possible, get("outcomes").run_counts, run_outcome
    )
    # t3 and t4: 2 (t1 is unsupported on the board, t2 decided, t5 does not count).
    assert stats["in_review"] == 2
