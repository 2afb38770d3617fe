"""What the methodology registry reads off a board for the rest of the site: the run standing for each agent
on each task, one agent's number per task (the head-to-head page) and a row's score x cost x time axes."""

from scoring.checks import compute_checks_boards
from scoring.methodologies import get
from scoring.outcomes import compute_outcomes_boards
from scoring.scored import compute_scored_boards
from scoring.standings import standing_runs
from scoring.weekly import compute_weekly_boards
from tests.builders.scoring import make_round, make_run, make_task, row_of


def checks_round():
    # Seed 003: score = 50 * (API checks share) + 50 * (browser steps share).
    # a on shop: a1 2/4 and 2/4 -> 25 + 25 = 50; a2 4/4 and 2/4 -> 50 + 25 = 75; a3 1/4 and 1/4 -> 12.5 + 12.5
    # = 25. Median of 25, 50, 75 is 50 (a1), range 25..75 over 3 runs. b on shop: b1 4/4 and 4/4 -> 100.
    # b on cart: b2's app did not start -> 0. a has no run on cart.
    shop, cart = make_task("shop", kind="to-spec"), make_task("cart", kind="to-spec")
    checks = {"status": "completed", "app_started": True, "api_checks_total": 4, "browser_steps_total": 4}
    runs = [
        make_run("a", "shop", id="a1", trial=1, api_checks_passed=2, browser_steps_passed=2, **checks),
        make_run("a", "shop", id="a2", trial=2, api_checks_passed=4, browser_steps_passed=2, **checks),
        make_run("a", "shop", id="a3", trial=3, api_checks_passed=1, browser_steps_passed=1, **checks),
        make_run("b", "shop", id="b1", trial=1, api_checks_passed=4, browser_steps_passed=4, **checks),
        make_run("b", "cart", id="b2", trial=1, status="completed", app_started=False),
    ]
    return make_round("checks", [shop, cart], runs)


def checks_boards():
    return compute_checks_boards(checks_round())


def test_checks_numbers_are_each_agents_median_run_with_its_range():
    m, boards = get("checks"), checks_boards()
    # Each with its place on the task's board: on shop b's 100 is first, a's 50 second; b alone on cart.
    assert m.task_numbers(boards, "a") == {
        "shop": {"value": 50.0, "label": None, "run": "a1", "runs": 3, "low": 25.0, "high": 75.0, "rank": 2}
    }
    assert m.task_numbers(boards, "b") == {
        "cart": {"value": 0.0, "label": None, "run": "b2", "runs": 1, "low": 0.0, "high": 0.0, "rank": 1},
        "shop": {"value": 100.0, "label": None, "run": "b1", "runs": 1, "low": 100.0, "high": 100.0, "rank": 1},
    }
    assert m.task_numbers(boards, "nobody") == {} and m.task_numbers(None, "a") == {}


def test_checks_standing_runs_are_the_median_runs_of_every_task_board():
    # a's median run on shop is a1 (see checks_round); b's only runs stand on their tasks. Every run counts.
    standings = get("checks").run_standings(checks_round(), checks_boards())
    assert standing_runs({"standings": standings}) == {"a1", "b1", "b2"}
    assert {s["standing"] for s in standings.values()} == {"counts"} and len(standings) == 5
    assert standing_runs(None) == set()
    # A task row without a counted run (only platform failures) names no run.
    stored = {"tasks": {"shop": [{"agent": "a", "median_run": None}, {"agent": "b", "median_run": "b1"}]}}
    shop = make_task("shop", kind="to-spec")
    failures = [make_run("a", "shop", id="a1", status="infra_error"), make_run("b", "shop", id="b1")]
    standings = get("checks").run_standings(make_round("checks", [shop], failures), stored)
    assert standing_runs({"standings": standings}) == {"b1"}
    assert standings["a1"]["standing"] == "not_scored" and standings["a1"]["why"] == "infra error"


def test_a_checks_row_without_a_run_count_shows_zero_runs():
    stored = {"tasks": {"shop": [{"agent": "a", "median": None, "median_run": None, "min": None, "max": None}]}}
    assert get("checks").task_numbers(stored, "a") == {
        "shop": {"value": None, "label": None, "run": None, "runs": 0, "low": None, "high": None, "rank": None}
    }


def test_a_task_ranked_by_votes_gives_each_agent_its_rating_and_place_not_the_checks_100():
    # Seed 003, invent tasks: "Their checks only admit the run ...; people rank the apps in blind votes". a's and
    # b's apps pass every check (admitted, 100 each), c's never starts (0, not admitted). The task's ratings:
    # a 1050, b 1100, c 1200. The board as shown: admitted by rating, b (1100) first, a (1050) second; c, not
    # admitted, third whatever its 1200.
    invent = make_task("messenger", kind="invent")
    admitted = {"status": "completed", "app_started": True, "api_checks_total": 2, "api_checks_passed": 2}
    runs = [
        make_run("a", "messenger", id="a1", **admitted),
        make_run("b", "messenger", id="b1", **admitted),
        make_run("c", "messenger", id="c1", status="completed", app_started=False),
    ]
    stored = compute_checks_boards(make_round("checks", [invent], runs))
    rating = {"ci_low": 0.0, "ci_high": 0.0, "votes": 9, "wins": 0, "losses": 0, "ties": 0, "few_votes": False}
    ratings = {
        "tasks": {
            "messenger": [{"agent": x, "rating": v, **rating} for x, v in (("a", 1050.0), ("b", 1100.0), ("c", 1200.0))]
        }
    }
    m = get("checks")
    shown = m.with_votes(stored, ratings)
    numbers = {agent: m.task_numbers(shown, agent)["messenger"] for agent in "abc"}
    assert [(n["value"], n["by_votes"], n["admitted"], n["rating"], n["rank"]) for n in numbers.values()] == [
        (100.0, True, True, 1050.0, 2),
        (100.0, True, True, 1100.0, 1),
        (0.0, True, False, None, 3),
    ]


def scored_boards():
    # Seed 002, auto tasks: score = tests passed / total. a on t1: trial 1 5/10 = 0.5, trial 2 9/10 = 0.9
    # (best), an infra error (not counted). a on t2: 7/10 = 0.7. b on t1: 10/10 = 1.0, nothing on t2.
    t1, t2 = make_task("t1", evaluation="auto"), make_task("t2", evaluation="auto")
    runs = [
        make_run("a", "t1", id="a1", trial=1, status="completed", tests_passed=5, tests_total=10, cost_usd=0.2),
        make_run("a", "t1", id="a2", trial=2, status="completed", tests_passed=9, tests_total=10, wall_seconds=30.0),
        make_run("a", "t1", id="a9", trial=3, status="infra_error"),
        make_run("a", "t2", id="a3", trial=1, status="completed", tests_passed=7, tests_total=10, cost_usd=0.4),
        make_run("b", "t1", id="b1", trial=1, status="completed", tests_passed=10, tests_total=10),
    ]
    return compute_scored_boards(make_round("scored", [t1, t2], runs))


def test_scored_numbers_are_the_best_trial_of_each_task_with_the_range_of_its_trials():
    m, boards = get("scored"), scored_boards()
    # passes: trials at >= 0.80 (002's pass@k is passes / runs): a's t1 0.5 no, 0.9 yes: 1 of 2; t2 0.7: 0 of 1;
    # b's t1 1.0: 1 of 1. No trial rests on the heuristic fallback.
    assert m.task_numbers(boards, "a") == {
        "t1": {"value": 0.9, "label": None, "run": "a2", "runs": 2, "low": 0.5, "high": 0.9, "passes": 1,
               "heuristic": False},
        "t2": {"value": 0.7, "label": None, "run": "a3", "runs": 1, "low": 0.7, "high": 0.7, "passes": 0,
               "heuristic": False},
    }  # fmt: skip
    assert m.task_numbers(boards, "b") == {
        "t1": {"value": 1.0, "label": None, "run": "b1", "runs": 1, "low": 1.0, "high": 1.0, "passes": 1,
               "heuristic": False}
    }  # fmt: skip
    assert m.task_numbers(boards, "nobody") == {} and m.task_numbers(None, "a") == {}


def test_a_stored_scored_cell_without_its_trials_shows_no_range():
    stored = {"overall": [{"agent": "a", "tasks": {"t1": {"best": 0.9, "best_run": "a2"}}}]}
    assert get("scored").task_numbers(stored, "a") == {
        "t1": {"value": 0.9, "label": None, "run": "a2", "runs": 0, "low": None, "high": None, "passes": 0,
               "heuristic": False}
    }  # fmt: skip


def test_scored_axes_are_the_rows_score_cost_and_latency_with_their_run_counts():
    boards = scored_boards()
    # a: score (0.9 + 0.7) / 2 = 0.8 over 3 scored runs; cost reported on a1 and a3: (0.2 + 0.4) / 2 = 0.3;
    # time on a2 only: 30.0.
    score, cost, seconds, runs, cost_runs, time_runs = get("scored").tradeoff_axes(row_of(boards["overall"], "a"))
    assert (round(score, 12), round(cost, 12), seconds, runs, cost_runs, time_runs) == (0.8, 0.3, 30.0, 3, 2, 1)
    # b: (1.0 + 0) / 2 = 0.5 (t2 unscored counts 0), one run, no cost, no time.
    assert get("scored").tradeoff_axes(row_of(boards["overall"], "b")) == (0.5, None, None, 1, 0, 0)
    assert get("scored").tradeoff_axes({}) == (None, None, None, 0, 0, 0)


def weekly_boards():
    # Seed 004: a passes t1 (100 s, $1.50) and times out on t2 (a fail, 30 minutes, $0.50): pass rate 1/2,
    # 100 + 1800 = 1900 s, $2.00. b passes t1 without a recorded time on a plan (no dollar cost).
    t1, t2 = make_task("t1"), make_task("t2")
    runs = [
        make_run("a", "t1", id="a1", outcome="pass", wall_seconds=100.0, cost_usd=1.5),
        make_run("a", "t2", id="a2", status="timeout", cost_usd=0.5),
        make_run("b", "t1", id="b1", outcome="pass", plan_label="Pro plan"),
    ]
    return compute_weekly_boards(make_round("weekly", [t1, t2], runs))


def test_weekly_axes_are_the_pass_rate_dollar_cost_and_capped_time_of_the_week():
    boards = weekly_boards()
    # a: 2 tasks run, both with a dollar cost, both with a time (the timeout counts 30 minutes).
    assert get("weekly").tradeoff_axes(row_of(boards["overall"], "a")) == (0.5, 2.0, 1900.0, 2, 2, 2)
    # b: 1 of 2 tasks passed, 1 task run, a plan label and no dollars, no recorded time. The axes are week totals
    # over the week's 2 tasks (not the 1 it ran): a total over fewer tasks is partial, never a smaller one.
    assert get("weekly").tradeoff_axes(row_of(boards["overall"], "b")) == (0.5, None, None, 2, 0, 0)
    assert get("weekly").tradeoff_axes({}) == (None, None, None, 0, 0, 0)


def test_weekly_numbers_are_each_tasks_outcome_and_points():
    boards = weekly_boards()
    # Seed 004 points: pass 2, fail 0.
    assert get("weekly").task_numbers(boards, "a") == {
        "t1": {"value": 2, "label": "pass", "run": "a1", "runs": 1, "low": None, "high": None},
        "t2": {"value": 0, "label": "fail", "run": "a2", "runs": 1, "low": None, "high": None},
    }


def test_outcomes_numbers_are_each_tasks_counted_run_its_outcome_and_points():
    # Seed 000: pass 2, partial 1, fail 0; a run without a verdict is in review, with no points yet.
    t1, t2 = make_task("t1", kind="core"), make_task("t2", kind="core")
    runs = [
        make_run("a", "t1", id="a1", outcome="pass"),
        make_run("a", "t2", id="a2", status="completed"),
        make_run("b", "t1", id="b1", outcome="partial"),
    ]
    boards = compute_outcomes_boards(make_round("outcomes", [t1, t2], runs))
    m = get("outcomes")
    assert m.task_numbers(boards, "a") == {
        "t1": {"value": 2, "label": "pass", "run": "a1", "runs": 1, "low": None, "high": None},
        "t2": {"value": None, "label": "in_review", "run": "a2", "runs": 1, "low": None, "high": None},
    }
    assert m.task_numbers(boards, "b") == {
        "t1": {"value": 1, "label": "partial", "run": "b1", "runs": 1, "low": None, "high": None}
    }
    assert m.task_numbers(boards, "nobody") == {} and m.task_numbers(None, "a") == {}
    # Only a run with points stands for its agent on the board (a2 is still in review).
    standings = m.run_standings(make_round("outcomes", [t1, t2], runs), boards)
    assert standing_runs({"standings": standings}) == {"a1", "b1"}
    assert (standings["a2"]["standing"], standings["a2"]["outcome"]) == ("in_review", None)
    # A stored cell that names no run counts no run.
    stored = {"overall": [{"agent": "a", "tasks": {"t1": {"outcome": "in_review", "points": None}}}]}
    assert m.task_numbers(stored, "a") == {
        "t1": {"value": None, "label": "in_review", "run": None, "runs": 0, "low": None, "high": None}
    }


# The registry builds its rules once, when `scoring.methodologies` is imported; these tests build them again, so
# a change to how a rule is built shows here too.


def test_axes_from_runs_are_the_headline_and_the_rows_means_over_the_counted_runs():
    from scoring.methodologies import _run_axes

    row = {
        "overall": 7.5,
        "mean_cost_usd": 0.2,
        "mean_wall_seconds": 40.0,
        "axis_runs": 4,
        "cost_runs": 3,
        "time_runs": 2,
    }
    assert _run_axes("overall")(row) == (7.5, 0.2, 40.0, 4, 3, 2)
    assert _run_axes("overall")({}) == (None, None, None, 0, 0, 0)


def test_a_registered_methodology_is_found_by_its_key_and_an_unknown_key_is_refused():
    import pytest

    from scoring.methodologies import REGISTRY, register

    m = get("weekly")
    copy = m.__class__(**{**m.__dict__, "key": "weekly-copy"})
    try:
        assert register(copy) is copy and get("weekly-copy") is copy
    finally:
        REGISTRY.pop("weekly-copy", None)
    with pytest.raises(ValueError, match=r"^unknown methodology 'vibes'$"):
        get("vibes")


def test_every_board_row_starts_with_the_agents_key_and_name_and_no_rank_yet():
    from scoring.common import base_row
    from tests.builders.scoring import make_agent

    assert base_row(make_agent("zephyr-bot")) == {"agent": "zephyr-bot", "name": "Zephyr Bot", "rank": None}
