from builders import make_round, make_run, make_task, row_of, verdicts

from scoring.types import EntryInput
from scoring.weekly import compute_weekly_boards

TASKS = [make_task(k) for k in ("trip", "inbox", "research", "grocery", "expense")]


def table(runs, **kw):
    return compute_weekly_boards(make_round("weekly", TASKS, runs, **kw))["overall"]


def week(agent, outcomes, **kw):
    keys = ["trip", "inbox", "research", "grocery", "expense"]
    return [make_run(agent, k, outcome=o, **kw) for k, o in zip(keys, outcomes, strict=False) if o]


def test_it_counts_passes_partials_fails_points_and_pass_rate():
    row = table(week("a", ["pass", "partial", "fail", "pass", "partial"]))[0]
    assert (row["passes"], row["partials"], row["fails"], row["points"]) == (2, 2, 1, 6)
    assert row["pass_rate"] == 2 / 5


def test_it_divides_by_the_tasks_run_that_week():
    runs = [make_run("a", "trip", outcome="pass"), make_run("b", "trip", outcome="fail"),
            make_run("b", "inbox", outcome="pass")]
    assert row_of(table(runs), "a")["pass_rate"] == 1 / 2


def test_it_fails_a_run_that_reaches_the_30_minute_cap():
    runs = [make_run("a", "trip", outcome="pass", wall_seconds=1800),
            make_run("a", "inbox", outcome="pass", status="timeout"),
            make_run("a", "research", outcome="pass", wall_seconds=1799.5)]
    row = table(runs)[0]
    assert row["passes"] == 1 and row["fails"] == 2
    assert row["tasks"]["trip"]["capped"] is True
    assert row["seconds"] == 1800 + 1799.5


def test_it_uses_the_reviewed_outcome():
    runs = [make_run("a", "trip", verdicts=verdicts("pass", "partial", "partial")),
            make_run("a", "inbox", verdicts=verdicts("pass", "fail"))]
    row = table(runs)[0]
    assert row["tasks"]["trip"]["outcome"] == "partial"
    assert row["in_review"] == ["inbox"]


def test_it_takes_a_lone_tester_label_as_the_outcome():
    runs = [make_run("a", "trip", verdicts=verdicts("partial"), outcome="pass")]
    row = table(runs)[0]
    assert row["tasks"]["trip"]["outcome"] == "partial"
    assert row["in_review"] == []


def test_it_sums_interventions_and_keeps_none_when_all_missing():
    runs = week("a", ["pass", "pass"], interventions=None) + \
        [make_run("b", "trip", outcome="pass", interventions=2), make_run("b", "inbox", outcome="pass")]
    rows = table(runs)
    assert row_of(rows, "a")["interventions"] is None
    assert row_of(rows, "b")["interventions"] == 2


def test_it_sums_dollars_only_when_every_run_has_them():
    runs = [make_run("a", "trip", outcome="pass", cost_usd=0.25),
            make_run("a", "inbox", outcome="pass", cost_usd=0.5),
            make_run("b", "trip", outcome="pass", cost_usd=0.25),
            make_run("b", "inbox", outcome="pass", plan_label="Pro $20/mo")]
    rows = table(runs)
    assert row_of(rows, "a")["cost_usd"] == 0.75 and row_of(rows, "a")["cost_kind"] == "dollars"
    b = row_of(rows, "b")
    assert b["cost_usd"] is None and b["plan_label"] == "Pro $20/mo" and b["cost_kind"] == "plan"


def test_it_falls_back_to_the_entry_plan_label():
    runs = [make_run("a", "trip", outcome="pass")]
    rows = table(runs, entries=(EntryInput(agent="a", plan="Team"),))
    assert rows[0]["plan_label"] == "Team"


def test_it_orders_by_pass_rate_then_interventions_then_dollars_then_name():
    runs = (week("zed", ["pass", "pass"], interventions=0)            # 2 passes
            + week("amy", ["pass", "fail"], interventions=1, cost_usd=5.0)
            + week("bob", ["pass", "fail"], interventions=1, plan_label="Plus")
            + week("cat", ["pass", "fail"], interventions=1, cost_usd=1.0)
            + week("dan", ["pass", "fail"], interventions=0, plan_label="Max")
            + week("eve", ["pass", "fail"], interventions=1, plan_label="Free"))
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
