"""The head-to-head page in a real browser on the demo data: opened from a board row, one agent swapped by htmx
(the page is not reloaded and the URL stays shareable), a run followed from it; and the same page without
JavaScript. Screenshots in test-results/site/."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "test-results" / "site"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}


def test_the_head_to_head_in_a_browser(demo, browser, live_server):
    from playwright.sync_api import expect

    base = live_server.url
    errors: list[str] = []
    page = browser.new_page(viewport=DESKTOP)
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    # The board shows the interval chart and Rank (UB); a row's "compare" opens the head-to-head.
    page.goto(base + "/b/appbench/")
    expect(page.locator("#board-region table.board thead")).to_contain_text("Rank (UB)")
    expect(page.locator("#score-chart svg.intervals-wide")).to_be_visible()  # the phone draws intervals-narrow
    page.locator("#board-region table.board tbody tr").nth(1).get_by_role("link", name="compare").click()
    expect(page).to_have_url(re.compile(r"/b/appbench/compare/\?"))
    first = _query(page.url)
    assert first["a"] and first["b"] and first["a"] != first["b"]
    expect(page.locator("#compare-table")).to_be_visible()
    expect(page.get_by_role("heading", name="Paired difference")).to_be_visible()
    expect(page.locator("#compare-region")).to_contain_text("95% interval")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "compare-desktop.png"), full_page=True)

    # Swap the second agent: htmx replaces the region only (the marker on the page survives) and the URL follows.
    page.evaluate("document.body.dataset.marker = 'kept'")
    options = page.locator("#compare-b option").evaluate_all("els => els.map(e => e.value)")
    other = next(v for v in options if v and v not in (first["a"], first["b"]))
    page.locator("#compare-b").select_option(other)
    expect(page).to_have_url(re.compile(rf"b={re.escape(other)}"))
    expect(page.locator("#compare-region h2")).to_contain_text(
        page.locator(f"#compare-b option[value='{other}']").inner_text()
    )
    assert page.evaluate("document.body.dataset.marker") == "kept"
    page.reload()  # the URL alone reproduces the view
    expect(page.locator("#compare-b")).to_have_value(other)

    # Follow a run from the table.
    link = page.locator("#compare-table tbody a[href*='/runs/']").first
    href = link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(re.escape(href) + "$"))
    assert not errors, errors
    page.close()

    # Without JavaScript: choose two agents and submit the form.
    context = browser.new_context(java_script_enabled=False, viewport=PHONE)
    plain = context.new_page()
    plain.goto(base + "/b/appbench/compare/")
    expect(plain.locator("#compare-region")).to_contain_text("Choose two different agents")
    values = [v for v in plain.locator("#compare-a option").evaluate_all("els => els.map(e => e.value)") if v]
    plain.locator("#compare-a").select_option(values[0])
    plain.locator("#compare-b").select_option(values[1])
    plain.get_by_role("button", name="Compare").click()
    expect(plain.locator("#compare-table")).to_be_visible()
    assert _query(plain.url)["a"] == values[0] and _query(plain.url)["b"] == values[1]
    width = plain.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the head-to-head overflows the phone screen ({width}px)"
    plain.screenshot(path=str(SHOTS / "compare-phone.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_task_ranked_by_votes_on_the_head_to_head_in_a_browser(demo, browser, live_server, size):
    """Forge against Kestrel on AppBench: the messenger (an invent task, ranked by votes) shows the two task
    ratings and who is ahead by them, in its own group outside the difference; the page passes axe-core and
    fits a phone."""
    from playwright.sync_api import expect

    from tests.browser.a11y import assert_accessible

    page = browser.new_page(viewport=DESKTOP if size == "desktop" else PHONE)
    page.goto(live_server.url + "/b/appbench/compare/?a=forge&b=kestrel")
    messenger = page.locator("#compare-table tr[data-task='messenger']")
    expect(messenger).to_contain_text("vote rating")
    expect(messenger.locator("td").last).to_contain_text(re.compile(r"^\s*Forge\s*by vote rating\s*$"))
    expect(messenger).not_to_contain_text("same")
    groups = page.locator("#compare-table tbody.compare-group")
    expect(groups).to_have_count(2)
    expect(groups.nth(1).locator("tr[data-task='messenger']")).to_have_count(1)
    shared = groups.nth(0).locator("tr[data-task]").count()
    expect(page.locator("#compare-region .verdict-line")).to_contain_text(f"over the {shared} tasks both ran")
    expect(page.locator("#votes-differ")).to_be_visible()
    assert_accessible(page)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the head-to-head overflows ({width}px)"
    page.close()
