import pytest

from scoring.scored import RunScore, compute_scored_boards, interval_cells, passes, published_score, run_score
from scoring.tradeoffs import rerank
from tests.builders.scoring import make_agent, make_round, make_run, make_task, row_of

AUTO = make_task("code-001", evaluation="auto", domain="code")
JUDGE = make_task("research-001", evaluation="llm-judge", domain="research")
COMPOSITE = make_task("multi-001", evaluation="composite", domain="multi-step")
BARE = make_task("data-001", domain="data")


def board(tasks, runs, **kw):
    return compute_scored_boards(make_round("scored", tasks, runs, **kw))


def test_it_scores_auto_tasks_by_tests_passed():
    rs = run_score(make_run("a", "code-001", tests_passed=3, tests_total=4, score=0.75), AUTO)
    assert rs.score == 0.75 and not rs.heuristic


def test_it_uses_a_published_pass_rate_without_test_counts():
    assert run_score(make_run("a", "code-001", auto_pass_rate=0.5), AUTO).score == 0.5


def test_it_scores_judge_tasks_by_the_mean_criterion_over_ten():
    rs = run_score(make_run("a", "research-001", judge_scores=(8, 9, 7)), JUDGE)
    assert rs.score == pytest.approx(0.8, abs=1e-15)


def test_it_caps_the_heuristic_fallback_at_060_and_marks_it():
    rs = run_score(make_run("a", "research-001", heuristic=0.9), JUDGE)
    assert rs.score == 0.6 and rs.heuristic


def test_it_prefers_judge_scores_over_a_heuristic():
    rs = run_score(make_run("a", "research-001", heuristic=0.3, judge_scores=(5,)), JUDGE)
    assert rs.score == 0.5 and not rs.heuristic


def test_it_weights_composite_tasks_60_40():
    run = make_run("a", "multi-001", tests_passed=4, tests_total=5, judge_scores=(6, 8))
    assert run_score(run, COMPOSITE).score == 0.6 * (4 / 5) + 0.4 * 0.7


def test_it_uses_the_heuristic_in_a_composite_and_marks_it():
    run = make_run("a", "multi-001", tests_passed=1, tests_total=1, heuristic=0.8)
    rs = run_score(run, COMPOSITE)
    assert rs.score == 0.6 + 0.4 * 0.6 and rs.heuristic


def test_it_infers_the_evaluation_from_the_parts_present():
    assert run_score(make_run("a", "data-001", tests_passed=1, tests_total=2), BARE).score == 0.5
    assert run_score(make_run("a", "data-001", judge_scores=(4,)), BARE).score == 0.4
    both = run_score(make_run("a", "data-001", tests_passed=1, tests_total=2, judge_scores=(4,)), BARE)
    assert both.source == "composite"


def test_it_falls_back_to_the_published_score_and_caps_a_heuristic_judge_score():
    assert run_score(make_run("a", "data-001", score=0.7), BARE).score == 0.7
    # An llm-judge task is all judged part: a published 0.9 resting on a heuristic is capped at 0.60.
    rs = published_score(0.9, 0.9, "llm-judge")
    assert rs.score == 0.6 and rs.heuristic and rs.source == "published"


def test_it_caps_only_the_judged_part_of_a_published_composite():
    # A composite published as 0.88 with the test share unknown and a heuristic judge of 0.70:
    # 0.88 = 0.6 * auto + 0.4 * 0.70. The cap takes the judged part from 0.70 to 0.60, so the score loses
    # 0.4 * (0.70 - 0.60) = 0.04 and is 0.84, not 0.60 (and still a pass at 0.80).
    run = make_run("a", "multi-001", score=0.88, heuristic=0.7)
    rs = run_score(run, COMPOSITE)
    assert rs.score == pytest.approx(0.84, abs=1e-12) and rs.heuristic and rs.source == "published"
    row = board([COMPOSITE], [run])["overall"][0]
    assert row["pass_rate"] == 1.0
    # A heuristic under the cap leaves the published composite as it is: 0.6 * 1 + 0.4 * 0.5 = 0.8.
    assert run_score(make_run("a", "multi-001", score=0.8, heuristic=0.5), COMPOSITE).score == 0.8


def test_it_never_caps_a_published_auto_score():
    # An auto task has no judged part, so a stray heuristic neither caps nor marks its 0.9.
    rs = run_score(make_run("a", "code-001", score=0.9, heuristic=0.9), AUTO)
    assert rs == RunScore(0.9, False, "published")
    # Without a heuristic a published score stands as published, whatever the evaluation.
    for evaluation in ("auto", "llm-judge", "composite", None):
        assert published_score(0.9, None, evaluation) == RunScore(0.9, False, "published")


def test_it_flags_a_published_score_that_differs_from_the_computed_one():
    runs = [make_run("a", "code-001", tests_passed=1, tests_total=2, score=0.9, id="x")]
    cell = board([AUTO], runs)["overall"][0]["tasks"]["code-001"]
    assert cell["scores"][0]["score_differs"] is True
    assert cell["scores"][0]["published_score"] == 0.9


def test_it_reports_the_best_trial_and_pass_at_k():
    runs = [
        make_run("a", "code-001", tests_passed=1, tests_total=2, trial=1, id="t1"),
        make_run("a", "code-001", tests_passed=9, tests_total=10, trial=2, id="t2"),
        make_run("a", "code-001", tests_passed=4, tests_total=5, trial=3, id="t3"),
    ]
    cell = board([AUTO], runs)["overall"][0]["tasks"]["code-001"]
    assert cell["best"] == 0.9 and cell["best_run"] == "t2"
    assert cell["trials"] == 3
    assert cell["pass_at_k"] == 2 / 3
    assert cell["runs"] == ["t1", "t2", "t3"]


def test_it_averages_best_scores_over_the_rounds_tasks_into_score_pass_rate_and_domains():
    runs = [
        make_run("a", "code-001", tests_passed=1, tests_total=1),
        make_run("a", "research-001", judge_scores=(5,)),
        make_run("a", "multi-001", tests_passed=0, tests_total=1, judge_scores=(10,)),
    ]
    row = board([AUTO, JUDGE, COMPOSITE, BARE], runs)["overall"][0]
    # code 1/1 = 1.0; research 5/10 = 0.5; multi 0.6 * 0 + 0.4 * 10/10 = 0.4; data-001 not run: 0.
    # Over the round's 4 tasks: (1.0 + 0.5 + 0.4 + 0) / 4 = 1.9 / 4 = 0.475; only code passes: 1 of 4.
    assert row["score"] == pytest.approx(0.475, abs=1e-12)
    assert row["pass_rate"] == 0.25
    assert row["tested"] == 3 and row["of"] == 4
    # One task per domain, so each domain is that task's best, and the untested data task counts 0.
    assert row["domains"] == {"code": 1.0, "data": 0.0, "multi-step": 0.4, "research": 0.5}


def test_it_ranks_an_agent_that_skipped_tasks_below_one_that_ran_them_all():
    runs = [
        make_run("solo", "code-001", tests_passed=10, tests_total=10),
        make_run("full", "code-001", tests_passed=9, tests_total=10),
        make_run("full", "research-001", judge_scores=(8, 8)),
        make_run("full", "multi-001", tests_passed=4, tests_total=5, judge_scores=(8,)),
    ]
    rows = board([AUTO, JUDGE, COMPOSITE], runs)["overall"]
    # solo: code 10/10 = 1.0, the other two tasks untested count 0: (1.0 + 0 + 0) / 3 = 1/3; passes 1 of 3.
    # full: code 0.9, research (8 + 8) / 2 / 10 = 0.8, multi 0.6 * 4/5 + 0.4 * 8/10 = 0.48 + 0.32 = 0.8;
    #       (0.9 + 0.8 + 0.8) / 3 = 2.5 / 3 = 0.8333...; all three reach 0.80: 3 of 3.
    assert [r["agent"] for r in rows] == ["full", "solo"]
    full, solo = rows
    assert full["score"] == pytest.approx(2.5 / 3, abs=1e-12) and full["pass_rate"] == 1.0
    assert solo["score"] == pytest.approx(1 / 3, abs=1e-12) and solo["pass_rate"] == pytest.approx(1 / 3)
    assert (solo["tested"], solo["of"]) == (1, 3) and (full["tested"], full["of"]) == (3, 3)


def test_it_leaves_an_agent_with_no_scored_task_blank_not_zero():
    runs = [
        make_run("a", "code-001", tests_passed=1, tests_total=2),
        make_run("idle", "code-001", status="infra_error"),
        make_run("unscored", "code-001", id="u1"),  # completed, and nothing scored it
    ]
    rows = board([AUTO, JUDGE], runs)["overall"]
    # a: (0.5 + 0) / 2 = 0.25, tested 1 of 2. idle and unscored: nothing measured, so no score (not 0), ranked
    # after every score and sharing a rank; unscored's run is listed as not scored.
    assert [(r["agent"], r["score"], r["tested"], r["rank"]) for r in rows] == [
        ("a", 0.25, 1, 1),
        ("idle", None, 0, 2),
        ("unscored", None, 0, 2),
    ]
    idle, unscored = rows[1], rows[2]
    assert (idle["pass_rate"], idle["mean_pass_at_k"]) == (None, None)
    assert unscored["unscored"] == ["u1"] and unscored["unscored_tasks"] == {"code-001": 1}
    # No score, no interval: the bootstrap draws nothing for an agent nothing measured.
    assert {agent for agent, _ in interval_cells(make_round("scored", [AUTO, JUDGE], runs), {"overall": rows})} == {"a"}


def test_it_uses_a_custom_pass_threshold():
    runs = [make_run("a", "code-001", tests_passed=7, tests_total=10)]
    row = board([AUTO], runs, params={"pass_threshold": 0.7})["overall"][0]
    assert row["pass_rate"] == 1.0


def test_it_ignores_infra_errors_and_scores_an_empty_timeout_as_zero():
    runs = [
        make_run("a", "code-001", status="infra_error", tests_passed=1, tests_total=1),
        make_run("a", "research-001", status="timeout"),
    ]
    row = board([AUTO, JUDGE], runs)["overall"][0]
    assert set(row["tasks"]) == {"research-001"}
    assert row["score"] == 0.0


def test_it_keeps_missing_cost_and_latency_as_none_and_counts_them():
    runs = [
        make_run("a", "code-001", tests_passed=1, tests_total=1, cost_usd=0.5, wall_seconds=90),
        make_run("a", "code-001", tests_passed=1, tests_total=2, cost_usd=0.1, trial=2),
        make_run("b", "code-001", tests_passed=1, tests_total=1),
    ]
    out = board([AUTO], runs)
    a, b = row_of(out["overall"], "a"), row_of(out["overall"], "b")
    assert a["cost_usd"] == 0.3 and a["wall_seconds"] == 90.0
    assert b["cost_usd"] is None and b["wall_seconds"] is None
    # a: cost on both runs, time on 1 of 2 (partial); b: neither. Missing cost: b; missing latency: a (part), b.
    assert a["partial_axes"] == ["wall_seconds"] and (a["latency_runs"], a["runs_scored"]) == (1, 2)
    assert out["meta"] == {
        "agents": 2,
        "missing_cost": 1,
        "missing_latency": 2,
        "partial_cost": 0,
        "partial_latency": 1,
        "pass_threshold": 0.8,
    }


def test_it_marks_cost_reported_on_only_some_runs_as_partial():
    runs = [
        make_run(
            "a", "code-001", tests_passed=1, tests_total=1, trial=t, wall_seconds=60, cost_usd=0.01 if t <= 3 else None
        )
        for t in range(1, 11)
    ]
    row = board([AUTO], runs)["overall"][0]
    # Cost on trials 1-3 of 10: mean of the three reported is 0.01, but it covers 3 of 10 runs.
    assert (row["cost_runs"], row["runs_scored"]) == (3, 10)
    assert row["partial_axes"] == ["cost_usd"]
    assert row["cost_usd"] == pytest.approx(0.01)


def test_it_marks_a_cell_whose_best_trial_is_heuristic():
    runs = [make_run("a", "research-001", heuristic=0.5)]
    row = board([JUDGE], runs)["overall"][0]
    assert row["tasks"]["research-001"]["heuristic"] is True
    assert row["heuristic"] is True


def test_it_reranks_with_weights_over_normalised_axes():
    rows = [
        {"agent": "a", "name": "A", "rank": 1, "score": 0.9, "cost_usd": 1.0, "wall_seconds": 100.0},
        {"agent": "b", "name": "B", "rank": 2, "score": 0.7, "cost_usd": 0.1, "wall_seconds": 20.0},
        {"agent": "c", "name": "C", "rank": 3, "score": 0.5, "cost_usd": None, "wall_seconds": 60.0},
    ]
    by_score = rerank(rows, 1, 0, 0)
    assert [r["agent"] for r in by_score] == ["a", "b", "c"]
    cheap = rerank(rows, 1, 1, 0)
    # a: (1 + 0) / 2; b: (0.5 + 1) / 2; c has no cost: 0 / 1
    assert [(r["agent"], r["weighted"]) for r in cheap] == [("b", 0.75), ("a", 0.5), ("c", 0.0)]
    assert cheap[2]["missing_axes"] == ["cost_usd"]
    assert [r["weighted_rank"] for r in cheap] == [1, 2, 3]
    assert [r["rank"] for r in cheap] == [2, 1, 3]
    assert rows[0].get("weighted") is None


def test_a_reranked_axis_whose_values_differ_only_in_their_last_bits_is_all_equal():
    # a's best scores 0.7 and 0.1 average to 0.39999999999999997, b's 0.4 and 0.4 to 0.4: the board ties them
    # (equal to nine decimals), so on each axis both are the whole range's top, 1: weighted 1.0 each, one rank.
    rows = [
        {"agent": "a", "name": "A", "rank": 1, "score": (0.7 + 0.1) / 2, "cost_usd": 0.1 + 0.2, "wall_seconds": 9.0},
        {"agent": "b", "name": "B", "rank": 1, "score": 0.4, "cost_usd": 0.3, "wall_seconds": 9.0},
    ]
    for weights in ((1, 0, 0), (0, 1, 0), (1, 1, 1)):
        out = rerank(rows, *weights)
        assert [(r["weighted"], r["weighted_rank"]) for r in out] == [(1.0, 1), (1.0, 1)], weights


def test_it_scores_a_missing_axis_the_reader_weights_as_the_worst_value():
    rows = [
        {"agent": "fast", "name": "Fast", "rank": 1, "score": 0.9, "cost_usd": None, "wall_seconds": 30.0},
        {"agent": "pricey", "name": "Pricey", "rank": 2, "score": 0.8, "cost_usd": 2.0, "wall_seconds": 60.0},
        {"agent": "cheap", "name": "Cheap", "rank": 3, "score": 0.6, "cost_usd": 0.5, "wall_seconds": 90.0},
    ]
    out = rerank(rows, 1, 1, 0)
    # score scaled over 0.6..0.9: fast 1, pricey 0.2 / 0.3 = 2/3, cheap 0.
    # cost scaled over the two that report it, cheaper -> 1: cheap 1, pricey 0; fast has none: worst, 0.
    # fast (1 + 0) / 2 = 0.5; cheap (0 + 1) / 2 = 0.5; pricey (2/3 + 0) / 2 = 1/3.
    # fast and cheap tie at 0.5 and the one with full data goes first: a gap never lifts an agent.
    assert [r["agent"] for r in out] == ["cheap", "fast", "pricey"]
    assert [r["weighted_rank"] for r in out] == [1, 2, 3]
    assert out[1]["weighted"] == 0.5 and out[1]["worst_axes"] == ["cost_usd"]
    assert out[2]["weighted"] == pytest.approx(1 / 3)
    # Leaving cost out of the weights, fast's gap no longer matters: score only puts it first.
    assert rerank(rows, 1, 0, 0)[0]["agent"] == "fast"
    assert rerank(rows, 1, 0, 0)[0]["worst_axes"] == []


def test_it_never_ranks_a_partly_reported_axis_ahead():
    rows = [
        {
            "agent": "under",
            "name": "Under",
            "rank": 1,
            "score": 0.7,
            "cost_usd": 0.01,
            "wall_seconds": 50.0,
            "partial_axes": ["cost_usd"],
        },  # cost on 3 of 10 runs
        {"agent": "full", "name": "Full", "rank": 1, "score": 0.7, "cost_usd": 0.40, "wall_seconds": 50.0},
    ]
    out = rerank(rows, 0, 1, 0)
    # Cost only. Only "full" reports cost on every run, so it alone is scaled: 1. "under" looks 40 times
    # cheaper on 3 runs of 10, but a partial axis scores the worst value, 0: full 1 > under 0.
    assert [(r["agent"], r["weighted"]) for r in out] == [("full", 1.0), ("under", 0.0)]
    assert out[1]["partial_axes"] == ["cost_usd"] and out[1]["worst_axes"] == ["cost_usd"]


def test_it_leaves_every_agent_unranked_with_all_weights_zero():
    rows = [{"agent": "a", "name": "A", "rank": 1, "score": 0.5, "cost_usd": None, "wall_seconds": None}]
    assert rerank(rows, 0, 0, 0)[0]["weighted"] is None


@pytest.mark.parametrize("weights", [(-1, 0, 0), (1, float("inf"), 0), (1, 0, float("nan"))])
def test_it_refuses_negative_or_infinite_weights(weights):
    with pytest.raises(ValueError, match=r"^weights must be finite and >= 0$"):
        rerank([], *weights)


def test_a_reranked_row_with_every_axis_reported_in_full_has_no_partial_or_missing_axis():
    rows = [
        {"agent": "a", "name": "A", "rank": 1, "score": 0.9, "cost_usd": 1.0, "wall_seconds": 100.0},
        {"agent": "b", "name": "B", "rank": 2, "score": 0.7, "cost_usd": 0.1, "wall_seconds": 20.0},
    ]
    out = rerank(rows, 1, 1, 1)
    # score over 0.7..0.9: a 1, b 0; cost inverted over 0.1..1.0: a 0, b 1; time inverted over 20..100: a 0,
    # b 1. a (1 + 0 + 0) / 3 = 1/3; b (0 + 1 + 1) / 3 = 2/3.
    assert [(r["agent"], r["weighted"]) for r in out] == [("b", pytest.approx(2 / 3)), ("a", pytest.approx(1 / 3))]
    assert [(r["missing_axes"], r["partial_axes"], r["worst_axes"]) for r in out] == [([], [], []), ([], [], [])]


def test_the_board_carries_the_mean_pass_at_k_over_the_rounds_tasks():
    # t1: trials 9/10 (0.9, a pass) and 5/10 (0.5): pass@k = 1/2. t2: one trial 17/20 = 0.85, a pass: 1/1.
    # Mean pass@k = (0.5 + 1.0) / 2 = 0.75, stored with the board so the page never computes it.
    t1, t2 = make_task("t1", evaluation="auto"), make_task("t2", evaluation="auto")
    runs = [
        make_run("a", "t1", trial=1, tests_passed=9, tests_total=10),
        make_run("a", "t1", trial=2, tests_passed=5, tests_total=10),
        make_run("a", "t2", trial=1, tests_passed=17, tests_total=20),
    ]
    row = row_of(board([t1, t2], runs)["overall"], "a")
    assert row["mean_pass_at_k"] == 0.75


def test_it_counts_a_skipped_task_as_0_in_the_mean_pass_at_k():
    # Three auto tasks. "solo" ran only t1, three trials: 10/10, 9/10, 5/10 -> 1.0 and 0.9 pass, 0.5 does not:
    # pass@k on t1 = 2/3. t2 and t3 skipped: 0 each, as in the headline score. Mean pass@k =
    # (2/3 + 0 + 0) / 3 = 2/9 = 0.2222..., not the 2/3 of the one task it ran.
    tasks = [make_task(k, evaluation="auto") for k in ("t1", "t2", "t3")]
    runs = [
        make_run("solo", "t1", trial=1, tests_passed=10, tests_total=10),
        make_run("solo", "t1", trial=2, tests_passed=9, tests_total=10),
        make_run("solo", "t1", trial=3, tests_passed=5, tests_total=10),
    ]
    row = row_of(board(tasks, runs)["overall"], "solo")
    assert row["tasks"]["t1"]["pass_at_k"] == pytest.approx(2 / 3)
    assert row["mean_pass_at_k"] == pytest.approx(2 / 9)


def test_a_composite_on_the_threshold_passes_though_floats_land_a_rounding_error_below():
    # Seed 002: "An agent passes a task if its score >= 0.80". Tests 14 of 15 and one judge criterion of 6:
    # 0.6 * 14/15 + 0.4 * 6/10 = 0.56 + 0.24 = 0.80 exactly, a pass; in floats the sum is 0.7999999999999999.
    runs = [make_run("a", "multi-001", tests_passed=14, tests_total=15, judge_scores=(6,))]
    row = board([COMPOSITE], runs)["overall"][0]
    assert row["tasks"]["multi-001"]["pass_at_k"] == 1.0
    assert row["pass_rate"] == 1.0


def test_a_score_just_under_the_threshold_fails():
    # 0.6 * 13/15 + 0.4 * 6/10 = 0.52 + 0.24 = 0.76 < 0.80: no pass (pass@k 0 of 1, pass rate 0 of 1).
    runs = [make_run("a", "multi-001", tests_passed=13, tests_total=15, judge_scores=(6,))]
    row = board([COMPOSITE], runs)["overall"][0]
    assert row["tasks"]["multi-001"]["pass_at_k"] == 0.0
    assert row["pass_rate"] == 0.0


def test_the_task_cell_lists_every_scored_trial_with_its_score_source_and_pass():
    # Seed 002 on an auto task: trial 1 has no score at all (no test counts, nothing published): not a trial.
    # Trial 2 timed out with nothing to score: 0. Trial 3 passed 9 of 10 tests: 0.9, published as 0.9.
    # Trial 4 passed 4 of 5: 0.8 (a pass: score >= 0.80), published as 0.7 (flagged as differing).
    # Best 0.9 (trial 3); passes 2 of 3 trials: pass@k 2/3. Scored runs 2, 3 and 4; times on trials 2 and 3.
    runs = [
        make_run("a", "code-001", id="t1", trial=1, status="completed"),
        make_run("a", "code-001", id="t2", trial=2, status="timeout", wall_seconds=300.0),
        make_run(
            "a",
            "code-001",
            id="t3",
            trial=3,
            tests_passed=9,
            tests_total=10,
            score=0.9,
            wall_seconds=30.0,
            first_output_seconds=4.0,
        ),
        make_run("a", "code-001", id="t4", trial=4, tests_passed=4, tests_total=5, score=0.7),
    ]
    row = board([AUTO], runs)["overall"][0]
    trial = {"heuristic": False}
    assert row["tasks"]["code-001"] == {
        "best": 0.9,
        "best_run": "t3",
        "trials": 3,
        "passes": 2,
        "pass_at_k": 2 / 3,
        "passed": True,
        "heuristic": False,
        "runs": ["t2", "t3", "t4"],
        "scores": [
            {
                **trial,
                "run": "t2",
                "trial": 2,
                "status": "timeout",
                "score": 0.0,
                "source": "timeout",
                "passed": False,
                "published_score": None,
                "score_differs": False,
            },
            {
                **trial,
                "run": "t3",
                "trial": 3,
                "status": "completed",
                "score": 0.9,
                "source": "auto",
                "passed": True,
                "published_score": 0.9,
                "score_differs": False,
            },
            {
                **trial,
                "run": "t4",
                "trial": 4,
                "status": "completed",
                "score": 0.8,
                "source": "auto",
                "passed": True,
                "published_score": 0.7,
                "score_differs": True,
            },
        ],
    }
    # The row: the one task's best 0.9 is the score (and the overall); trial 1 is listed as unscored.
    assert (row["score"], row["overall"], row["pass_rate"]) == (0.9, 0.9, 1.0)
    assert row["unscored"] == ["t1"]
    assert (row["runs_scored"], row["latency_runs"], row["cost_runs"]) == (3, 2, 0)
    # Mean times of the scored runs that report them: (300 + 30) / 2 = 165 s; first output on trial 3: 4 s.
    assert (row["wall_seconds"], row["first_output_seconds"]) == (165.0, 4.0)


def test_a_published_score_a_rounding_error_from_the_computed_one_is_not_flagged():
    # 1 of 1,000,000,000 tests is 1e-9; published as 0: the difference is within the 1e-9 tolerance.
    runs = [make_run("a", "code-001", id="x", tests_passed=1, tests_total=1_000_000_000, score=0.0)]
    cell = board([AUTO], runs)["overall"][0]["tasks"]["code-001"]
    assert cell["scores"][0]["score_differs"] is False


def test_a_score_a_rounding_error_below_the_threshold_passes():
    # "score >= 0.80", with floats allowed a 1e-9 rounding error below it; 2e-9 below is a fail.
    assert passes(0.8 - 1e-9, 0.8) is True
    assert passes(0.8 - 2e-9, 0.8) is False


def test_it_ranks_by_score_not_by_name_and_equal_scores_share_a_rank():
    runs = [
        make_run("ant", "code-001", tests_passed=1, tests_total=2),
        make_run("bee", "code-001", tests_passed=9, tests_total=10),
        make_run("cat", "code-001", tests_passed=18, tests_total=20),
    ]
    rows = board([AUTO], runs)["overall"]
    # ant 1/2 = 0.5; bee 9/10 = 0.9; cat 18/20 = 0.9: bee and cat share first place (by name), ant is third.
    assert [(r["agent"], r["rank"]) for r in rows] == [("bee", 1), ("cat", 1), ("ant", 3)]


def test_a_round_without_tasks_leaves_every_score_blank():
    out = compute_scored_boards(make_round("scored", [], [], agents=[make_agent("a")]))
    row = out["overall"][0]
    assert (row["score"], row["pass_rate"], row["tested"], row["of"], row["rank"]) == (None, None, 0, 0, 1)


def test_the_interval_resamples_each_agents_best_trial_and_a_task_without_a_score_as_an_unrun_zero():
    runs = [make_run("a", "code-001", tests_passed=9, tests_total=10), make_run("b", "research-001", judge_scores=(5,))]
    round_input = make_round("scored", [AUTO, JUDGE], runs)
    cells = interval_cells(round_input, compute_scored_boards(round_input))
    # a: code 9/10 = 0.9 (ran), research none (0, not ran); b: code none, research 5/10 = 0.5.
    assert cells == {
        ("a", "code-001"): ([0.9], True),
        ("a", "research-001"): ([0.0], False),
        ("b", "code-001"): ([0.0], False),
        ("b", "research-001"): ([0.5], True),
    }


def test_the_board_counts_agents_missing_each_axis_wholly_or_on_some_runs():
    # "surface 'n agents missing data on axis X'". full: cost and time on both runs. part: cost on 1 of 2
    # runs (partial cost), time on both. none: no cost, time on 1 of 2 (partial latency). zero: neither.
    # missing cost: part, none, zero = 3 (1 of them partial); missing latency: none, zero = 2 (1 partial).
    def two(agent, costs, times):
        return [
            make_run(agent, "code-001", trial=t, tests_passed=1, tests_total=1, cost_usd=c, wall_seconds=s)
            for t, c, s in zip((1, 2), costs, times, strict=True)
        ]

    runs = [
        *two("full", (0.1, 0.2), (10.0, 20.0)),
        *two("part", (0.1, None), (10.0, 20.0)),
        *two("none", (None, None), (10.0, None)),
        make_run("zero", "code-001", tests_passed=1, tests_total=1),
    ]
    assert board([AUTO], runs)["meta"] == {
        "agents": 4,
        "missing_cost": 3,
        "missing_latency": 2,
        "partial_cost": 1,
        "partial_latency": 1,
        "pass_threshold": 0.8,
    }


def test_an_llm_judge_task_scores_by_its_judge_alone_even_with_test_counts():
    # "LLM Judge (llm-judge) ... Final score = average / 10": 7/10 = 0.7; the 1-of-4 tests are not its evaluation.
    run = make_run("a", "research-001", tests_passed=1, tests_total=4, judge_scores=(7,))
    assert run_score(run, JUDGE) == RunScore(0.7, False, "llm-judge")


def test_judge_scores_keep_a_published_composite_from_being_capped_by_a_stray_heuristic():
    # A composite with no test counts falls back to its published 0.88; its judged part rests on the judge's
    # 8/10, not on the heuristic, so the 0.60 cap does not apply and the score is not marked.
    run = make_run("a", "multi-001", judge_scores=(8,), heuristic=0.9, score=0.88)
    assert run_score(run, COMPOSITE) == RunScore(0.88, False, "published")


def test_a_run_with_nothing_to_score_has_no_score():
    assert run_score(make_run("a", "code-001", status="completed"), AUTO) == RunScore(None, False, "none")


def test_test_counts_with_no_tests_give_no_share_and_the_published_pass_rate_stands():
    # "Score = tests_passed / tests_total": with 0 tests there is no share; the pass rate published with the
    # run (0.5) is the auto part. A total without a count of passed tests gives no share either.
    assert run_score(make_run("a", "code-001", tests_passed=0, tests_total=0, auto_pass_rate=0.5), AUTO).score == 0.5
    assert run_score(make_run("a", "code-001", tests_total=4, auto_pass_rate=0.25), AUTO).score == 0.25
