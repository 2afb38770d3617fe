"""The API shows what the public pages show: published rounds only. Draft and preview rounds, their runs,
verdicts and private parameters answer 404 or are absent, whoever asks, and appear once the round is
published."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

pytestmark = pytest.mark.usefixtures("no_rate_limit")

# Values only the preview (r2) and draft (r3) rounds of tests/api/conftest.py hold.
PRIVATE = (
    "Secret-Preview-City",
    "Secret-Draft-City",
    "preview tester note",
    "r2-nimbus-flight",
    "r3-nimbus-flight",
    "hidden-agent",
    "Hidden Agent",
)

PUBLIC_URLS = [
    "/api/benchmarks",
    "/api/benchmarks/demo",
    "/api/benchmarks/demo/rounds",
    "/api/benchmarks/demo/rounds/r1",
    "/api/benchmarks/demo/rounds/r1/board",
    "/api/benchmarks/demo/ratings",
    "/api/benchmarks/demo/tasks",
    "/api/benchmarks/demo/tasks/flight-compare",
    "/api/benchmarks/demo/runs?page_size=200",
    "/api/benchmarks/demo/runs/r1/r1-nimbus-flight",
    "/api/agents",
    "/api/agents/nimbus",
    "/api/benchmarks/demo/bundle",
]
HIDDEN_URLS = [
    "/api/benchmarks/demo/rounds/r2",
    "/api/benchmarks/demo/rounds/r3",
    "/api/benchmarks/demo/rounds/r2/board",
    "/api/benchmarks/demo/rounds/r3/board",
    "/api/benchmarks/demo/runs?round=r2",
    "/api/benchmarks/demo/runs?round=r3",
    "/api/benchmarks/demo/runs/r2/r2-nimbus-flight",
    "/api/benchmarks/demo/runs/r3/r3-nimbus-flight",
    "/api/agents/hidden-agent",
]


# One test over many URLs rather than a parametrized test: the import with its snapshots is the slow part.
def test_no_public_answer_mentions_an_unpublished_round(demo, client):
    for url in PUBLIC_URLS:
        r = client.get(url)
        assert r.status_code == 200, url
        body = r.content.decode()
        for value in PRIVATE:
            assert value not in body, f"{value!r} leaked through {url}"


def test_unpublished_rounds_answer_404_like_unknown_ones(demo, client):
    for url in HIDDEN_URLS:
        r = client.get(url)
        assert r.status_code == 404, url
        assert r["Content-Type"].startswith("application/json")
        assert set(r.json()) == {"detail"}
        assert "preview" not in r.json()["detail"] and "draft" not in r.json()["detail"]


def test_unknown_and_unpublished_rounds_get_the_same_kind_of_answer(demo, client):
    unknown = client.get("/api/benchmarks/demo/rounds/r9").json()["detail"]
    preview = client.get("/api/benchmarks/demo/rounds/r2").json()["detail"]
    assert unknown.replace("r9", "X") == preview.replace("r2", "X")


def test_parameters_are_absent_before_publication_and_shown_after(demo, client):
    from leaderboard.models import Round

    task = client.get("/api/benchmarks/demo/tasks/flight-compare").json()
    assert [r["round"] for r in task["rounds"]] == ["r1"]
    assert "Secret-Preview-City" not in client.get("/api/benchmarks/demo/tasks/flight-compare").content.decode()

    Round.objects.filter(key="r2").update(status="published", published_at=timezone.now())

    task = client.get("/api/benchmarks/demo/tasks/flight-compare").json()
    by_round = {r["round"]: r for r in task["rounds"]}
    assert by_round["r2"]["parameters"] == {"origin": "Secret-Preview-City", "destination": "Oslo"}
    assert by_round["r2"]["prompt"] == "Find the three cheapest nonstop flights from Secret-Preview-City to Oslo."
    assert client.get("/api/benchmarks/demo/rounds/r2").json()["parameters"] == {
        "flight-compare": {"origin": "Secret-Preview-City", "destination": "Oslo"}
    }
    run = client.get("/api/benchmarks/demo/runs/r2/r2-nimbus-flight").json()
    # Published, but its review is not complete (the tester's verdict alone): still blind, not yet shown.
    assert run["verdicts"] == [] and "preview tester note" not in json.dumps(run)
    assert "Secret-Draft-City" not in client.get("/api/benchmarks/demo/bundle").content.decode()


def test_a_signed_in_reviewer_gets_no_verdicts_of_an_unpublished_round(demo, client, django_user_model):
    """A second reviewer must not see the tester's verdict: signed in by session, the API still shows no
    verdict of a preview or draft round."""
    reviewer = django_user_model.objects.create_user("second-reviewer", password="pw-for-tests-only")
    reviewer.groups.add(Group.objects.get(name="Reviewers"))
    client.force_login(reviewer)

    for key, round_key in (("r2-nimbus-flight", "r2"), ("r3-nimbus-flight", "r3")):
        r = client.get(f"/api/benchmarks/demo/runs/{round_key}/{key}")
        assert r.status_code == 404
        assert client.get(f"/api/benchmarks/demo/runs?round={round_key}").status_code == 404
    listed = client.get("/api/benchmarks/demo/runs?page_size=200").content.decode()
    assert "preview tester note" not in listed
    assert "r2-" not in listed and "r3-" not in listed


def test_an_agent_entered_only_in_unpublished_rounds_is_not_listed(demo, client):
    assert "hidden-agent" not in [a["slug"] for a in client.get("/api/agents").json()]
    assert client.get("/api/agents/hidden-agent").status_code == 404
