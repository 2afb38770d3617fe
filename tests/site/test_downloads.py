"""Downloads: every run of the published rounds as CSV, the board as CSV, the public bundle as JSON."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import User

from runs.models import Verdict
from snapshots.models import BoardSnapshot
from tests.builders.site import SECRET_CITY, checks_bundle, outcomes_bundle, scored_bundle

pytestmark = pytest.mark.django_db

REQUIRED = [
    "agent",
    "cli",
    "model",
    "task",
    "score",
    "checks_passed",
    "median_run",
    "tokens",
    "cost_usd",
    "wall_seconds",
    "checks_version",
]


def _rows(response) -> list[dict[str, str]]:
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_it_downloads_every_published_run_with_the_required_columns(load, client):
    load(checks_bundle(), checks_bundle(round_key="r2", status="preview"))
    rows = _rows(client.get("/b/qbench/download/runs.csv"))
    assert len(rows) == 3 * 2 * 3
    assert set(REQUIRED) <= set(rows[0])
    assert {r["round"] for r in rows} == {"r1"}
    first = next(r for r in rows if r["run"] == "qbench-r1-agent-00-shop-t1")
    assert first["cli"] == "cli-0" and first["model"] == "model-0" and first["checks_version"] == "checks-1"
    assert first["tokens"] == str(100_000 + 10_000 + 5_000)


def test_it_flags_the_median_runs_the_board_rests_on(load, client):
    load(checks_bundle())
    data = BoardSnapshot.objects.get(kind="boards").data
    medians = {r["median_run"] for rows in data["tasks"].values() for r in rows}
    rows = _rows(client.get("/b/qbench/download/runs.csv"))
    assert {r["run"] for r in rows if r["median_run"] == "yes"} == medians
    by_run = {r["run"]: r for r in rows}
    for _task, task_rows in data["tasks"].items():
        for row in task_rows:
            assert float(by_run[row["median_run"]]["score"]) == pytest.approx(row["median"])


def test_it_keeps_missing_cost_blank_not_zero(load, client):
    load(checks_bundle())
    rows = _rows(client.get("/b/qbench/download/runs.csv"))
    assert {r["cost_usd"] for r in rows if r["agent"] == "agent-01"} == {""}


def test_it_marks_a_replaced_run_not_counted(load, client):
    load(outcomes_bundle())
    rows = {r["run"]: r for r in _rows(client.get("/b/obench/download/runs.csv"))}
    assert rows["bram-flights"]["counted"] == "no"
    assert rows["bram-flights-rerun"]["counted"] == "yes"
    assert rows["bram-flights-rerun"]["rerun_of"] == "bram-flights"


def test_it_puts_no_owner_or_reviewer_identity_in_downloads(load, client):
    load(outcomes_bundle(), checks_bundle())
    user = User.objects.create_user("zelda-reviewer", "zelda@example.org", "x")
    Verdict.objects.filter(role="tester").update(reviewer=user)
    for url in [
        "/b/obench/download/runs.csv",
        "/b/obench/download/bundle.json",
        "/b/obench/r/r1/board.csv",
        "/b/qbench/download/bundle.json",
    ]:
        body = client.get(url).content.decode()
        assert "zelda" not in body, url


def test_it_downloads_the_board_as_shown(load, client):
    load(checks_bundle())
    data = BoardSnapshot.objects.get(kind="boards").data
    rows = _rows(client.get("/b/qbench/r/r1/board.csv?tab=overall"))
    assert [r["agent"] for r in rows] == [r["agent"] for r in data["overall"]]
    assert float(rows[0]["overall"]) == pytest.approx(data["overall"][0]["overall"])
    assert rows[0]["cli"].startswith("cli-") and rows[0]["model"].startswith("model-")
    task_rows = _rows(client.get("/b/qbench/r/r1/board.csv?tab=tasks&task=shop"))
    assert float(task_rows[0]["median"]) == pytest.approx(data["tasks"]["shop"][0]["median"])
    # The range beside the score (003 "Spread": "from its worst run to its best"): both ends, as the page
    # shows them, never the low end alone under the name "range".
    for got, shown in ((rows[0], data["overall"][0]), (task_rows[0], data["tasks"]["shop"][0])):
        assert "range" not in got
        assert (float(got["range_min"]), float(got["range_max"])) == pytest.approx((shown["min"], shown["max"]))
    assert data["tasks"]["shop"][0]["min"] < data["tasks"]["shop"][0]["max"]  # a range with two ends to tell apart


def test_it_downloads_the_public_bundle_without_unpublished_rounds(load, client):
    load(outcomes_bundle(), outcomes_bundle(round_key="r2", status="draft"))
    response = client.get("/b/obench/download/bundle.json")
    assert "attachment" in response["Content-Disposition"]
    doc = json.loads(response.content)
    assert [r["key"] for r in doc["rounds"]] == ["r1"]
    assert {run["round"] for run in doc["runs"]} == {"r1"}
    assert SECRET_CITY in response.content.decode()  # r1 is published: its parameters are public


def test_it_downloads_nothing_for_an_unpublished_benchmark_round(load, client):
    load(outcomes_bundle(status="preview"))
    doc = json.loads(client.get("/b/obench/download/bundle.json").content)
    assert doc["rounds"] == [] and doc["runs"] == []
    assert SECRET_CITY not in json.dumps(doc)
    assert _rows(client.get("/b/obench/download/runs.csv")) == []


def _fallback_bundle() -> dict:
    """A scored round with one composite task (0.6 x tests + 0.4 x judge, the judge part from the heuristic
    fallback, capped at 0.60, when no judge scored the run).

    Judy: trial 1 judged, 10/10 tests and criteria (7, 7) -> 0.6 + 0.4 x 0.7 = 0.88; trials 2 and 3 on the
    fallback, 10/10 tests and heuristic 0.6 -> 0.6 + 0.4 x 0.6 = 0.84. Best 0.88 (judged, so no badge), pass@3
    3/3 = 100%, two of those passes on the fallback. Hal: one trial on the fallback, 0.84: best heuristic."""
    doc = scored_bundle("hbench")
    doc["agents"] = [{"slug": s, "name": s.title()} for s in ("judy", "hal")]
    doc["tasks"] = [{**doc["tasks"][0], "key": "m1", "title": "m1", "evaluation": "composite", "domain": "multi"}]
    doc["rounds"][0]["entries"] = [{"agent": "judy"}, {"agent": "hal"}]
    base = {"round": "r1", "task": "m1", "task_version": "1.0", "status": "completed", "tests_passed": 10}
    doc["runs"] = [
        {**base, "id": "judy-1", "agent": "judy", "trial": 1, "tests_total": 10, "judge_scores": [7, 7]},
        {**base, "id": "judy-2", "agent": "judy", "trial": 2, "tests_total": 10, "heuristic": 0.6},
        {**base, "id": "judy-3", "agent": "judy", "trial": 3, "tests_total": 10, "heuristic": 0.6},
        {**base, "id": "hal-1", "agent": "hal", "trial": 1, "tests_total": 10, "heuristic": 0.6},
    ]
    return doc


def test_a_score_resting_on_the_heuristic_fallback_is_marked_in_both_csv_downloads_and_below_the_cell(load, client):
    load(_fallback_bundle())
    runs = {r["run"]: r for r in _rows(client.get("/b/hbench/download/runs.csv"))}
    assert {k: (r["score"], r["heuristic"]) for k, r in runs.items()} == {
        "judy-1": ("0.88", "no"),
        "judy-2": ("0.84", "yes"),
        "judy-3": ("0.84", "yes"),
        "hal-1": ("0.84", "yes"),
    }
    for tab in ("overall", "tasks"):
        board = {r["agent"]: r for r in _rows(client.get(f"/b/hbench/r/r1/board.csv?tab={tab}"))}
        # The tasks whose best trial rests on the fallback: none of Judy's (her best is judged), m1 for Hal.
        assert (board["judy"]["heuristic_tasks"], board["hal"]["heuristic_tasks"]) == ("", "m1")
    html = client.get("/b/hbench/?tab=tasks").content.decode()
    assert "pass@3 100% · 2 heuristic" in html  # Judy: two of her three passing trials are on the fallback
    assert "pass@1 100%" in html and "pass@1 100% · 1 heuristic" not in html  # Hal: the badge already says it


def test_a_checks_benchmark_leaves_the_heuristic_column_blank(load, client):
    load(checks_bundle())
    assert {r["heuristic"] for r in _rows(client.get("/b/qbench/download/runs.csv"))} == {""}


def test_a_rounds_board_has_a_column_for_each_task_of_that_round_only(load, client):
    # r2 ran t1 alone ("the round's task set: default the tasks with any run in the round"); the benchmark
    # also has t2 and t3 from r1. The Tasks tab of r2, page and CSV, has the one column its board is over.
    doc = scored_bundle("sbench")
    later = {**doc["rounds"][0], "key": "r2", "name": "Round r2", "published_at": "2026-04-01T12:00:00Z"}
    later["starts_on"] = "2026-03-20"
    doc["rounds"].append(later)
    doc["runs"] += [{**r, "id": r["id"] + "-r2", "round": "r2"} for r in doc["runs"] if r["task"] == "t1"]
    load(doc)
    head = _rows(client.get("/b/sbench/r/r2/board.csv?tab=tasks"))[0].keys()
    assert [k for k in head if k.startswith("task:")] == ["task:t1"]
    html = client.get("/b/sbench/r/r2/?tab=tasks").content.decode()
    assert ">t1<" in html and ">t2<" not in html and ">t3<" not in html
    # r1 keeps its three.
    head = _rows(client.get("/b/sbench/r/r1/board.csv?tab=tasks"))[0].keys()
    assert [k for k in head if k.startswith("task:")] == ["task:t1", "task:t2", "task:t3"]


def test_a_run_over_its_limits_says_which_limit_everywhere(load, client):
    # 003: "Only runs within the task's time limit and token budget that spent no more than their budget
    # count." Two completed runs of shop (limits 120 min = 7,200 s and 5,000,000 tokens) went over: one by
    # time (7,260 s), one by tokens (4,990,000 input + 5,000 cache writes + 20,000 output = 5,015,000). Each
    # says which limit, with its own numbers, not "Completed".
    doc = checks_bundle()
    slow, greedy = [r for r in doc["runs"] if r["task"] == "shop"][:2]
    slow["wall_seconds"] = 7260.0
    greedy["tokens_input"] = 4_990_000
    load(doc)
    rows = {r["run"]: r for r in _rows(client.get("/b/qbench/download/runs.csv"))}
    assert (rows[slow["id"]]["counted"], rows[slow["id"]]["why_not_counted"]) == (
        "no",
        "over the time limit: 7,260 s of 7,200 s",
    )
    assert rows[greedy["id"]]["why_not_counted"] == "over the token budget: 5,015,000 tokens of 5,000,000"
    page = client.get(f"/b/qbench/r/r1/runs/{greedy['id']}/").content.decode()
    assert "over the token budget: 5,015,000 tokens of 5,000,000" in page
    api = client.get(f"/api/benchmarks/qbench/runs/r1/{greedy['id']}").json()
    assert (api["counts"], api["why_not_counted"]) == (False, "over the token budget: 5,015,000 tokens of 5,000,000")
