"""The rate limits hold over any stretch of one window's length, not per fixed window: N requests at the end of
one window and N at the start of the next must not all pass (with fixed windows about twice the limit got
through around an edge). Attacked from outside for the API and the sign-in, and for votes through the limit
every vote and draw counts against."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard import ratelimit
from voting.services.limits import rate_limit_hit

pytestmark = pytest.mark.django_db

N, WINDOW = 5, 60


@pytest.fixture
def clock(monkeypatch):
    """A clock set by the test; it starts on a window's edge (a multiple of every window)."""
    now = {"t": 1_800_000_000.0 - 1_800_000_000.0 % 86_400}
    monkeypatch.setattr(ratelimit, "clock", lambda: now["t"])
    return now


def test_the_api_passes_no_more_than_its_limit_around_a_window_edge(settings, clock):
    settings.API_RATE_LIMIT, settings.API_RATE_WINDOW_SECONDS = N, WINDOW
    start = clock["t"]
    passed = 0
    for t in (start + WINDOW - 0.5, start + WINDOW + 0.5):
        clock["t"] = t
        passed += sum(Client().get("/api/benchmarks").status_code == 200 for _ in range(N))
    assert passed == N
    clock["t"] = start + 2 * WINDOW  # a window after the first burst: its slots are free again
    assert Client().get("/api/benchmarks").status_code == 200


def test_sign_in_passes_no_more_than_its_limit_around_a_window_edge(settings, clock):
    settings.ACCOUNT_RATE_LIMIT, settings.VOTE_RATE_WINDOW_SECONDS = N, WINDOW
    start = clock["t"]
    passed = 0
    for t in (start + WINDOW - 0.5, start + WINDOW + 0.5):
        clock["t"] = t
        for _ in range(N):
            res = Client().post("/signin/", {"username": "someone@example.org", "password": "guess"})
            passed += res.status_code != 429
    assert passed == N


def test_votes_pass_no_more_than_their_limit_around_a_window_edge(clock):
    start = clock["t"]
    passed = 0
    for t in (start + WINDOW - 0.5, start + WINDOW + 0.5):
        for _ in range(N):
            passed += rate_limit_hit(bucket="vote", idents=["user:edge"], limit=N, window=WINDOW, at=t) == 0
    assert passed == N
