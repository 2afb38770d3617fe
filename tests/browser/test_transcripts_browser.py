"""A transcript and the search as a reader meets them in Chromium, desktop and phone, on the demo's Inspect quiz
(a real eval whose model calls a tool): the run page's messages with their anchors, the tool call and its
result, the scorer's explanation; finding a word within the run; the benchmark search linking straight to the
message. Every page passes axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RUN = "/b/inspect-quiz/r/2026-r1/runs/scripted-steady.quiz.3.1/"


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_reader_reads_a_transcript_and_finds_a_word(demo, browser, live_server, size):
    page = browser.new_page(viewport=SIZES[size])
    base = live_server.url
    found: list[str] = []

    page.goto(base + RUN)
    expect(page.locator("#m-1")).to_contain_text("Calls tool almanac")
    expect(page.locator("#m-2")).to_contain_text("iron oxide dust")
    expect(page.locator("#scores")).to_contain_text("incorrect (I)")
    # Nothing on the page is wider than the screen (long tool output wraps).
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    found += violations(page)

    page.fill("#transcript-q", "iron oxide")
    page.get_by_role("button", name="Find").click()
    expect(page.locator("#matches")).to_contain_text("is in 1 message")
    expect(page.locator("#m-2 mark")).to_have_text("iron oxide")
    found += violations(page)

    page.goto(base + "/b/inspect-quiz/search/")
    page.fill("#search-q", "oxide")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#search-count")).to_contain_text("runs mention")
    page.locator(".result-hits a").first.click()
    expect(page.locator("#m-2")).to_be_visible()
    expect(page.locator("#m-2 mark")).to_have_text("oxide")
    found += violations(page)
    assert not found, found
    page.close()
