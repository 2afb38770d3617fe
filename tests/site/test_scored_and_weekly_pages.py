"""The scored and weekly boards, the trade-offs page and the methodology pages, as a reader sees them."""

from __future__ import annotations

import re

import pytest

from tests.builders.site import scored_bundle, weekly_bundle, weekly_gaps_bundle

pytestmark = pytest.mark.django_db


def _row(html: str, name: str) -> str:
    """The table row (up to its closing tag) that names `name`."""
    start = html.index(f">{name}<")
    return html[html.rindex("<tr", 0, start) : html.index("</tr>", start)]


def test_it_ranks_a_skipped_task_as_zero_and_shows_tested_k_of_n(load, client):
    load(scored_bundle())
    html = client.get("/b/sbench/").content.decode()
    # Solo: t1 10/10 = 1.0, t2 and t3 skipped count 0: (1 + 0 + 0) / 3 = 0.333. Full: 0.9 on all three = 0.9.
    # Under: 0.9 on all three (best of its trials) = 0.9. So Full and Under share first, Solo is third.
    assert html.index(">Full<") < html.index(">Solo<") and html.index(">Under<") < html.index(">Solo<")
    solo = _row(html, "Solo")
    assert "tested 1 of 3" in solo
    assert "0.33" in solo


def test_it_shows_the_mean_pass_at_k_over_the_rounds_tasks(load, client):
    load(scored_bundle())
    html = client.get("/b/sbench/").content.decode()
    # Solo ran t1 once, 10/10 = 1.0, a pass: pass@1 = 1/1. t2 and t3 skipped count 0, as in the score:
    # (1 + 0 + 0) / 3 = 33%, not the 100% of the one task it ran. Full: 0.9 on each of 3 tasks, all pass: 100%.
    # Its pass rate is 1 of 3 tasks, 33% too: both cells read 33%.
    solo = _row(html, "Solo")
    assert solo.count(">33%<") == 2 and "100%" not in solo
    assert "100%" in _row(html, "Full")


def test_it_marks_cost_reported_on_some_runs_as_partial_on_the_board(load, client):
    load(scored_bundle())
    html = client.get("/b/sbench/").content.decode()
    # Under: cost on trial 1 of each task (3 runs) out of its 10 scored runs.
    assert "on 3 of 10 runs" in _row(html, "Under")
    assert "1 of 3 agents are missing cost data (1 on some runs only)" in html


def test_it_never_lifts_an_agent_in_the_reranking_for_a_partial_axis(load, client):
    load(scored_bundle())
    html = client.get(
        "/b/sbench/tradeoffs/?w_score=0&w_cost=1&w_time=0", headers={"HX-Request": "true"}
    ).content.decode()
    # Cost only. Full reports $0.50 on all 3 runs and Solo $0.20 on its 1 run: scaled over those two, Solo
    # (cheaper) 1 and Full 0. Under's $0.01 covers 3 of 10 runs: worst value, 0, and after Full at 0.
    names = re.findall(r'<th scope="row"><a href="[^"]*">([^<]+)</a>', html)
    assert names == ["Solo", "Full", "Under"]
    assert "cost on 3 of 10 runs, counted as the worst" in _row(html, "Under")


def test_it_explains_the_scored_rules_on_the_methodology_page(load, client):
    load(scored_bundle())
    html = client.get("/b/sbench/methodology/").content.decode()
    for words in (
        "a task without a score counting 0",
        "a third of that task's pass@k",
        "tested k of n",
        "judged part only",
        "counts as the worst value",
    ):
        assert words in html


def test_it_orders_the_week_by_name_ignoring_case_and_puts_unknown_interventions_last(load, client):
    load(weekly_bundle())
    html = client.get("/b/wbench/").content.decode()
    # All pass 1 of 2. aider and Claude Code: 1 + 1 = 2 interventions; Zed: 0 on inbox, none recorded on
    # trip: unknown, after the known 2s. aider and Claude Code tie on cost too: by name ignoring case.
    assert html.index(">aider<") < html.index(">Claude Code<") < html.index(">Zed<")
    assert "unknown" in _row(html, "Zed") and "not recorded on 1 of 2 runs" in _row(html, "Zed")


def test_it_counts_30_minutes_for_a_timeout_and_caps_every_task_at_30(load, client):
    load(weekly_bundle())
    html = client.get("/b/wbench/").content.decode()
    # Zed: trip 600 s + inbox timed out with no time: 1800 s -> 2400 s = 40 min.
    # aider: trip 600 s + inbox 40 min on a task listing a 60-minute limit: stopped at 30 min -> 40 min too,
    # and the inbox run is marked as reaching the 30-minute cap.
    assert "40m 00s" in _row(html, "Zed") and "40m 00s" in _row(html, "aider")
    assert "30m 00s" in _row(html, "Zed")  # the timed-out inbox cell
    assert "30-min cap" in _row(html, "aider")


def test_it_explains_the_weekly_rules_on_the_methodology_page(load, client):
    load(weekly_bundle())
    html = client.get("/b/wbench/methodology/").content.decode()
    for words in (
        "shows “unknown”",
        "ignoring case",
        "same for every task",
        "adds 30 minutes",
        "Fewer human interventions across those tasks",
        "2 runs without time",
    ):
        assert words in html


def test_a_skipped_task_leaves_the_weeks_interventions_and_cost_unknown_and_ranks_it_after(load, client):
    load(weekly_gaps_bundle())
    html = client.get("/b/wgaps/").content.decode()
    # All pass 1 of 3, every run 1 intervention and $1.00. Runner and Drifter: 3 interventions, $3.00 -> by
    # name, Drifter then Runner. Skipper has no research run: interventions and cost unknown (its 2 and $2.00
    # would have put it first), so it comes last.
    assert html.index(">Drifter<") < html.index(">Runner<") < html.index(">Skipper<")
    skipper = _row(html, "Skipper")
    assert skipper.count(">unknown<") == 2 and "no run on 1 of 3 tasks" in skipper
    assert "$2.00" not in skipper


def test_a_weeks_time_missing_runs_times_is_shown_as_partial(load, client):
    load(weekly_gaps_bundle())
    html = client.get("/b/wgaps/").content.decode()
    # Drifter: only research's 900 s is recorded: "15m 00s (2 runs without time)", never a plain 15m 00s.
    # Runner: 600 + 1200 + 900 = 2,700 s = 45m 00s, every time recorded.
    assert "15m 00s (2 runs without time)" in _row(html, "Drifter")
    assert "45m 00s<" in _row(html, "Runner") and "without time" not in _row(html, "Runner")


def test_the_weekly_downloads_carry_the_runs_without_time_beside_the_total(load, client):
    import csv
    import io

    load(weekly_gaps_bundle())
    rows = {r["agent"]: r for r in csv.DictReader(io.StringIO(client.get("/b/wgaps/r/w1/board.csv").content.decode()))}
    # Drifter: time 900 s with 2 runs without time; Skipper: 1,200 s, all times recorded, no run on 1 task.
    assert (rows["drifter"]["time"], rows["drifter"]["runs_without_time"]) == ("900.0", "2")
    assert (rows["skipper"]["time"], rows["skipper"]["runs_without_time"], rows["skipper"]["tasks_without_run"]) == (
        "1200.0",
        "0",
        "1",
    )
    board = client.get("/api/benchmarks/wgaps/rounds/w1/board").json()["data"]["overall"]
    drifter = next(r for r in board if r["agent"] == "drifter")
    assert (drifter["seconds"], drifter["runs_without_time"]) == (900.0, 2)
    assert next(r for r in board if r["agent"] == "skipper")["tasks_without_run"] == ["research"]
