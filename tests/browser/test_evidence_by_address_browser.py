"""A run page opened at a moment of its recording, in Chromium at 1280x900 on the demo: at #mark-657 (as the
search and the marks link it) or #t=657 (a media fragment), the page shows the mark and its player stands at
that second, ready to play from there; a fragment changed on the page seeks again."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Wren's trip plan, week 42: an intervention marked at 657 s (10m 57s), "typed a two-factor code".
RUN = "/b/weekly-shootout/r/2026-w42/runs/weekly-2026-w42-wren-trip-plan/"


@pytest.fixture
def site_media(monkeypatch):
    """/media/ answered by the site (`runs.views.evidence_file`, range requests), as `make serve` answers it."""
    from django.test.testcases import _MediaFilesHandler

    monkeypatch.setattr(_MediaFilesHandler, "_should_handle", lambda self, path: False)


def _player_at(page, seconds: float, timeout: float = 15.0) -> None:
    check = "s => { const v = document.getElementById('run-player'); return v.readyState >= 1 && !v.seeking && "
    check += "Math.abs(v.currentTime - s) < 1; }"
    deadline = time.monotonic() + timeout
    while not page.evaluate(check, seconds):
        state = page.evaluate(
            "() => { const v = document.getElementById('run-player'); return [v.currentTime, v.readyState]; }"
        )
        assert time.monotonic() < deadline, (seconds, state)
        page.wait_for_timeout(100)


@pytest.mark.parametrize("fragment", ["#mark-657", "#t=657"])
def test_a_run_page_opened_at_a_moment_stands_its_player_there(demo, site_media, browser, live_server, fragment):
    page = browser.new_page(viewport=SIZES["desktop"])
    page.goto(live_server.url + RUN + fragment)
    mark = page.locator("#mark-657")
    expect(mark).to_contain_text("typed a two-factor code")
    expect(mark).to_be_in_viewport()
    _player_at(page, 657)
    assert page.evaluate("document.getElementById('run-player').paused")  # sought, not started for the reader

    # Another moment chosen in the address while on the page: the player goes there too.
    page.evaluate("location.hash = '#t=30'")
    _player_at(page, 30)
