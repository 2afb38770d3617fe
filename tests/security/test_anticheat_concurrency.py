"""The anti-cheat rules from the outside, under concurrency: a live server (threaded), real HTTP requests
from threads, sessions from real sign-ins, then a look at the database.

- two tabs of one account posting the same matchup at once: exactly one vote is stored;
- two accounts from one address: the per-address rate limit counts them together;
- a replayed key (after the vote) is refused with 410 and stores nothing.
"""

from __future__ import annotations

import http.cookiejar
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.builders.voting import build_world, make_user

PASSWORD = "long-enough-pass-2026"
KEY_RE = re.compile(r'action="/vote/m/([^/"]+)/"')
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    """One browser profile: its own cookie jar; tabs of one account share it."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def request(self, path: str, data: dict | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.base + path, data=body, headers={"Referer": self.base + "/vote/"})
        try:
            with self.opener.open(req, timeout=30) as resp:
                return resp.status, resp.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def sign_in(self, email: str) -> None:
        _, page = self.request("/signin/")
        status, _ = self.request(
            "/signin/", {"username": email, "password": PASSWORD, "csrfmiddlewaretoken": CSRF_RE.search(page).group(1)}
        )
        assert status == 302, f"sign-in of {email} answered {status}"

    def matchup_key(self) -> str:
        status, page = self.request("/vote/")
        assert status == 200, page[:300]
        return KEY_RE.search(page).group(1)

    def vote(self, key: str, winner: str = "a") -> tuple[int, str]:
        return self.request(f"/vote/m/{key}/", {"winner": winner, "csrfmiddlewaretoken": self.csrf()})


def at_once(calls) -> list:
    """Run the calls in threads released together by a barrier; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i, call):
        barrier.wait()
        results[i] = call()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.fixture
def live(live_server, transactional_db, settings):
    build_world()
    settings.VOTE_RATE_LIMIT = 1000
    settings.VOTE_DRAW_RATE_LIMIT = 1000
    for name in ("one@example.com", "two@example.com"):
        make_user(name, password=PASSWORD)
    return live_server.url


def test_two_tabs_posting_the_same_matchup_at_once_store_exactly_one_vote(live):
    from voting.models import Vote

    for round_ in range(5):
        tab = Browser(live)
        tab.sign_in("one@example.com")
        key = tab.matchup_key()
        results = at_once([lambda w=w, t=tab, k=key: t.vote(k, w) for w in ("a", "b", "tie")])
        statuses = sorted(status for status, _ in results)
        assert statuses == [302, 410, 410], (round_, statuses)
        assert all("already voted" in body for status, body in results if status == 410)
        assert Vote.objects.filter(matchup__key=key).count() == 1
    assert Vote.objects.count() == 5


def test_two_accounts_from_one_address_share_the_per_address_limit(live, settings):
    from voting.models import Vote

    one, two = Browser(live), Browser(live)
    one.sign_in("one@example.com")
    two.sign_in("two@example.com")
    settings.VOTE_RATE_LIMIT = 3  # per account and per address; both accounts come from 127.0.0.1
    results = []
    for _ in range(3):
        keys = [(b, b.matchup_key()) for b in (one, two)]  # a refused vote leaves its pair open
        results += at_once([lambda b=b, key=key: b.vote(key) for b, key in keys])
    statuses = [status for status, _ in results]
    accepted = statuses.count(302)
    # Each account alone is under its own limit of 3 (3 votes each), so only the shared address can refuse.
    assert accepted == 3, statuses
    assert statuses.count(429) == 3, statuses
    assert all("votes" in body for status, body in results if status == 429)
    assert Vote.objects.count() == 3


def test_a_replayed_key_is_refused_and_stores_nothing(live):
    from voting.models import Vote

    tab = Browser(live)
    tab.sign_in("one@example.com")
    key = tab.matchup_key()
    assert tab.vote(key, "a")[0] == 302
    for winner in ("a", "b", "tie"):
        status, body = tab.vote(key, winner)
        assert status == 410 and "already voted" in body
    other = Browser(live)
    other.sign_in("two@example.com")
    status, body = other.vote(key, "b")
    assert status == 400 and "not issued to you" in body
    assert Vote.objects.filter(matchup__key=key).count() == 1
    assert Vote.objects.get(matchup__key=key).winner == "a"
