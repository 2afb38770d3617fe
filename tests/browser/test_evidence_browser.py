"""Evidence as a reader meets it in Chromium, on the demo: a weekly run's recording plays in the player of its run
page; its mark "9m 05s" is a button (mouse and keyboard) that plays it from that second; the file opened by its
address (as the evidence list and a mark link it) plays and starts at the mark; the search finds the mark and
lands on it. An AgentBench-Live run page shows the score's parts adding up to it and the judge's narrative as
text, with nothing wider than a phone. axe-core finds nothing. Screenshots: docs/run-player-desktop.png,
docs/score-parts-desktop.png, docs/score-parts-phone.png."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs"
# Wren's expense report, week 43: one intervention, marked at 545 s (9m 05s), "typed a two-factor code".
RUN = "/b/weekly-shootout/r/2026-w43/runs/weekly-2026-w43-wren-expense-report/"
ABL_RUN = "/b/agentbench-live/r/2026-03-19/runs/abl-2026-03-19-gemini-cli-multi-001-t3/"


@pytest.fixture
def site_media(monkeypatch):
    """/media/ answered by the site, as `make serve` and production answer it (`runs.views.evidence_file`: who may
    see the run, range requests), not by the test server's plain file handler, which knows neither."""
    from django.test.testcases import _MediaFilesHandler

    monkeypatch.setattr(_MediaFilesHandler, "_should_handle", lambda self, path: False)


def _player(page) -> dict:
    return page.evaluate(
        """() => { const v = document.querySelector('video');
                   return {time: v.currentTime, duration: v.duration, ready: v.readyState, paused: v.paused,
                           error: v.error && v.error.code}; }"""
    )


def _wait_for(page, condition: str, timeout: float = 15.0) -> None:
    """Until the page's player meets `condition` (JavaScript over `v`), polled from here: the file opened by its
    address is a page whose policy allows no script of Playwright's own waiting."""
    check = f"() => {{ const v = document.querySelector('video'); return !!(v && ({condition})); }}"
    deadline = time.monotonic() + timeout
    while not page.evaluate(check):
        assert time.monotonic() < deadline, (condition, _player(page))
        page.wait_for_timeout(100)


def test_a_recording_plays_on_its_run_page_and_from_its_mark(demo, site_media, browser, live_server):
    base = live_server.url
    page = browser.new_page(viewport=SIZES["desktop"])
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    page.goto(base + RUN)

    # The player is on the page, its file from the site; the whole recording is there (31 minutes).
    video = page.locator("video#run-player")
    expect(video).to_be_visible()
    assert video.get_attribute("src").startswith("/media/evidence/")
    _wait_for(page, "v.readyState >= 1")
    assert _player(page)["duration"] >= 1800

    # Played from the page, it plays.
    page.evaluate("document.querySelector('video').play()")
    _wait_for(page, "v.currentTime > 0.5")
    page.evaluate("document.querySelector('video').pause()")

    # The mark is a button: clicked, the player plays from 9m 05s.
    mark = page.get_by_role("button", name="Play the recording from 9m 05s")
    expect(mark).to_be_visible()
    expect(page.locator("#mark-545")).to_contain_text("typed a two-factor code")
    mark.click()
    _wait_for(page, "!v.seeking && v.readyState >= 2 && v.currentTime >= 545")
    state = _player(page)
    assert 545 <= state["time"] < 555 and state["error"] is None, state
    page.locator("#evidence-title").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('video').pause()")
    page.locator("video#run-player").scroll_into_view_if_needed()
    page.screenshot(path=str(DOCS / "run-player-desktop.png"))

    # With the keyboard: back to the start, then Tab to the mark and Enter.
    page.evaluate("document.querySelector('video').currentTime = 0")
    _wait_for(page, "!v.seeking && v.currentTime < 1")
    mark.focus()
    page.keyboard.press("Enter")
    _wait_for(page, "!v.seeking && v.readyState >= 2 && v.currentTime >= 545")
    assert 545 <= _player(page)["time"] < 555
    found = violations(page)

    # On a phone the page keeps to the screen, the player within it.
    phone = browser.new_page(viewport=SIZES["phone"])
    phone.goto(base + RUN)
    assert phone.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"]["width"]
    box = phone.locator("video#run-player").bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= SIZES["phone"]["width"], box

    # The file opened by its address (the evidence list's link, a mark's link without script) plays, at the mark.
    href = page.locator("video#run-player").get_attribute("src")
    direct = browser.new_page(viewport=SIZES["desktop"])
    direct.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    direct.goto(f"{base}{href}#t=545")
    _wait_for(direct, "v.readyState >= 2 && v.currentTime >= 545")
    state = _player(direct)
    assert 545 <= state["time"] < 555 and state["duration"] >= 1800 and state["error"] is None, state
    direct.evaluate("document.querySelector('video').play()")
    _wait_for(direct, "v.currentTime > 545.5")
    assert not [m for m in refused if "CORS" in m or "blocked" in m], refused

    # The search finds the mark's words and lands on it.
    page.goto(base + "/b/weekly-shootout/search/?q=two-factor")
    hit = page.locator(f'a[href="{RUN}#mark-545"]')
    expect(hit).to_have_count(1)
    hit.click()
    expect(page).to_have_url(re.compile(re.escape(RUN) + "#mark-545$"))
    expect(page.locator("#mark-545")).to_be_in_viewport()
    found += violations(page)
    assert not found, found


@pytest.mark.parametrize("size", sorted(SIZES))
def test_an_agentbench_live_score_shows_its_parts_and_the_narrative_reads_as_text(demo, browser, live_server, size):
    page = browser.new_page(viewport=SIZES[size])
    page.goto(live_server.url + ABL_RUN)
    # Gemini CLI on multi-001, trial 3: every test passed, judge criteria 1, 1, 1, 7.
    # 0.6 x 1.0 + 0.4 x ((1 + 1 + 1 + 7) / 4 / 10) = 0.60 + 0.4 x 0.25 = 0.60 + 0.10 = 0.70.
    parts = page.locator("#score-parts")
    expect(parts.get_by_role("heading")).to_have_text("How the score 0.70 is reached")
    rows = [r.split("\t") for r in parts.locator("tbody tr").all_inner_texts()]
    assert [[c.strip() for c in r] for r in rows] == [
        ["Tests", "pass rate as published", "1.00", "60%", "0.60"],
        ["LLM judge", "mean of 4 criteria, 2.50 / 10", "0.25", "40%", "0.10"],
    ], rows
    expect(parts.locator("tfoot")).to_contain_text("0.70")
    narrative = page.locator("#judge-narrative")
    expect(narrative).to_contain_text("Process: 7")
    assert "{" not in narrative.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    box = narrative.bounding_box()
    assert box and box["x"] + box["width"] <= SIZES[size]["width"], box
    assert not violations(page)
    parts.screenshot(path=str(DOCS / f"score-parts-{size}.png"))
