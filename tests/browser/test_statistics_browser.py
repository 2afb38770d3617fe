"""The round statistics as a reader meets them in Chromium, desktop and phone, on the demo: under the ARTB
board (noise floor, reliability, review agreement), the round's Tasks page (every task's discrimination, the
flag badges, the tasks reviewers disagreed on), AppBench's board (how many votes hold the top place), a
head-to-head's power sentence, and the methodology page's explanations. Every page passes axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("size", sorted(SIZES))
def test_a_reader_sees_how_much_to_read_into_each_board(demo, browser, live_server, size):
    page = browser.new_page(viewport=SIZES[size])
    base = live_server.url
    found: list[str] = []

    page.goto(base + "/b/artb/")
    stats = page.locator("#round-stats-title").locator("..")
    expect(stats.locator("#noise-floor")).to_contain_text("Two agents must differ by about")
    expect(stats.locator("#reliability")).to_contain_text("Split-half reliability")
    expect(stats.locator("#review-agreement")).to_contain_text("Cohen's kappa")
    stats.locator("#noise-floor").scroll_into_view_if_needed()
    expect(stats.locator("#noise-floor")).to_be_in_viewport()
    found += violations(page)

    page.get_by_role("link", name="Which tasks separate the agents").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Which tasks separate the agents")
    rows = page.locator("#task-stats-table tbody tr")
    assert rows.count() >= 10
    expect(page.locator("#disagreement-table")).to_be_visible()
    found += violations(page)

    page.goto(base + "/b/appbench/")
    expect(page.locator("#vote-margins")).to_contain_text("votes are removed")
    expect(page.locator("#noise-floor")).to_contain_text("on the Overall (0-100)")
    found += violations(page)

    # The messenger's tab is ranked by vote ratings: no checks-scale noise floor beside them, and every two
    # neighbours of its order listed, Kestrel and Tern Code (overlapping intervals) included.
    page.goto(base + "/b/appbench/?tab=tasks&task=messenger")
    expect(page.locator("#noise-floor")).to_contain_text("none in vote ratings")
    expect(page.locator("#vote-margins")).to_contain_text("Votes that hold this board's order")
    expect(page.locator("#vote-margins")).to_contain_text("Kestrel and Tern Code: their 95% intervals overlap")
    found += violations(page)

    page.goto(base + "/b/agentbench-live/compare/?a=claude-code&b=gemini-cli")
    expect(page.locator("#power")).to_contain_text("tasks like these")
    found += violations(page)

    page.goto(base + "/b/artb/methodology/#statistics")
    expect(page.locator("#statistics")).to_be_visible()
    expect(page.get_by_text("Split-half reliability.", exact=False).first).to_be_visible()
    found += violations(page)
    assert not found, found
    page.close()
