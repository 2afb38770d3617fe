"""`not_started` has one meaning on every methodology, a run that never got under way (nothing was handed in,
and not through a platform failure, which is `infra_error`), and each board treats it by its own seed's rule
for a task where nothing was done (docs/methodology-choices.md, "A run that never started"):

- outcomes, 000 §4 "Untested tasks are left out rather than counted as 0": not counted, not tested;
- scored, 002 "We treat missing data as None, never 0": no score, not a trial of pass@k;
- checks, 003 "If the app didn't start, the score is 0": a counted run scoring 0;
- weekly, 004 "Fail · 0: The job was not done": a fail.

Each test goes through `scoring.boards.compute_boards`, the one entry the site, the worker and `recount` use.
"""

from __future__ import annotations

from scoring.boards import compute_boards
from tests.builders.scoring import make_round, make_run, make_task, verdicts


def row(boards: dict, board: str = "overall") -> dict:
    (only,) = boards[board]
    return only


def test_outcomes_leaves_a_run_that_never_started_untested():
    tasks = [make_task("c1", kind="core"), make_task("c2", kind="core")]
    runs = [
        make_run("a", "c1", verdicts=verdicts("pass", "pass")),
        make_run("a", "c2", status="not_started"),
    ]
    r = row(compute_boards(make_round("outcomes", tasks, runs)))
    # Tested: c1 only, 2 points. 2 / (2 x 1) x 10 = 10.0; read as a fail it would be 2 / (2 x 2) x 10 = 5.0.
    assert r["tested"] == 1 and r["of"] == 2
    assert r["overall"] == 10.0
    assert set(r["tasks"]) == {"c1"} and r["in_review"] == []


def test_scored_does_not_count_a_run_that_never_started_as_a_trial():
    tasks = [make_task("t1", evaluation="auto"), make_task("t2", evaluation="auto")]
    runs = [
        make_run("a", "t1", tests_passed=8, tests_total=10),
        make_run("a", "t2", trial=1, status="not_started"),
        make_run("a", "t2", trial=2, tests_passed=10, tests_total=10),
    ]
    r = row(compute_boards(make_round("scored", tasks, runs)))
    t2 = r["tasks"]["t2"]
    # t2 has one trial (10/10 = 1.0, a pass at >= 0.80): pass@k = 1 / 1 = 1.0; as a 0 trial it would be 1 / 2.
    assert t2["trials"] == 1 and t2["pass_at_k"] == 1.0
    # Score = mean of best scores over the round's tasks: (8/10 + 10/10) / 2 = 0.9.
    assert abs(r["score"] - 0.9) < 1e-12


def test_scored_leaves_a_task_whose_only_run_never_started_without_a_score_counting_0():
    tasks = [make_task("t1", evaluation="auto"), make_task("t2", evaluation="auto")]
    runs = [make_run("a", "t1", tests_passed=8, tests_total=10), make_run("a", "t2", status="not_started")]
    r = row(compute_boards(make_round("scored", tasks, runs)))
    # t2 has no score (None, not a 0 trial): tested 1 of 2; the headline counts it 0: (0.8 + 0) / 2 = 0.4.
    assert "t2" not in r["tasks"] and r["tested"] == 1
    assert abs(r["score"] - 0.4) < 1e-12


def test_checks_counts_a_run_that_never_started_as_a_0_run():
    tasks = [make_task("shop", kind="to-spec")]
    runs = [
        make_run("a", "shop", trial=1, status="not_started"),
        make_run(
            "a",
            "shop",
            trial=2,
            app_started=True,
            api_checks_passed=10,
            api_checks_total=10,
            browser_steps_passed=4,
            browser_steps_total=4,
        ),
    ]
    boards = compute_boards(make_round("checks", tasks, runs))
    (cell,) = boards["tasks"]["shop"]
    # Counted runs 0 and 50 x 10/10 + 50 x 4/4 = 100; the median of two is the lower middle: 0. Not counted,
    # the median would be the single run's 100.
    assert cell["runs"] == 2 and cell["median"] == 0.0
    assert cell["min"] == 0.0 and cell["max"] == 100.0
    # Overall = mean of medians over the to-spec tasks: 0 / 1 = 0.0.
    assert row(boards)["overall"] == 0.0


def test_weekly_counts_a_run_that_never_started_as_a_fail():
    tasks = [make_task("trip"), make_task("inbox")]
    runs = [
        make_run("a", "trip", outcome="pass", interventions=0, wall_seconds=600.0),
        make_run("a", "inbox", status="not_started", interventions=0),
    ]
    r = row(compute_boards(make_round("weekly", tasks, runs)))
    # trip pass (2 points), inbox fail (0): 1 pass of 2 tasks = 0.5; points 2 + 0 = 2.
    assert r["tasks"]["inbox"]["outcome"] == "fail"
    assert r["passes"] == 1 and r["points"] == 2 and r["pass_rate"] == 0.5
    # A run, not a missing task: the week's interventions are known, 0 + 0 = 0.
    assert r["tasks_without_run"] == [] and r["interventions"] == 0
