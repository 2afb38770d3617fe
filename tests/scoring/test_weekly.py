import pytest

from scoring.types import EntryInput
from scoring.weekly import compute_weekly_boards
from tests.builders.scoring import make_agent, make_round, make_run, make_task, row_of, verdicts

TASKS = [make_task(k) for k in ("trip", "inbox", "research", "grocery", "expense")]


def table(runs, tasks=None, **kw):
    """The week's table; the round's task set defaults, as for a bundle without `rounds[].tasks`, to the
    tasks with any run in the round."""
    if tasks is None:
        tasks = [t for t in TASKS if any(r.task == t.key for r in runs)]
    return compute_weekly_boards(make_round("weekly", tasks, runs, **kw))["overall"]


def week(agent, outcomes, **kw):
    keys = ["trip", "inbox", "research", "grocery", "expense"]
    return [make_run(agent, k, outcome=o, **kw) for k, o in zip(keys, outcomes, strict=False) if o]


def test_it_counts_passes_partials_fails_points_and_pass_rate():
    row = table(week("a", ["pass", "partial", "fail", "pass", "partial"]))[0]
    assert (row["passes"], row["partials"], row["fails"], row["points"]) == (2, 2, 1, 6)
    assert row["pass_rate"] == 2 / 5


def test_it_divides_by_the_tasks_run_that_week():
    runs = [
        make_run("a", "trip", outcome="pass"),
        make_run("b", "trip", outcome="fail"),
        make_run("b", "inbox", outcome="pass"),
    ]
    assert row_of(table(runs), "a")["pass_rate"] == 1 / 2


def test_it_divides_by_the_rounds_task_set_when_the_round_names_it():
    # The round lists all five tasks; a passed trip only and b passed inbox only, nobody ran the other
    # three. "Passes divided by the number of tasks that week": 1 / 5 = 0.2 each, not 1 / 2.
    runs = [make_run("a", "trip", outcome="pass"), make_run("b", "inbox", outcome="pass")]
    rows = table(runs, tasks=TASKS)
    assert [r["pass_rate"] for r in rows] == [0.2, 0.2]


def test_it_fails_a_run_that_reaches_the_30_minute_cap():
    runs = [
        make_run("a", "trip", outcome="pass", wall_seconds=1800),
        make_run("a", "inbox", outcome="pass", status="timeout"),
        make_run("a", "research", outcome="pass", wall_seconds=1799.5),
    ]
    row = table(runs)[0]
    assert row["passes"] == 1 and row["fails"] == 2
    assert row["tasks"]["trip"]["capped"] is True
    # trip reached the cap: 30 min = 1800 s; inbox timed out with no time recorded: the full 1800 s, not 0;
    # research finished half a second early: 1799.5 s. 1800 + 1800 + 1799.5 = 5399.5 s.
    assert row["seconds"] == 5399.5
    assert row["tasks"]["inbox"]["seconds"] == 1800


def test_it_caps_every_task_at_30_minutes_whatever_its_time_limit():
    short = make_task("trip", time_limit_min=20)
    long = make_task("inbox", time_limit_min=60)
    runs = [
        make_run("a", "trip", outcome="pass", wall_seconds=25 * 60),
        make_run("a", "inbox", outcome="pass", wall_seconds=40 * 60),
    ]
    row = compute_weekly_boards(make_round("weekly", [short, long], runs))["overall"][0]
    # trip: 25 min is under the 30-minute cap, so the pass stands (its 20-minute limit is not 004's cap).
    # inbox: 40 min is past 30 minutes, so it is a fail and its time stops at 30 min.
    assert row["tasks"]["trip"]["outcome"] == "pass" and row["tasks"]["trip"]["capped"] is False
    assert row["tasks"]["inbox"]["outcome"] == "fail" and row["tasks"]["inbox"]["capped"] is True
    # 25 * 60 + 30 * 60 = 1500 + 1800 = 3300 s
    assert row["seconds"] == 3300


def test_it_uses_the_reviewed_outcome():
    runs = [
        make_run("a", "trip", verdicts=verdicts("pass", "partial", "partial")),
        make_run("a", "inbox", verdicts=verdicts("pass", "fail")),
    ]
    row = table(runs)[0]
    assert row["tasks"]["trip"]["outcome"] == "partial"
    assert row["in_review"] == ["inbox"]


def test_a_third_verdict_beside_a_tester_and_second_who_agree_decides_nothing():
    # Tester and second agree on pass: trip is a pass whatever the third said (a third decides a disagreement
    # only, 000 §5, as on the outcomes board), so 1 pass of 1 task: pass rate 1 / 1 = 100%.
    runs = [make_run("a", "trip", verdicts=verdicts("pass", "pass", "fail"))]
    row = table(runs)[0]
    assert row["tasks"]["trip"]["outcome"] == "pass" and row["pass_rate"] == 1.0


def test_it_takes_a_lone_tester_label_as_the_outcome():
    runs = [make_run("a", "trip", verdicts=verdicts("partial"), outcome="pass")]
    row = table(runs)[0]
    assert row["tasks"]["trip"]["outcome"] == "partial"
    assert row["in_review"] == []


def test_it_sums_interventions_and_calls_a_week_with_any_missing_count_unknown():
    runs = (
        week("a", ["pass", "pass"], interventions=None)
        + [make_run("b", "trip", outcome="pass", interventions=2), make_run("b", "inbox", outcome="pass")]
        + [
            make_run("c", "trip", outcome="pass", interventions=2),
            make_run("c", "inbox", outcome="pass", interventions=1),
        ]
    )
    rows = table(runs)
    assert row_of(rows, "a")["interventions"] is None
    # b: 2 on trip, nothing recorded on inbox: unknown, not 2 + 0.
    assert row_of(rows, "b")["interventions"] is None
    assert row_of(rows, "b")["interventions_unrecorded"] == ["inbox"]
    # c: 2 + 1 = 3
    assert row_of(rows, "c")["interventions"] == 3


def test_it_ranks_unknown_interventions_after_known_totals_at_the_same_pass_rate():
    runs = (
        week("quiet", ["pass", "fail"], interventions=None)  # 1 of 2; counts unrecorded
        + [
            make_run("steady", "trip", outcome="pass", interventions=3),
            make_run("steady", "inbox", outcome="fail", interventions=2),
        ]  # 1 of 2; 3 + 2 = 5
        + [
            make_run("gappy", "trip", outcome="pass", interventions=0),
            make_run("gappy", "inbox", outcome="fail"),
        ]  # 1 of 2; 0 + unknown
        + week("ace", ["pass", "pass"], interventions=None)
    )  # 2 of 2; unknown
    rows = table(runs)
    # ace has the higher pass rate (2/2), so its unknown count does not matter. At 1/2: steady's known 5
    # comes before gappy (0 recorded, one run unknown) and quiet (all unknown); those two tie on
    # interventions and cost and go by name, Gappy before Quiet.
    assert [r["agent"] for r in rows] == ["ace", "steady", "gappy", "quiet"]


def test_a_task_without_a_run_leaves_interventions_and_dollars_unknown_and_ranks_after_known_totals():
    # Week of 3 tasks (004: "Fewer human interventions across those tasks"). Every run: 1 intervention, $1.00.
    # runner: trip pass, inbox fail, research fail -> 1/3, 1 + 1 + 1 = 3 interventions, $3.00.
    # skipper: trip pass, inbox fail, no research run -> 1/3; the research term is missing: unknown, not 2 / $2.
    # glitch: as skipper, but research was a platform failure (not counted): unknown too.
    # All at 1/3: runner's known 3 comes first; glitch and skipper tie (unknown, unknown dollars) -> by name.
    # Summing what ran would put skipper and glitch (2) above runner (3).
    tasks = TASKS[:3]
    runs = week("runner", ["pass", "fail", "fail"], interventions=1, cost_usd=1.0)
    runs += week("skipper", ["pass", "fail"], interventions=1, cost_usd=1.0)
    runs += week("glitch", ["pass", "fail"], interventions=1, cost_usd=1.0)
    runs += [make_run("glitch", "research", status="infra_error", interventions=0, cost_usd=0.0)]
    rows = table(runs, tasks=tasks)
    assert [r["agent"] for r in rows] == ["runner", "glitch", "skipper"]
    runner, skipper = row_of(rows, "runner"), row_of(rows, "skipper")
    assert (runner["interventions"], runner["cost_usd"], runner["cost_kind"]) == (3, 3.0, "dollars")
    assert (skipper["interventions"], skipper["cost_usd"], skipper["cost_kind"]) == (None, None, "unknown")
    assert skipper["tasks_without_run"] == ["research"] and row_of(rows, "glitch")["tasks_without_run"] == ["research"]
    assert skipper["pass_rate"] == pytest.approx(1 / 3)


def test_a_skipped_tasks_smaller_dollar_sum_does_not_win_the_cost_tie_break():
    # Week of 3 tasks; both agents have an unrecorded intervention count (unknown, a tie on interventions) and
    # pass 1 of 3. zoe ran all three at $1.00: $3.00. aaron skipped research: $1 + $1 = $2 is not its week's
    # cost; unknown, and "An agent with only a plan label does not outrank an agent with a measured dollar
    # cost" holds for an unknown one too -> zoe before aaron, though aaron's $2 < $3 and "aaron" < "zoe".
    runs = week("zoe", ["pass", "fail", "fail"], cost_usd=1.0) + week("aaron", ["pass", "fail"], cost_usd=1.0)
    rows = table(runs, tasks=TASKS[:3])
    assert [r["agent"] for r in rows] == ["zoe", "aaron"]
    assert row_of(rows, "aaron")["cost_usd"] is None


def test_a_weeks_time_missing_some_runs_times_says_how_many():
    # 004: "Time is published with the result". trip 600 s; inbox and research completed with no time
    # recorded; expense timed out with no time: the cap, 1,800 s. Total of the known: 600 + 1800 = 2,400 s,
    # with 2 runs without a time beside it (never a plain 2,400 s).
    runs = [
        make_run("a", "trip", outcome="pass", wall_seconds=600.0),
        make_run("a", "inbox", outcome="fail"),
        make_run("a", "research", outcome="pass"),
        make_run("a", "expense", status="timeout"),
    ]
    row = table(runs)[0]
    assert (row["seconds"], row["runs_without_time"]) == (2400.0, 2)
    full = table([make_run("b", "trip", outcome="pass", wall_seconds=60.0)])[0]
    assert (full["seconds"], full["runs_without_time"]) == (60.0, 0)


def test_it_breaks_the_last_tie_alphabetically_ignoring_case():
    agents = [
        make_agent("zed", name="Zed"),
        make_agent("aider", name="aider"),
        make_agent("claude", name="Claude Code"),
    ]
    runs = [make_run(a.slug, "trip", outcome="pass", interventions=0) for a in agents]
    rows = compute_weekly_boards(make_round("weekly", TASKS, runs, agents=agents))["overall"]
    # All tie on pass rate 1/1, 0 interventions and no cost; by name ignoring case: aider, Claude Code, Zed
    # (a byte-wise sort would put "aider" last, after the capitals).
    assert [r["name"] for r in rows] == ["aider", "Claude Code", "Zed"]
    assert [r["rank"] for r in rows] == [1, 2, 3]


def test_the_alphabetical_tie_break_reads_accented_letters_as_their_letter():
    agents = [
        make_agent("yak", name="Yak"),
        make_agent("eclair", name="Éclair"),
        make_agent("echo", name="Echo"),
        make_agent("aider", name="aider"),
    ]
    runs = [make_run(a.slug, "trip", outcome="pass", interventions=1) for a in agents]
    rows = compute_weekly_boards(make_round("weekly", TASKS, runs, agents=agents))["overall"]
    # All four tie on pass rate (1/1), interventions (1) and cost (none): "alphabetical by agent name". Read as
    # a reader reads them, É is an E: a-ider, E-c-h-o, E-c-l-air (h before l), Y-ak. By code point "Éclair"
    # (U+00C9) would come after "Yak", and "aider" after every capital.
    assert [r["name"] for r in rows] == ["aider", "Echo", "Éclair", "Yak"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]


def test_it_sums_dollars_only_when_every_run_has_them():
    runs = [
        make_run("a", "trip", outcome="pass", cost_usd=0.25),
        make_run("a", "inbox", outcome="pass", cost_usd=0.5),
        make_run("b", "trip", outcome="pass", cost_usd=0.25),
        make_run("b", "inbox", outcome="pass", plan_label="Pro $20/mo"),
    ]
    rows = table(runs)
    assert row_of(rows, "a")["cost_usd"] == 0.75 and row_of(rows, "a")["cost_kind"] == "dollars"
    b = row_of(rows, "b")
    assert b["cost_usd"] is None and b["plan_label"] == "Pro $20/mo" and b["cost_kind"] == "plan"


def test_it_falls_back_to_the_entry_plan_label():
    runs = [make_run("a", "trip", outcome="pass")]
    rows = table(runs, entries=(EntryInput(agent="a", plan="Team"),))
    assert rows[0]["plan_label"] == "Team"


def test_it_orders_by_pass_rate_then_interventions_then_dollars_then_name():
    runs = (
        week("zed", ["pass", "pass"], interventions=0)  # 2 passes
        + week("amy", ["pass", "fail"], interventions=1, cost_usd=5.0)
        + week("bob", ["pass", "fail"], interventions=1, plan_label="Plus")
        + week("cat", ["pass", "fail"], interventions=1, cost_usd=1.0)
        + week("dan", ["pass", "fail"], interventions=0, plan_label="Max")
        + week("eve", ["pass", "fail"], interventions=1, plan_label="Free")
    )
    rows = table(runs)
    assert [r["agent"] for r in rows] == ["zed", "dan", "cat", "amy", "bob", "eve"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5, 6]


def test_it_ranks_a_partial_below_a_pass_even_with_more_points():
    runs = week("a", ["pass", "fail", "fail"]) + week("b", ["partial", "partial", "partial"])
    rows = table(runs)
    assert [r["agent"] for r in rows] == ["a", "b"]
    assert rows[1]["points"] > rows[0]["points"]


def test_it_leaves_infra_errors_out_of_the_counts():
    runs = [make_run("a", "trip", status="infra_error"), make_run("a", "inbox", outcome="pass")]
    row = table(runs)[0]
    assert row["not_counted"] == ["trip"]
    assert row["pass_rate"] == 1 / 2 and row["fails"] == 0


def test_it_counts_unsupported_and_violation_labels_as_fails():
    # The weekly table has only pass / partial / fail: a run labelled unsupported or violation is a fail.
    # trip pass (2 points), inbox unsupported -> fail, research violation -> fail: 1 pass, 2 fails, 2 points,
    # pass rate 1/3.
    row = table(week("a", ["pass", "unsupported", "violation"]))[0]
    assert (row["passes"], row["partials"], row["fails"], row["points"]) == (1, 0, 2, 2)
    assert row["pass_rate"] == 1 / 3
    assert [row["tasks"][k]["outcome"] for k in ("trip", "inbox", "research")] == ["pass", "fail", "fail"]


def test_a_week_without_tasks_has_no_pass_rate_and_lists_its_agents_by_name():
    # "pass rate = passes / the number of tasks that week": with no task the rate is unknown, not 0; the order
    # falls through to the last tie-break, the name.
    r = make_round("weekly", [], [], agents=[make_agent("zed", name="Zed"), make_agent("aider", name="aider")])
    rows = compute_weekly_boards(r)["overall"]
    assert [(x["agent"], x["rank"], x["pass_rate"], x["seconds"], x["cost_usd"]) for x in rows] == [
        ("aider", 1, None, None, None),
        ("zed", 2, None, None, None),
    ]


def test_a_weeks_row_shows_each_tasks_run_outcome_time_interventions_and_cost():
    # Seed 004: pass 2 points, fail 0. trip passed in 600 s with 1 intervention for $0.40; inbox reached the
    # 30-minute cap (a fail, 1,800 s) with 0 interventions for $0.10. Week of 2 tasks: pass rate 1/2,
    # 2 points, 2,400 s, 1 intervention, $0.50 (every run metered: dollars, no plan label).
    runs = [
        make_run("a", "trip", id="t", outcome="pass", wall_seconds=600.0, interventions=1, cost_usd=0.4),
        make_run("a", "inbox", id="i", outcome="pass", wall_seconds=1800.0, interventions=0, cost_usd=0.1),
    ]
    row = table(runs)[0]
    assert row["tasks"] == {
        "inbox": {
            "outcome": "fail",
            "points": 0,
            "run": "i",
            "seconds": 1800.0,
            "wall_seconds": 1800.0,  # as recorded: at the cap exactly
            "capped": True,
            "interventions": 0,
            "cost_usd": 0.1,
            "plan_label": None,
        },
        "trip": {
            "outcome": "pass",
            "points": 2,
            "run": "t",
            "seconds": 600.0,
            "wall_seconds": 600.0,
            "capped": False,
            "interventions": 1,
            "cost_usd": 0.4,
            "plan_label": None,
        },
    }
    assert (row["pass_rate"], row["overall"], row["tasks_that_week"], row["points"]) == (0.5, 0.5, 2, 2)
    assert (row["seconds"], row["interventions"], row["cost_usd"]) == (2400.0, 1, 0.5)
    assert (row["plan_label"], row["cost_kind"]) == (None, "dollars")


def test_a_week_on_several_plans_lists_every_plan_label_and_a_week_without_any_has_no_cost_kind():
    runs = [
        make_run("a", "trip", outcome="pass", plan_label="Pro plan"),
        make_run("a", "inbox", outcome="pass", plan_label="Max plan"),
        make_run("a", "research", outcome="pass", plan_label="Pro plan"),
        make_run("b", "trip", outcome="pass"),
    ]
    rows = table(runs)
    # The labels of the runs without dollars, each once, in alphabetical order.
    assert (row_of(rows, "a")["plan_label"], row_of(rows, "a")["cost_kind"]) == ("Max plan, Pro plan", "plan")
    # No dollars, no label on the runs and none on the entry: the cost is unknown.
    assert (row_of(rows, "b")["plan_label"], row_of(rows, "b")["cost_kind"]) == (None, None)


def test_an_agent_row_without_an_entry_has_no_plan_to_fall_back_to():
    from scoring.common import base_row
    from scoring.weekly import agent_row

    row = agent_row(base_row(make_agent("a")), [make_run("a", "trip", outcome="pass")], ["trip"], None)
    assert (row["plan_label"], row["cost_kind"], row["pass_rate"]) == (None, None, 1.0)
