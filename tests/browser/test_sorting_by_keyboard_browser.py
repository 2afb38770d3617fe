"""Sorting a board with the keyboard, in Chromium at 1280x900: Tab to a column's header, Enter sorts the board
(the table is swapped in place) and the focus stays on that header, so the next Enter sorts the other way and
Tab goes on to the next header; it never falls back to the page's start."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _label(locator) -> str:
    """A header's column name, without its sort arrow."""
    return locator.inner_text().splitlines()[0].strip(" ↕↑↓▲▼")


FOCUSED = "(() => { const e = document.activeElement; return [e.tagName, e.dataset.keepFocus || '', e.textContent] })()"


def test_enter_on_a_column_header_sorts_and_keeps_the_focus_there(demo, browser, live_server):
    page = browser.new_page(viewport=SIZES["desktop"])
    page.goto(live_server.url + "/b/artb/")
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Enter")  # on the table
    page.keyboard.press("Tab")  # its first sort header
    first = page.locator(":focus")
    assert first.evaluate("e => e.matches('#board-region thead a.sort')")
    page.keyboard.press("Tab")  # the second header: sort by it
    header = page.locator(":focus")
    label = _label(header)
    with page.expect_response(lambda r: "sort=" in r.url):
        page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"sort="))
    expect(page.locator("#board-region caption .caption-sort")).to_contain_text(f"sorted by {label}")
    focused = page.locator(":focus")
    expect(focused).to_have_count(1)
    assert page.evaluate(FOCUSED)[0] == "A", page.evaluate(FOCUSED)
    assert focused.evaluate("e => e.matches('#board-region thead a.sort')")
    assert _label(focused) == label
    direction = page.evaluate("new URL(location.href).searchParams.get('dir')")

    # Enter again sorts the other way, from the same header; Tab then reaches the next header, not the page top.
    with page.expect_response(lambda r: "sort=" in r.url):
        page.keyboard.press("Enter")
    expect(page).not_to_have_url(re.compile(f"dir={direction}"))
    assert _label(page.locator(":focus")) == label
    page.keyboard.press("Tab")
    assert page.locator(":focus").evaluate("e => e.matches('#board-region thead a.sort')")
