"""Pages at a phone's width (390x844) in Chromium: none scrolls sideways (the document is no wider than the
window), the charts' text is drawn at 11 px or more (measured: its font size times the drawing's scale on
screen), and the submission's table of checks shows each check's reason on screen, not in a region only a
mouse can scroll (axe: scrollable-region-focusable)."""

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from tests.browser.a11y import assert_accessible
from tests.browser.conftest import SIZES
from tests.browser.tau2_site import load_tau2

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PHONE = SIZES["phone"]
PASSWORD = "a-browser-test-password"
# The text of every chart drawn on the page (a chart hidden at this width is not drawn, and not measured), in
# pixels as the screen shows it: its font size in the drawing's units times the drawing's scale.
CHART_TEXT_PX = """() => [...document.querySelectorAll('svg.chart')]
  .filter(s => s.getBoundingClientRect().width > 0)
  .flatMap(s => [...s.querySelectorAll('text')]
    .map(t => parseFloat(getComputedStyle(t).fontSize) * s.getScreenCTM().a))"""
WIDER = """w => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)
  .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 6)"""


def _fits(page) -> None:
    """The page does not scroll sideways: the document is no wider than the window (names what sticks out)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], (page.url, width, page.evaluate(WIDER, PHONE["width"]))


def _chart_text(page) -> list[float]:
    sizes = page.evaluate(CHART_TEXT_PX)
    assert sizes, f"no chart drawn on {page.url}"
    return sizes


def test_charts_read_at_11px_and_no_page_scrolls_sideways(live_server, browser, demo):
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    # The trade-offs scatters were drawn at 640 units in about 326 px: their 11 px text came out 5.6 px.
    for path in ("/b/artb/tradeoffs/", "/b/appbench/tradeoffs/", "/b/weekly-shootout/tradeoffs/"):
        page.goto(live_server.url + path)
        assert min(_chart_text(page)) >= 11, path
        _fits(page)
    # An agent's line over rounds: 480 units in 326 px, 7.5 px text.
    page.goto(live_server.url + "/agents/nimbus/")
    assert min(_chart_text(page)) >= 11
    _fits(page)
    # AgentBench-Live's rounds have long names: its round <select> was 448 px wide, the page 461 px.
    for path in ("/b/agentbench-live/tradeoffs/", "/b/agentbench-live/compare/"):
        page.goto(live_server.url + path)
        expect(page.locator("select[name=round]")).to_be_visible()
        _fits(page)

    # The vote screen with a pair on it: the vote bar reached 4 px past the window's edge.
    User.objects.create_user("reader@example.com", "reader@example.com", PASSWORD)
    page.goto(f"{live_server.url}/signin/?next=/vote/")
    page.get_by_label("Email").fill("reader@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/vote/")
    expect(page.locator("#vote-stage form.vote-bar")).to_be_visible()
    _fits(page)


def test_the_tau2_pages_fit_a_phone_and_each_checks_reason_is_on_screen(live_server, browser):
    button, _ = load_tau2()
    page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    # τ²'s methodology page names its task-set files in long <code>: 443 px.
    page.goto(live_server.url + "/b/tau2/methodology/")
    _fits(page)
    page.goto(f"{live_server.url}/b/tau2/submissions/{button.pk}/")
    reasons = page.locator("table.submission-checks td[data-label='Reason']")
    assert reasons.count() >= 8
    for reason in reasons.all():
        reason.scroll_into_view_if_needed()
        box = reason.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert reason.inner_text().strip()
    _fits(page)
    assert_accessible(page)
