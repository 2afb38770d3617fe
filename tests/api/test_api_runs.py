"""Runs through the API: verdicts with roles (never reviewers), filters, pagination bounds and run detail."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.usefixtures("no_rate_limit")

RUNS = "/api/benchmarks/demo/runs"


def test_it_lists_published_runs_with_verdicts(demo, client):
    body = client.get(RUNS).json()
    assert body["count"] == 4
    assert {r["key"] for r in body["items"]} == {
        "r1-nimbus-flight",
        "r1-nimbus-email",
        "r1-tianji-flight",
        "r1-tianji-email",
    }
    run = next(r for r in body["items"] if r["key"] == "r1-tianji-email")
    assert [(v["role"], v["outcome"]) for v in run["verdicts"]] == [
        ("tester", "fail"),
        ("second", "fail"),
        ("third", "partial"),
    ]
    assert run["verdicts"][2]["matched"] == ["partial"]
    assert run["cost_usd"] == 0.25


def test_verdicts_never_name_the_reviewer(demo, client, django_user_model):
    from runs.models import Verdict

    reviewer = django_user_model.objects.create_user("rita-reviewer", password="x")
    Verdict.objects.filter(run__key="r1-nimbus-flight", role="second").update(reviewer=reviewer)
    raw = client.get(f"{RUNS}/r1/r1-nimbus-flight").content.decode()
    assert "rita-reviewer" not in raw
    assert '"reviewer"' not in raw
    listed = client.get(RUNS).content.decode()
    assert "rita-reviewer" not in listed and '"reviewer"' not in listed


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        ("round=r1&agent=nimbus", {"r1-nimbus-flight", "r1-nimbus-email"}),
        ("task=email-reply", {"r1-nimbus-email", "r1-tianji-email"}),
        ("agent=tianji&task=flight-compare", {"r1-tianji-flight"}),
    ],
)
def test_it_filters_runs_by_round_agent_and_task(demo, client, query, keys):
    body = client.get(f"{RUNS}?{query}").json()
    assert {r["key"] for r in body["items"]} == keys
    assert body["count"] == len(keys)


def test_it_pages_through_runs(demo, client):
    first = client.get(f"{RUNS}?page_size=3").json()
    second = client.get(f"{RUNS}?page_size=3&page=2").json()
    assert (first["count"], first["pages"], len(first["items"])) == (4, 2, 3)
    assert (second["page"], len(second["items"])) == (2, 1)
    assert {r["key"] for r in first["items"]}.isdisjoint({r["key"] for r in second["items"]})


@pytest.mark.parametrize(
    "query",
    [
        "page=0",
        "page=-1",
        "page_size=0",
        "page_size=201",
        "page_size=10000000000000",
        "page=abc",
        "page_size=1.5",
        "round=has%20space",
        "agent=%00",
    ],
)
def test_bad_paging_and_filter_values_answer_422_with_a_message(db, client, query):
    r = client.get(f"{RUNS}?{query}")
    assert r.status_code == 422
    assert r.json()["detail"].startswith("query.")


def test_a_page_past_the_last_answers_404(demo, client):
    r = client.get(f"{RUNS}?page=3&page_size=2")
    assert r.status_code == 404
    assert r.json() == {"detail": "page 3 is past the last page (2)"}


def test_the_largest_page_size_is_allowed(demo, client):
    assert client.get(f"{RUNS}?page_size=200").json()["page_size"] == 200


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("round=nope", "no published round 'nope' in demo"),
        ("agent=nobody", "no agent 'nobody'"),
        ("task=nothing", "no task 'nothing' in demo"),
    ],
)
def test_unknown_filter_values_answer_404(demo, client, query, detail):
    r = client.get(f"{RUNS}?{query}")
    assert r.status_code == 404
    assert r.json()["detail"] == detail


def test_it_shows_a_run_with_its_prompt_evidence_and_disputes(demo, client):
    body = client.get(f"{RUNS}/r1/r1-nimbus-flight").json()
    assert body["prompt"] == "Find the three cheapest nonstop flights from Denver to Miami."
    assert body["parameters"] == {"origin": "Denver", "destination": "Miami"}
    assert body["evidence"] == [
        {"kind": "recording", "url": "https://media.example.org/r1/nimbus/flight.mp4", "caption": "screen recording"}
    ]
    disputed = client.get(f"{RUNS}/r1/r1-tianji-flight").json()
    assert [(d["reason"], d["status"]) for d in disputed["disputes"]] == [("wrong_plan", "rejected")]


def test_an_unknown_run_answers_404(demo, client):
    r = client.get(f"{RUNS}/r1/no-such-run")
    assert r.status_code == 404
    assert r.json() == {"detail": "no run 'no-such-run' in round r1"}


def test_the_run_list_stays_in_a_few_queries(demo, client, django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        assert client.get(RUNS).status_code == 200
