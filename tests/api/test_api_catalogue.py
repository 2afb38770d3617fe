"""What the read API says about benchmarks, rounds, boards, ratings, tasks, agents and the bundle, read from a
small imported bundle."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("no_rate_limit")


def test_it_lists_benchmarks_with_their_latest_published_round(demo, client):
    r = client.get("/api/benchmarks")
    assert r.status_code == 200
    (bench,) = r.json()
    assert (bench["slug"], bench["name"], bench["methodology"]) == ("demo", "Demo Bench", "outcomes")
    assert bench["latest_round"] == "r1"
    # A pass threshold is the scored methodology's (002) alone: an outcomes benchmark answers none.
    assert "pass_threshold" not in bench


def test_every_answer_names_the_same_latest_round_and_lists_rounds_newest_first(db, client):
    from bundles.importer import bundle_import
    from tests.api.conftest import small_bundle

    doc = small_bundle()
    # r1 has no start date (published 2026-09-20); an earlier round and a later one, each with a start date.
    earlier = {"key": "r0", "name": "Round 0", "status": "published", "starts_on": "2026-08-01"}
    later = {"key": "r9", "name": "Round 9", "status": "published", "starts_on": "2026-10-01"}
    doc["rounds"] += [
        {**earlier, "published_at": "2026-08-10T12:00:00Z", "entries": [{"agent": "nimbus"}]},
        {**later, "published_at": "2026-10-05T12:00:00Z", "entries": [{"agent": "nimbus"}]},
    ]
    bundle_import(doc=doc)
    newest_first = ["r9", "r1", "r0"]  # 2026-10-01, 2026-09-20 (its publication), 2026-08-01
    (listed,) = client.get("/api/benchmarks").json()
    detail = client.get("/api/benchmarks/demo").json()
    assert listed["latest_round"] == detail["latest_round"] == "r9"
    assert [r["key"] for r in detail["rounds"]] == newest_first
    assert [r["key"] for r in client.get("/api/benchmarks/demo/rounds").json()] == newest_first


def test_it_shows_one_benchmark_with_published_rounds_only(demo, client):
    body = client.get("/api/benchmarks/demo").json()
    assert [r["key"] for r in body["rounds"]] == ["r1"]
    assert body["rounds"][0]["entry_count"] == 2
    assert body["rounds"][0]["run_count"] == 4
    assert body["tasks"] == 2


def test_it_lists_published_rounds(demo, client):
    rounds = client.get("/api/benchmarks/demo/rounds").json()
    assert [(r["key"], r["status"], r["published_at"]) for r in rounds] == [("r1", "published", "2026-09-20T12:00:00Z")]


def test_it_shows_a_round_with_entries_parameters_and_changelog(demo, client):
    body = client.get("/api/benchmarks/demo/rounds/r1").json()
    assert [(e["agent"], e["product_version"], e["plan"]) for e in body["entries"]] == [
        ("nimbus", "2.1", "Pro"),
        ("tianji", "5.0", ""),
    ]
    assert body["parameters"] == {"flight-compare": {"origin": "Denver", "destination": "Miami"}}
    (change,) = body["changelog"]
    assert change["who"] == "editor"
    assert change["what"].startswith("r1-tianji-email")


def test_it_serves_the_board_snapshot(demo, client):
    body = client.get("/api/benchmarks/demo/rounds/r1/board").json()
    assert body["stale"] is False
    assert body["version"] == 1
    assert body["computed_at"]
    overall = {row["agent"]: row for row in body["data"]["overall"]}
    assert overall["nimbus"]["points"] == 3  # pass (2) + partial (1)
    assert overall["nimbus"]["rank"] == 1


def test_it_reads_the_board_in_a_constant_number_of_queries(demo, client, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        assert client.get("/api/benchmarks/demo/rounds/r1/board").status_code == 200


def test_a_board_not_yet_computed_is_stale_with_no_data(db, client, bundle_doc):
    from bundles.importer import bundle_import

    bundle_import(doc=bundle_doc)  # no on-commit callbacks run: nothing computed yet
    body = client.get("/api/benchmarks/demo/rounds/r1/board").json()
    assert body["stale"] is True
    assert body["data"] is None


def test_it_serves_the_ratings_snapshot(demo, client):
    body = client.get("/api/benchmarks/demo/ratings").json()
    assert body["stale"] is False
    ranked = [row["agent"] for row in body["data"]["all"]]
    assert ranked == ["nimbus", "tianji"]
    assert set(body["data"]["tasks"]) == {"flight-compare", "email-reply"}


def test_it_lists_tasks_with_prompt_templates(demo, client):
    tasks = client.get("/api/benchmarks/demo/tasks").json()
    assert [t["key"] for t in tasks] == ["flight-compare", "email-reply"]
    flight = tasks[0]
    assert flight["prompt"] == "Find the three cheapest nonstop flights from {origin} to {destination}."
    assert flight["parameters"] == ["origin", "destination"]
    assert flight["dimensions"] == ["research", "browsing"]


def test_it_shows_a_task_with_its_prompt_filled_per_published_round(demo, client):
    body = client.get("/api/benchmarks/demo/tasks/flight-compare").json()
    assert body["rounds"] == [
        {
            "round": "r1",
            "task_version": "1.0",
            "parameters": {"origin": "Denver", "destination": "Miami"},
            "prompt": "Find the three cheapest nonstop flights from Denver to Miami.",
        }
    ]
    assert [v["version"] for v in body["versions"]] == ["1.0"]


def test_it_lists_agents_of_published_rounds(demo, client):
    agents = client.get("/api/agents").json()
    assert [a["slug"] for a in agents] == ["nimbus", "tianji"]
    assert agents[1]["organization"] == "Tianji AI"


def test_it_shows_an_agent_with_its_published_entries(demo, client):
    body = client.get("/api/agents/nimbus").json()
    assert [(e["benchmark"], e["round"], e["product_version"]) for e in body["entries"]] == [("demo", "r1", "2.1")]


def test_it_serves_the_public_bundle(demo, client):
    body = client.get("/api/benchmarks/demo/bundle").json()
    assert body["benchmark"]["slug"] == "demo"
    assert [r["key"] for r in body["rounds"]] == ["r1"]
    assert {run["round"] for run in body["runs"]} == {"r1"}
    assert len(body["votes"]) == 3


def test_the_bundle_recounts_to_the_served_board(demo, client):
    from scoring.boards import compute_boards
    from scoring.bundle import round_inputs

    bundle = client.get("/api/benchmarks/demo/bundle").json()
    board = client.get("/api/benchmarks/demo/rounds/r1/board").json()["data"]
    (round_input,) = round_inputs(bundle)
    recounted = compute_boards(round_input)
    assert [(r["agent"], r["points"]) for r in recounted["overall"]] == [
        (r["agent"], r["points"]) for r in board["overall"]
    ]
