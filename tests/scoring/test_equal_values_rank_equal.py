"""Equal scores, costs and times rank equal, however they were added up: float noise in the last bits never
splits a tie, decides a tie-break or picks a different median run (docs/methodology-choices.md, "Ranks").

Each expected figure is worked out by hand from the seeds' rules; the comment says what the floats come to."""

from scoring.checks import compute_checks_boards
from scoring.common import assign_ranks, desc_none_last, name_key
from scoring.scored import compute_scored_boards
from scoring.weekly import compute_weekly_boards
from tests.builders.scoring import make_agent, make_round, make_run, make_task

AUTO = [make_task(k, evaluation="auto", domain="code") for k in ("t1", "t2")]


def ranks(rows):
    return [(r["agent"], r["rank"]) for r in rows]


def test_scored_equal_means_share_a_rank_and_are_listed_by_name():
    # Seed 002: auto score = tests_passed / tests_total; the board = mean best over the round's tasks.
    # Zed: 7/10 and 1/10 -> (0.7 + 0.1) / 2 = 0.40; Ann: 4/10 and 4/10 -> (0.4 + 0.4) / 2 = 0.40.
    # As floats the first is 0.39999999999999997 and the second 0.4: equal scores all the same, so both are
    # rank 1 and Ann (by name) is listed first.
    runs = [
        make_run("zed", "t1", tests_passed=7, tests_total=10),
        make_run("zed", "t2", tests_passed=1, tests_total=10),
        make_run("ann", "t1", tests_passed=4, tests_total=10),
        make_run("ann", "t2", tests_passed=4, tests_total=10),
    ]
    agents = [make_agent("zed", name="Zed"), make_agent("ann", name="Ann")]
    rows = compute_scored_boards(make_round("scored", AUTO, runs, agents=agents))["overall"]
    assert ranks(rows) == [("ann", 1), ("zed", 1)]


def test_scored_best_trial_prefers_the_judged_one_when_a_heuristic_trial_equals_it():
    # A composite task: 0.6 * auto + 0.4 * judge, the judge part from the heuristic when no judge scored it
    # (capped at 0.60), and ties on the best trial go to the judged one (docs/methodology-choices.md).
    # Trial 1, heuristic: auto 0/10, heuristic 0.4 -> 0.6 * 0 + 0.4 * 0.4 = 0.16 (0.16000000000000003 as floats).
    # Trial 2, judged: auto 2/10, criteria (1, 1) -> 0.6 * 0.2 + 0.4 * (1 + 1) / 2 / 10 = 0.12 + 0.04 = 0.16.
    # Equal: the best is the judged trial, and the cell is not marked heuristic.
    task = make_task("m1", evaluation="composite", domain="multi")
    runs = [
        make_run("a", "m1", trial=1, tests_passed=0, tests_total=10, heuristic=0.4),
        make_run("a", "m1", trial=2, tests_passed=2, tests_total=10, judge_scores=(1, 1)),
    ]
    cell = compute_scored_boards(make_round("scored", [task], runs))["overall"][0]["tasks"]["m1"]
    assert round(cell["best"], 9) == 0.16 and cell["heuristic"] is False


def checks_run(agent, api, browser, tokens, task="shop"):
    return make_run(
        agent,
        task,
        app_started=True,
        api_checks_passed=api[0],
        api_checks_total=api[1],
        browser_steps_passed=browser[0],
        browser_steps_total=browser[1],
        tokens_input=tokens,
        tokens_output=0,
    )


def test_checks_equal_scores_go_to_the_tie_break_on_tokens():
    # Seed 003: score = 50 * API share + 50 * browser share; "On equal scores, the one that spent fewer tokens
    # ranks higher". Zed: API 2/3, browser 1/3 -> 33.33 + 16.67 = 50 (49.99999999999999 as floats), 100 tokens.
    # Ann: API 1/2, browser 1/2 -> 25 + 25 = 50, 200 tokens. Equal scores: Zed spent fewer tokens, so Zed is
    # rank 1 and Ann rank 2, on the task's board and on the overall board (one to-spec task: the same means).
    shop = make_task("shop", kind="to-spec")
    runs = [checks_run("zed", (2, 3), (1, 3), 100), checks_run("ann", (1, 2), (1, 2), 200)]
    agents = [make_agent("zed", name="Zed"), make_agent("ann", name="Ann")]
    boards = compute_checks_boards(make_round("checks", [shop], runs, agents=agents))
    assert ranks(boards["tasks"]["shop"]) == [("zed", 1), ("ann", 2)]
    assert ranks(boards["overall"]) == [("zed", 1), ("ann", 2)]


def test_checks_the_median_run_among_equal_scores_is_picked_by_tokens_not_float_noise():
    # Three runs of one agent, all scoring 50: (1/2, 1/2) -> 25 + 25 = 50.0 with 300 tokens; (2/3, 1/3) ->
    # 49.99999999999999 as floats, 100 tokens; (1/3, 2/3) -> 49.99999999999999, 200 tokens. Seed 003: the median
    # run, the lower middle one; on equal scores more tokens is worse. Worst to best: 300, 200, 100 tokens; the
    # median (index (3 - 1) // 2 = 1) is the 200-token run. (Were the noise believed, the 50.0 run would be the
    # best and the median the 100-token run.)
    shop = make_task("shop", kind="to-spec")
    runs = [
        checks_run("a", (1, 2), (1, 2), 300),
        checks_run("a", (2, 3), (1, 3), 100),
        checks_run("a", (1, 3), (2, 3), 200),
    ]
    row = compute_checks_boards(make_round("checks", [shop], runs))["tasks"]["shop"][0]
    assert row["tokens"] == 200 and round(row["median"], 9) == 50


def test_weekly_equal_dollar_costs_do_not_break_the_tie():
    # Seed 004: higher pass rate, then fewer interventions, then lower cost in dollars, then the name. Both
    # pass 1 of 2 with 0 interventions. Ann spent $0.10 + $0.20 = $0.30 (0.30000000000000004 as a float), Zed
    # $0.30 in one run and $0.00 in the other: equal costs, so the name decides: Ann first, then Zed.
    tasks = [make_task("trip"), make_task("inbox")]
    runs = [
        make_run("ann", "trip", outcome="pass", interventions=0, cost_usd=0.10),
        make_run("ann", "inbox", outcome="fail", interventions=0, cost_usd=0.20),
        make_run("zed", "trip", outcome="pass", interventions=0, cost_usd=0.30),
        make_run("zed", "inbox", outcome="fail", interventions=0, cost_usd=0.0),
    ]
    agents = [make_agent("zed", name="Zed"), make_agent("ann", name="Ann")]
    rows = compute_weekly_boards(make_round("weekly", tasks, runs, agents=agents))["overall"]
    assert [r["agent"] for r in rows] == ["ann", "zed"]
    # The control: with Ann's second run a real cent dearer ($0.21, $0.31 in all) the cost decides: Zed first.
    runs[1] = make_run("ann", "inbox", outcome="fail", interventions=0, cost_usd=0.21)
    rows = compute_weekly_boards(make_round("weekly", tasks, runs, agents=agents))["overall"]
    assert [r["agent"] for r in rows] == ["zed", "ann"]


def test_ranks_are_shared_to_nine_decimals_and_split_beyond():
    rows = [{"agent": a, "name": a, "score": s} for a, s in (("a", 0.1 + 0.2), ("b", 0.3), ("c", 0.3 - 2e-9))]
    ranked = assign_ranks(rows, lambda r: desc_none_last(r["score"]), name_key)
    # 0.30000000000000004 and 0.3 share rank 1; 0.299999998 is a real difference (two parts in a billion).
    assert ranks(ranked) == [("a", 1), ("b", 1), ("c", 3)]
