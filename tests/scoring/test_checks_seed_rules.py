"""Seed 003 rules on the `checks` boards, each figure worked out by hand from the seed's text."""

import pytest
from test_checks import BOOK, CHAT, SHOP, boards
from test_checks import checks_run as run

from scoring.checks import boards_with_votes, counts
from tests.builders.scoring import row_of


def rating(agent, value, votes=40):
    return {
        "agent": agent,
        "rating": value,
        "ci_low": value - 30,
        "ci_high": value + 30,
        "votes": votes,
        "few_votes": votes < 30,
    }


# --- 1. invent and startup boards rank by blind votes -----------------------------------------------------------


def test_an_invent_board_ranks_admitted_apps_by_their_vote_rating_then_unrated_then_not_admitted():
    # Four admitted apps (every check passed: each scores 100) and one that failed admission (1 of 2 API
    # checks). Votes: d 1080 > b 1010 > a 950; c has no rating yet. Seed: "Their checks only admit the run
    # ...; people rank the apps in blind votes" -> d 1, b 2, a 3, then c (admitted, unrated) 4, e (not
    # admitted) 5, whatever their tokens.
    runs = [
        run("a", "messenger", api=(2, 2), browser=(1, 1), tokens_input=10, tokens_output=1),
        run("b", "messenger", api=(2, 2), browser=(1, 1), tokens_input=900, tokens_output=1),
        run("c", "messenger", api=(2, 2), browser=(1, 1), tokens_input=5, tokens_output=1),
        run("d", "messenger", api=(2, 2), browser=(1, 1), tokens_input=800, tokens_output=1),
        run("e", "messenger", api=(1, 2), browser=(1, 1), tokens_input=1, tokens_output=1),
    ]
    stored = boards([CHAT], runs)
    ratings = {"tasks": {"messenger": [rating("d", 1080), rating("b", 1010), rating("a", 950), rating("e", 1200)]}}
    shown = boards_with_votes(stored, ratings)["tasks"]["messenger"]
    assert [(r["agent"], r["rank"]) for r in shown] == [("d", 1), ("b", 2), ("a", 3), ("c", 4), ("e", 5)]
    assert [r["admitted"] for r in shown] == [True, True, True, True, False]
    assert shown[0]["rating"]["rating"] == 1080 and shown[3]["rating"] is None
    # Without any vote yet the admitted apps share the first place and the one not admitted comes last.
    assert [(r["agent"], r["rank"]) for r in stored["tasks"]["messenger"]] == [
        ("a", 1),
        ("b", 1),
        ("c", 1),
        ("d", 1),
        ("e", 5),
    ]


def test_equal_ratings_share_a_place_on_an_invent_board():
    runs = [run(x, "messenger", api=(2, 2), browser=(1, 1)) for x in ("a", "b", "c")]
    ratings = {"tasks": {"messenger": [rating("a", 1000), rating("b", 1000), rating("c", 990)]}}
    shown = boards_with_votes(boards([CHAT], runs), ratings)["tasks"]["messenger"]
    assert [(r["agent"], r["rank"]) for r in shown] == [("a", 1), ("b", 1), ("c", 3)]


# --- 2. a run stopped at the limit is handed in ------------------------------------------------------------------


def test_a_run_stopped_at_the_time_limit_or_when_the_budget_ran_out_is_scored_from_its_checks():
    # "Whatever is in /work at that moment is what's handed in": timeout at 3,600 s of a 60-minute limit with
    # 6/10 API and 2/4 browser -> 50*0.6 + 50*0.5 = 55; budget_exhausted at 1,000 of 1,000 tokens with
    # 10/10 and 4/4 -> 100. Median of (55, 100), lower middle -> 55; range 55-100.
    runs = [
        run("a", status="timeout", api=(6, 10), browser=(2, 4), wall_seconds=3600, trial=1),
        run("a", status="budget_exhausted", api=(10, 10), browser=(4, 4), tokens_input=900, tokens_output=100, trial=2),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert (row["median"], row["runs"], row["min"], row["max"]) == (55.0, 2, 55.0, 100.0)


def test_a_run_over_its_limit_by_its_own_numbers_or_over_budget_is_not_counted():
    # A completed run of 3,601 s > 60 min ("Only runs within the task's time limit ... count"); 1,001 tokens >
    # 1,000 ("no tolerance"); status over_budget: none counts.
    runs = [
        run("a", status="completed", wall_seconds=3601),
        run("a", status="budget_exhausted", tokens_input=901, tokens_output=100),
        run("a", status="over_budget", tokens_input=10, tokens_output=10),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert row["runs"] == 0 and row["not_counted"] == 3 and row["median"] is None


# --- 3. a platform failure never scores ----------------------------------------------------------------------------


def test_a_task_with_only_platform_failures_is_left_out_of_the_mean_and_awaits_a_rerun():
    # Agent a: shop 100 (10/10, 4/4), booking only infra errors. Left out: overall = 100 / 1 = 100, not
    # (100 + 0) / 2 = 50. Agent b: shop 50 (5/10, 2/4), booking never run: (50 + 0) / 2 = 25.
    runs = [
        run("a", "shop", api=(10, 10), browser=(4, 4)),
        run("a", "booking", status="infra_error", trial=1),
        run("a", "booking", status="infra_error", trial=2),
        run("b", "shop", api=(5, 10), browser=(2, 4)),
    ]
    out = boards([SHOP, BOOK], runs)
    a, b = row_of(out["overall"], "a"), row_of(out["overall"], "b")
    assert (a["overall"], a["pending"]) == (100.0, ["booking"])
    assert (b["overall"], b["pending"]) == (25.0, [])
    assert row_of(out["tasks"]["booking"], "a")["awaiting_rerun"] is True


def test_an_over_budget_run_beside_a_platform_failure_is_the_agents_own_zero():
    # booking: one infra error and one over_budget run -> not only platform failures: 0 in the mean.
    # overall = (100 + 0) / 2 = 50.
    runs = [
        run("a", "shop", api=(10, 10), browser=(4, 4)),
        run("a", "booking", status="infra_error", trial=1),
        run("a", "booking", status="over_budget", trial=2),
    ]
    a = row_of(boards([SHOP, BOOK], runs)["overall"], "a")
    assert (a["overall"], a["pending"]) == (50.0, [])


# --- 5. the overall spread, and ties on the overall -------------------------------------------------------------


def test_the_overall_range_is_the_overall_from_the_worst_and_from_the_best_runs():
    # shop runs 40, 80, 100 (median 80); booking runs 20, 60 (lower middle 20). Overall = (80 + 20) / 2 = 50.
    # From the worst runs: (40 + 20) / 2 = 30; from the best: (100 + 60) / 2 = 80.
    def at(score, task, trial):
        # score = 50*api/10 + 50*browser/4 with browser 0/4 or 4/4: api share chosen to hit the score.
        return run(
            "a",
            task,
            api=(int(score / 5) if score <= 50 else int((score - 50) / 5), 10),
            browser=(0 if score <= 50 else 4, 4),
            trial=trial,
        )

    runs = [at(40, "shop", 1), at(80, "shop", 2), at(100, "shop", 3), at(20, "booking", 1), at(60, "booking", 2)]
    a = row_of(boards([SHOP, BOOK], runs)["overall"], "a")
    assert a["overall"] == 50.0
    assert (a["min"], a["max"]) == (30.0, 80.0)


def test_equal_overall_scores_go_to_fewer_tokens_then_less_time():
    # All three score 55 on shop (6/10 API, 2/4 browser). Tokens of the median runs: a 300, b 200, c 200;
    # time: b 90 s, c 40 s. "fewer tokens ranks higher, then ... less time": c 1, b 2, a 3.
    runs = [
        run("a", api=(6, 10), browser=(2, 4), tokens_input=200, tokens_output=100, wall_seconds=10),
        run("b", api=(6, 10), browser=(2, 4), tokens_input=150, tokens_output=50, wall_seconds=90),
        run("c", api=(6, 10), browser=(2, 4), tokens_input=150, tokens_output=50, wall_seconds=40),
    ]
    overall = boards([SHOP], runs)["overall"]
    assert [(r["agent"], r["rank"], r["tokens"]) for r in overall] == [("c", 1, 200), ("b", 2, 200), ("a", 3, 300)]


def test_a_skipped_task_makes_the_token_total_unknown_so_it_cannot_win_an_overall_tie():
    # Two to-spec tasks. a: shop 100 (10/10, 4/4) with 500 tokens, booking 0 (0/10, 0/4) with 500 tokens:
    # overall (100 + 0) / 2 = 50, tokens 500 + 500 = 1,000. b: shop 100 with 600 tokens, no booking run:
    # overall (100 + 0) / 2 = 50 too; its booking tokens are unknown, so its total is unknown, ranked after
    # a's known 1,000 (a sum over shop alone, 600, would have put b first).
    runs = [
        run("a", "shop", api=(10, 10), browser=(4, 4), tokens_input=400, tokens_output=100),
        run("a", "booking", api=(0, 10), browser=(0, 4), tokens_input=400, tokens_output=100),
        run("b", "shop", api=(10, 10), browser=(4, 4), tokens_input=500, tokens_output=100),
    ]
    overall = boards([SHOP, BOOK], runs)["overall"]
    assert [(r["agent"], r["overall"], r["rank"], r["tokens"]) for r in overall] == [
        ("a", 50.0, 1, 1000),
        ("b", 50.0, 2, None),
    ]


def test_a_task_awaiting_a_rerun_or_with_nothing_counted_makes_the_totals_unknown():
    # a: shop 100 with 500 tokens / 60 s; booking only a platform failure (awaiting a re-run, left out of the
    # overall: 100 / 1 = 100). c: shop the same; booking one run that went over its budget (status
    # over_budget: not counted, so booking is a 0 in the overall: (100 + 0) / 2 = 50). Neither has a median
    # run on booking: both totals are unknown, not 500 tokens and 60 s.
    runs = [
        run("a", "shop", api=(10, 10), browser=(4, 4), tokens_input=400, tokens_output=100, wall_seconds=60),
        run("a", "booking", status="infra_error"),
        run("c", "shop", api=(10, 10), browser=(4, 4), tokens_input=400, tokens_output=100, wall_seconds=60),
        run("c", "booking", status="over_budget"),
    ]
    overall = boards([SHOP, BOOK], runs)["overall"]
    a, c = row_of(overall, "a"), row_of(overall, "c")
    assert (a["overall"], a["pending"], a["tokens"], a["seconds"]) == (100.0, ["booking"], None, None)
    assert (c["overall"], c["tokens"], c["seconds"]) == (50.0, None, None)


# --- the median run in the full order ----------------------------------------------------------------------------


def test_the_median_run_is_the_middle_of_all_runs_ordered_by_score_then_tokens_then_time():
    # 003: "its median run there, not its best"; "On equal scores, the one that spent fewer tokens ranks
    # higher, then the one that took less time". Five runs: 40 (API 3/10, browser 2/4: 15 + 25), and four of
    # 77.5 (8/10, 3/4) with 900, 400, 700 and 400 tokens, the two 400s taking 300 s and 100 s.
    # Worst first: 40; 77.5/900; 77.5/700; 77.5/400/300 s; 77.5/400/100 s. The middle, index (5 - 1) // 2 = 2,
    # is 77.5 with 700 tokens, not the luckiest 77.5 (400 tokens, 100 s).
    runs = [
        run("a", api=(3, 10), browser=(2, 4), tokens_input=100, tokens_output=0, trial=1, id="low"),
        run("a", tokens_input=900, tokens_output=0, wall_seconds=50, trial=2, id="t900"),
        run("a", tokens_input=400, tokens_output=0, wall_seconds=300, trial=3, id="t400-slow"),
        run("a", tokens_input=700, tokens_output=0, wall_seconds=50, trial=4, id="t700"),
        run("a", tokens_input=400, tokens_output=0, wall_seconds=100, trial=5, id="t400-fast"),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert (row["median"], row["median_run"], row["tokens"], row["seconds"]) == (77.5, "t700", 700, 50)


def test_for_an_even_count_the_median_is_the_worse_of_the_two_middle_runs():
    # Four runs of 77.5 with 100, 200, 300 and 400 tokens. Worst first: 400, 300, 200, 100; "With an even
    # count we take the lower of the two middle runs": index (4 - 1) // 2 = 1, the 300-token run.
    # Unknown usage is worse than any known: a fifth run with no token count would come first.
    runs = [
        run("a", tokens_input=t, tokens_output=0, trial=i, id=f"t{t}") for i, t in enumerate((100, 200, 300, 400), 1)
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert (row["median_run"], row["tokens"]) == ("t300", 300)
    # Three runs: unknown tokens, 200 and 100. Worst first: unknown, 200, 100 -> the middle is 200.
    runs = [
        run("a", tokens_input=None, tokens_output=None, trial=1, id="unknown"),
        run("a", tokens_input=200, tokens_output=0, trial=2, id="t200"),
        run("a", tokens_input=100, tokens_output=0, trial=3, id="t100"),
    ]
    assert boards([SHOP], runs)["tasks"]["shop"][0]["median_run"] == "t200"


# --- 7. tokens have one meaning ----------------------------------------------------------------------------------


def test_known_usage_over_the_budget_does_not_count_even_with_a_part_unknown():
    # Budget 1,000. Input 1,200 known, output unknown: at least 1,200 > 1,000 -> over, not counted.
    # Input 600 known, output unknown: cannot be shown over -> counts.
    assert not counts(run("a", tokens_input=1200, tokens_output=None), SHOP)
    assert counts(run("a", tokens_input=600, tokens_output=None), SHOP)


def test_the_overall_row_averages_cost_and_time_over_the_runs_the_overall_counts():
    # SHOP: 60-minute limit (3,600 s), 1,000-token budget. Runs the overall counts ("Only runs within the task's
    # time limit and token budget ... count"; a timeout is handed in): completed $1.00 / 100 s; completed, cost
    # unknown / 300 s; a timeout at the limit $9.00 / 3,600 s; completed $2.00 with no time recorded. Not
    # counted: a run over the limit ($0.50 / 3,700 s), a platform failure ($4.00 / 10 s), and an invent-task run
    # ($7.00 / 20 s), which is not in the overall.
    # Cost over the 3 counted runs reporting it: (1 + 9 + 2) / 3 = 4.00. Time over the 3 reporting it:
    # (100 + 300 + 3600) / 3 = 1333.33 s; the run without a time is left out, so time is on 3 of 4 runs.
    runs = [
        run("a", cost_usd=1.0, wall_seconds=100, trial=1),
        run("a", cost_usd=None, wall_seconds=300, trial=2),
        run("a", status="timeout", cost_usd=9.0, wall_seconds=3600, trial=3),
        run("a", cost_usd=2.0, wall_seconds=None, trial=4),
        run("a", cost_usd=0.5, wall_seconds=3700, trial=5),
        run("a", status="infra_error", cost_usd=4.0, wall_seconds=10, trial=6),
        run("a", "messenger", api=(1, 1), browser=(1, 1), cost_usd=7.0, wall_seconds=20),
    ]
    a = row_of(boards([SHOP, CHAT], runs)["overall"], "a")
    assert (a["axis_runs"], a["cost_runs"], a["time_runs"]) == (4, 3, 3)
    assert a["mean_cost_usd"] == pytest.approx(12 / 3)
    assert a["mean_wall_seconds"] == pytest.approx(4000 / 3)


def test_an_agent_that_times_out_more_does_not_look_faster():
    # quick: two completed runs of 600 s. stalls: one completed run of 300 s and two timeouts at the 3,600 s
    # limit. Over the counted runs: quick (600 + 600) / 2 = 600 s; stalls (300 + 3600 + 3600) / 3 = 2,500 s.
    # Over completed runs only, stalls would read 300 s, the faster of the two.
    runs = [
        run("quick", wall_seconds=600, trial=1),
        run("quick", wall_seconds=600, trial=2),
        run("stalls", wall_seconds=300, trial=1),
        run("stalls", status="timeout", wall_seconds=3600, trial=2),
        run("stalls", status="timeout", wall_seconds=3600, trial=3),
    ]
    out = boards([SHOP], runs)["overall"]
    assert row_of(out, "quick")["mean_wall_seconds"] == 600.0
    assert row_of(out, "stalls")["mean_wall_seconds"] == 2500.0


# --- 6. admission, the budget's edge, and which boards the votes order -------------------------------------------


def test_an_invent_run_is_admitted_only_when_its_app_started_and_no_check_failed():
    from scoring.checks import admitted

    # "Their checks only admit the run (it starts, it shows the data)".
    assert admitted(run("a", "messenger", api=(2, 2), browser=(1, 1))) is True
    # Start unknown, but checks recorded and all passed: the app evidently ran.
    assert admitted(run("a", "messenger", api=(2, 2), browser=(1, 1), app_started=None)) is True
    # Start unknown and no check recorded: nothing shows it started.
    assert admitted(run("a", "messenger", api=(0, 0), browser=(0, 0), app_started=None)) is False
    # The app did not start: not admitted, whatever checks say.
    assert admitted(run("a", "messenger", api=(2, 2), browser=(1, 1), app_started=False)) is False
    # One failed check: not admitted.
    assert admitted(run("a", "messenger", api=(2, 2), browser=(0, 1))) is False


def test_a_run_that_spent_exactly_its_budget_counts_even_with_a_part_of_its_usage_unknown():
    # SHOP's budget is 1,000 tokens. "spent no more than their budget count": 1,000 is not more. The known
    # part is a lower bound: input unknown + 1,000 output = 1,000 known; 1,000 input + output unknown = 1,000.
    assert counts(run("a", tokens_input=None, tokens_output=1000), SHOP) is True
    assert counts(run("a", tokens_input=1000, tokens_output=None), SHOP) is True
    assert counts(run("a", tokens_input=None, tokens_output=None, tokens_cache_write=1000), SHOP) is True
    # One more known token is over ("no tolerance").
    assert counts(run("a", tokens_input=None, tokens_output=1001), SHOP) is False


def test_an_app_rated_below_zero_still_ranks_above_the_unrated_and_the_not_admitted():
    # Elo's scale has no floor: a rating of -50 is still a rating from votes; rated apps come first.
    runs = [run(x, "messenger", api=(2, 2), browser=(1, 1)) for x in ("a", "b")]
    runs.append(run("c", "messenger", api=(1, 2), browser=(1, 1)))
    ratings = {"tasks": {"messenger": [rating("b", -50)]}}
    shown = boards_with_votes(boards([CHAT], runs), ratings)["tasks"]["messenger"]
    assert [(r["agent"], r["rank"]) for r in shown] == [("b", 1), ("a", 2), ("c", 3)]
    # A rating of exactly 0 is a rating too: it does not share a place with the unrated.
    ratings = {"tasks": {"messenger": [rating("b", 0)]}}
    shown = boards_with_votes(boards([CHAT], runs), ratings)["tasks"]["messenger"]
    assert [(r["agent"], r["rank"]) for r in shown] == [("b", 1), ("a", 2), ("c", 3)]


def test_votes_order_invent_boards_only_and_a_board_of_one_app_too():
    # shop (to-spec) keeps its order by median: a 100 (10/10, 4/4) before b 50 (5/10, 2/4), whatever the votes
    # say of b. The messenger board has one admitted app, ranked first with its rating.
    runs = [
        run("a", "shop", api=(10, 10), browser=(4, 4)),
        run("b", "shop", api=(5, 10), browser=(2, 4)),
        run("a", "messenger", api=(2, 2), browser=(1, 1)),
    ]
    ratings = {"tasks": {"shop": [rating("b", 1200), rating("a", 800)], "messenger": [rating("a", 1100)]}}
    shown = boards_with_votes(boards([SHOP, CHAT], runs), ratings)["tasks"]
    assert [(r["agent"], r["rank"], r["median"]) for r in shown["shop"]] == [("a", 1, 100.0), ("b", 2, 50.0)]
    assert "rating" not in shown["shop"][0]
    assert [(r["agent"], r["rank"], r["rating"]["rating"]) for r in shown["messenger"]] == [("a", 1, 1100)]
    # A task board with no rows stays empty.
    assert boards_with_votes({"tasks": {"shop": []}}, ratings)["tasks"] == {"shop": []}
