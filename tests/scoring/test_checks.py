from scoring.checks import check_score, compute_checks_boards, votable
from tests.builders.scoring import make_round, make_run, make_task, row_of

SHOP = make_task("shop", kind="to-spec", time_limit_min=60, token_budget=1000)
BOOK = make_task("booking", kind="to-spec")
CHAT = make_task("messenger", kind="invent")


def checks_run(agent, task="shop", api=(8, 10), browser=(3, 4), **kw):
    kw.setdefault("app_started", True)
    return make_run(
        agent,
        task,
        api_checks_passed=api[0],
        api_checks_total=api[1],
        browser_steps_passed=browser[0],
        browser_steps_total=browser[1],
        **kw,
    )


def boards(tasks, runs):
    return compute_checks_boards(make_round("checks", tasks, runs))


def test_it_scores_half_api_and_half_browser():
    assert check_score(checks_run("a"), SHOP) == 50 * 8 / 10 + 50 * 3 / 4


def test_it_scores_an_app_that_did_not_start_as_zero():
    assert check_score(checks_run("a", app_started=False), SHOP) == 0.0
    assert check_score(checks_run("a", status="not_started"), SHOP) == 0.0


def test_it_counts_a_missing_half_as_zero():
    run = make_run("a", "shop", app_started=True, api_checks_passed=10, api_checks_total=10)
    assert check_score(run, SHOP) == 50.0


def test_it_admits_invent_runs_at_100():
    assert check_score(checks_run("a", "messenger", api=(2, 2), browser=(1, 1)), CHAT) == 100.0
    assert check_score(checks_run("a", "messenger", api=(1, 2), browser=(1, 1)), CHAT) == 0.0


def test_it_takes_the_median_run_and_its_range():
    runs = [checks_run("a", api=(p, 10), browser=(0, 4), id=f"r{p}", trial=p) for p in (2, 9, 5)]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert row["median"] == 25.0 and row["median_run"] == "r5"
    assert (row["min"], row["max"], row["runs"]) == (10.0, 45.0, 3)


def test_it_takes_the_lower_middle_run_for_an_even_count():
    runs = [checks_run("a", api=(p, 10), browser=(0, 4), trial=i) for i, p in enumerate((2, 9, 5, 7), 1)]
    assert boards([SHOP], runs)["tasks"]["shop"][0]["median"] == 25.0


def test_of_two_equal_scores_the_median_is_the_worse_run_in_the_full_order():
    # Both score 77.5; by tokens "big" (600) is worse than "small" (400). Worst first: big, small; an even count
    # takes the lower (worse) middle, index (2 - 1) // 2 = 0: big, not the cheaper small.
    runs = [
        checks_run("a", tokens_input=500, tokens_output=100, id="big", trial=1),
        checks_run("a", tokens_input=300, tokens_output=100, id="small", trial=2),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert row["median_run"] == "big" and row["tokens"] == 600


def test_it_leaves_out_runs_over_time_or_token_budget():
    runs = [
        checks_run("a", api=(10, 10), browser=(4, 4), wall_seconds=3601),
        checks_run("a", api=(10, 10), browser=(4, 4), tokens_input=900, tokens_output=50, tokens_cache_write=51),
        checks_run("a", api=(0, 10), browser=(0, 4), wall_seconds=3600, tokens_input=999, tokens_output=1),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert row["runs"] == 1 and row["median"] == 0.0 and row["not_counted"] == 2


def test_it_never_counts_infra_errors_or_over_budget_runs():
    runs = [
        checks_run("a", status=s, api=(10, 10), browser=(4, 4))
        for s in ("infra_error", "over_budget", "region_blocked", "unsupported")
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert row["median"] is None and row["runs"] == 0


def test_it_ranks_task_boards_by_median_then_tokens_then_time():
    runs = [
        checks_run("a", tokens_input=10, tokens_output=10, wall_seconds=50),
        checks_run("b", tokens_input=10, tokens_output=5, wall_seconds=90),
        checks_run("c", tokens_input=10, tokens_output=5, wall_seconds=40),
        checks_run("d", api=(10, 10), browser=(4, 4)),
    ]
    board = boards([SHOP], runs)["tasks"]["shop"]
    assert [(r["agent"], r["rank"]) for r in board] == [("d", 1), ("c", 2), ("b", 3), ("a", 4)]


def test_it_averages_medians_over_to_spec_tasks_counting_missing_as_zero():
    runs = [
        checks_run("a", "shop", api=(10, 10), browser=(4, 4)),
        checks_run("a", "messenger", api=(1, 1), browser=(1, 1)),
        checks_run("b", "shop", api=(5, 10), browser=(2, 4)),
        checks_run("b", "booking", api=(5, 10), browser=(2, 4)),
    ]
    out = boards([SHOP, BOOK, CHAT], runs)
    a, b = row_of(out["overall"], "a"), row_of(out["overall"], "b")
    assert a["overall"] == 50.0 and a["tasks"] == {"booking": None, "shop": 100.0}
    assert b["overall"] == 50.0
    assert a["rank"] == b["rank"] == 1
    assert (b["min"], b["max"], b["runs"]) == (50.0, 50.0, 2)
    assert "messenger" in out["tasks"]


def test_a_run_whose_app_never_started_counts_as_zero_in_the_median_and_range():
    # Seed 003: "If the app didn't start, the score is 0", and such a run is handed in like any other.
    # Trials: never started -> 0; API 8/10 and steps 3/4 -> 50 * 0.8 + 50 * 0.75 = 40 + 37.5 = 77.5;
    # API 4/10 and steps 2/4 -> 20 + 25 = 45. Three counted runs: median 45, range 0 to 77.5.
    runs = [
        checks_run("a", status="not_started", app_started=None, api=(0, 0), browser=(0, 0), trial=1),
        checks_run("a", api=(8, 10), browser=(3, 4), trial=2),
        checks_run("a", api=(4, 10), browser=(2, 4), trial=3),
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert (row["median"], row["min"], row["max"], row["runs"]) == (45.0, 0.0, 77.5, 3)


def test_only_counted_runs_whose_app_started_are_shown_in_votes_and_invent_runs_only_when_admitted():
    # Seed 003: a run shown in a blind vote must count in the rankings and its app must have started (check 1:
    # it starts and shows the data); on an invent or startup task the checks must also admit it.
    assert votable(checks_run("a", api=(3, 10), browser=(0, 4)), SHOP) is True  # a low score still counts
    assert votable(checks_run("a", app_started=False), SHOP) is False
    assert votable(checks_run("a", status="not_started"), SHOP) is False  # counts (as 0), nothing to show
    assert votable(checks_run("a", status="over_budget"), SHOP) is False  # not in the rankings
    assert votable(checks_run("a", wall_seconds=60 * 60 + 1), SHOP) is False  # over the 60-minute limit
    assert votable(checks_run("a", tokens_input=900, tokens_output=101), SHOP) is False  # 1001 > 1000 tokens
    assert votable(checks_run("a", status="timeout", wall_seconds=60 * 60), SHOP) is True  # handed in at the limit
    assert votable(checks_run("a", "messenger", api=(2, 2), browser=(1, 1)), CHAT) is True
    assert votable(checks_run("a", "messenger", api=(1, 2), browser=(1, 1)), CHAT) is False


def test_an_invent_run_keeps_its_published_score_only_when_nothing_was_checked():
    # "one that passes scores 100": admission decides whenever the app's start or any check was recorded; a
    # run with neither (start unknown, no checks) keeps the score published with it, else 0.
    def invent(score, app_started=None, api=(0, 0), browser=(0, 0)):
        return check_score(
            checks_run("a", "messenger", api=api, browser=browser, app_started=app_started, score=score), CHAT
        )

    assert invent(100) == 100.0 and invent(40) == 40.0  # nothing checked: as published
    assert invent(None) == 0.0  # nothing checked, nothing published
    assert invent(40, app_started=True) == 100.0  # started, no check failed: admitted
    assert invent(30, api=(2, 2), browser=(1, 1)) == 100.0  # checks all passed
    assert invent(30, api=(2, 2)) == 100.0  # API checks only, all passed
    assert invent(30, api=(1, 2)) == 0.0  # a failed check: not admitted


def test_a_to_spec_run_without_checks_keeps_its_published_score_else_scores_zero():
    run = make_run("a", "shop", app_started=True)
    assert check_score(run, SHOP) == 0.0
    assert check_score(make_run("a", "shop", app_started=True, score=70), SHOP) == 70.0
    # A half whose checks number 0 has no share: 4/4 browser steps alone give 50 * 0 + 50 * 1 = 50.
    browser_only = checks_run("a", api=(0, 0), browser=(4, 4))
    assert check_score(browser_only, SHOP) == 50.0
    # A part with a total but no count of passed checks has no share either: 50 * 0 + 50 * 3/4 = 37.5.
    unknown = checks_run("a", api=(None, 10), browser=(3, 4))
    assert check_score(unknown, SHOP) == 37.5


def test_equal_median_runs_with_equal_tokens_are_ordered_by_time_and_the_middle_one_stands():
    # Three runs of 55 (6/10 API, 2/4 browser) with 400 tokens each; times 90 s (trial 1), 30 s (trial 2),
    # 60 s (trial 3). "fewer tokens ..., then less time": worst first 90, 60, 30; the middle, index
    # (3 - 1) // 2 = 1, is the 60-second run, not the fastest.
    runs = [
        checks_run("a", api=(6, 10), browser=(2, 4), tokens_input=300, tokens_output=100, wall_seconds=s, trial=t, id=i)
        for t, s, i in ((1, 90.0, "slow"), (2, 30.0, "fast"), (3, 60.0, "mid"))
    ]
    row = boards([SHOP], runs)["tasks"]["shop"][0]
    assert (row["median"], row["median_run"], row["tokens"], row["seconds"]) == (55.0, "mid", 400, 60.0)


def test_a_run_total_adds_cache_writes_and_is_unknown_without_input_or_output():
    # "The budget counts input tokens, cache writes and output": 300 + 50 + 100 = 450. Missing usage never
    # counts as zero: with the input or the output unknown the total is unknown.
    known = checks_run("a", "booking", tokens_input=300, tokens_output=100, tokens_cache_write=50)
    assert boards([BOOK], [known])["tasks"]["booking"][0]["tokens"] == 450
    no_input = checks_run("a", "booking", tokens_input=None, tokens_output=100)
    no_output = checks_run("a", "booking", tokens_input=300, tokens_output=None)
    assert boards([BOOK], [no_input])["tasks"]["booking"][0]["tokens"] is None
    assert boards([BOOK], [no_output])["tasks"]["booking"][0]["tokens"] is None


def test_an_agent_without_a_counted_run_on_an_invent_task_is_not_admitted_and_has_no_median_run():
    runs = [checks_run("a", "messenger", api=(2, 2), browser=(1, 1), status="over_budget")]
    row = boards([CHAT], runs)["tasks"]["messenger"][0]
    assert (row["admitted"], row["median"], row["median_run"], row["runs"], row["not_counted"]) == (
        False,
        None,
        None,
        0,
        1,
    )


def test_the_interval_leaves_out_a_task_awaiting_a_rerun():
    from scoring.checks import interval_cells

    # a: shop 50 and 100 (both counted), booking only an infra error (awaiting a re-run: left out).
    # b: shop not run (0, not ran), booking 25 (5/10, 0/4).
    runs = [
        checks_run("a", api=(5, 10), browser=(2, 4), trial=1),
        checks_run("a", api=(10, 10), browser=(4, 4), trial=2),
        checks_run("a", "booking", status="infra_error"),
        checks_run("b", "booking", api=(5, 10), browser=(0, 4)),
    ]
    round_input = make_round("checks", [SHOP, BOOK, CHAT], runs)
    assert interval_cells(round_input, compute_checks_boards(round_input)) == {
        ("a", "shop"): ([50.0, 100.0], True),
        ("b", "shop"): ([0.0], False),
        ("b", "booking"): ([25.0], True),
    }


def test_the_overall_row_counts_an_unrun_task_as_zero_in_the_score_and_its_range_and_its_usage_as_unknown():
    from tests.builders.scoring import make_agent

    # a: shop 50 (400 tokens, 30 s) and 100 (tokens unknown): lower middle 50, the 400-token run; booking 25
    #    (200 tokens, time unknown). Overall (50 + 25) / 2 = 37.5; worst (50 + 25) / 2 = 37.5; best
    #    (100 + 25) / 2 = 62.5; tokens 400 + 200 = 600; time unknown on booking's median run: unknown.
    # b: shop 100 (tokens unknown, 60 s), booking not run (0): overall, worst and best (100 + 0) / 2 = 50;
    #    tokens unknown; time unknown too: booking has no median run, so 60 s would be a sum over shop only.
    # c: entered, no run: 0 everywhere, no tokens, no time.
    runs = [
        checks_run("a", api=(5, 10), browser=(2, 4), tokens_input=300, tokens_output=100, wall_seconds=30.0, trial=1),
        checks_run("a", api=(10, 10), browser=(4, 4), trial=2),
        checks_run("a", "booking", api=(5, 10), browser=(0, 4), tokens_input=150, tokens_output=50),
        checks_run("b", api=(10, 10), browser=(4, 4), wall_seconds=60.0),
    ]
    agents = [make_agent(x) for x in ("a", "b", "c")]
    rows = compute_checks_boards(make_round("checks", [SHOP, BOOK], runs, agents=agents))["overall"]
    fields = ("agent", "rank", "overall", "min", "max", "tokens", "seconds", "runs", "tested", "of")
    assert [tuple(r[f] for f in fields) for r in rows] == [
        ("b", 1, 50.0, 50.0, 50.0, None, None, 1, 1, 2),
        ("a", 2, 37.5, 37.5, 62.5, 600, None, 3, 2, 2),
        ("c", 3, 0.0, 0.0, 0.0, None, None, 0, 0, 2),
    ]
