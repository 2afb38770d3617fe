"""Votes where readers look (issue #32 item 6): each rating on a board says how many votes it rests on, and a
benchmark that takes no votes offers no votes download."""

from __future__ import annotations

import re

import pytest

from leaderboard.models import Benchmark
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle, weekly_bundle

pytestmark = pytest.mark.django_db

RATINGS = [
    {"agent": "agent-00", "rating": 1100.0, "ci_low": 1040.0, "ci_high": 1130.0, "votes": 40, "few_votes": False},
    {"agent": "agent-01", "rating": 1000.0, "ci_low": 950.0, "ci_high": 1050.0, "votes": 1, "few_votes": True},
]


def test_each_rating_on_the_board_says_its_votes(load, client):
    load(checks_bundle(agents=2, votes=False))
    bench = Benchmark.objects.get(slug="qbench")
    rows = [{**r, "wins": 0, "losses": 0, "ties": 0, "rank_ub": 1} for r in RATINGS]
    BoardSnapshot.objects.update_or_create(
        benchmark=bench, round=None, kind="ratings", defaults={"data": {"all": rows, "tasks": {}}, "stale": False}
    )
    html = client.get("/b/qbench/").content.decode()
    row = {a: body for a, body in re.findall(r'<tr data-agent="([^"]+)"[^>]*>(.*?)</tr>', html, re.S)}
    assert '<span class="sub votes-count">40 votes</span>' in row["agent-00"]
    assert '<span class="sub votes-count">1 vote</span>' in row["agent-01"]


def test_a_benchmark_without_votes_offers_no_votes_download(load, client):
    load(weekly_bundle(), checks_bundle(agents=2, votes=False))
    assert "/download/votes.jsonl.gz" not in client.get("/b/wbench/").content.decode()
    assert "/b/qbench/download/votes.jsonl.gz" in client.get("/b/qbench/").content.decode()
