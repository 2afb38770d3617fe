"""Readers on a phone (390x844) and with a keyboard, in Chromium on the demo data:

- every public page kind fits the phone's width (no sideways scrolling of the page) and passes axe-core there;
- the head-to-head's task table shows both agents' columns (and who is ahead) without scrolling, the pair with
  the longest names included (a screenshot goes to docs/head-to-head-phone.png);
- interval charts keep their text readable (not drawn at half size);
- the API docs page is a site page (header, footer, a way back, a phone viewport) and "docs/api.md" is a link
  to that guide, itself a site page;
- the focus ring and the sort arrows have at least the 3:1 contrast a control's cue needs, computed from the
  browser's own computed colours;
- the first Tab on a board shows a skip link to the board table, and Enter moves the focus to the table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.test_accessibility_browser import PAGES, SHOWS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

# Page kinds beyond the accessibility test's list, as a reader reaches them.
MORE_PAGES = {
    "compare-with-agents": lambda: [
        "/b/artb/compare/?a=atlas-ops&b=xingyun",
        "/b/appbench/compare/?a=forge&b=kestrel",
        "/b/agentbench-live/compare/?a=claude-code&b=gemini-cli",
    ],
    "round-agent": lambda: ["/b/artb/r/2026-r1/agents/harbor/"],
    "round-tasks": lambda: ["/b/artb/r/2026-r1/tasks/", "/b/appbench/r/2026-10/tasks/"],
    "search": lambda: ["/b/artb/search/?q=checkout"],
    "api-guides": lambda: ["/api/docs/api.md", "/api/docs/inspect.md"],
}


def _rgb(css: str) -> tuple[float, float, float, float]:
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    return (parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else 1.0)


def _luminance(rgb: tuple[float, ...]) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two opaque computed colours (`rgb(...)`)."""
    hi, lo = sorted((_luminance(_rgb(a)), _luminance(_rgb(b))), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# The background an element is drawn on: the first ancestor (itself included) with an opaque background.
BACKGROUND = """el => { for (let e = el; e; e = e.parentElement) {
  const c = getComputedStyle(e).backgroundColor; if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c; }
  return getComputedStyle(document.body).backgroundColor; }"""


def test_every_page_kind_fits_a_phone_and_passes_axe_there(demo, browser, live_server):
    page = browser.new_page(viewport=PHONE)
    wide, found, seen = [], [], 0
    for kind, paths in {**PAGES, **MORE_PAGES}.items():
        for path in paths():
            page.goto(live_server.url + path)
            page.wait_for_load_state("networkidle")
            if path in SHOWS:
                assert SHOWS[path].lower() in page.inner_text("body").lower(), path
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                wide.append(f"{kind} {path}: {width}px")
            found += [f"{path}: {line}" for line in violations(page)]
            seen += 1
    page.close()
    assert seen > 40
    assert not wide, "scrolls sideways at 390 px:\n" + "\n".join(wide)
    assert not found, "WCAG 2.x A/AA violations at 390 px:\n" + "\n".join(found)


def test_the_head_to_head_on_a_phone_shows_both_agents_and_its_charts_stay_readable(demo, browser, live_server):
    page = browser.new_page(viewport=PHONE)
    # The two longest agent names of the demo, side by side.
    page.goto(live_server.url + "/b/artb/compare/?a=atlas-ops&b=xingyun")
    table = page.locator("#compare-table")
    expect(table.locator("thead")).to_contain_text("Xingyun Assistant")
    wrap = table.locator("xpath=..")
    visible_right = wrap.evaluate("el => el.getBoundingClientRect().left + el.clientLeft + el.clientWidth")
    for name in ("Atlas Operator", "Xingyun Assistant", "Ahead"):
        box = table.locator("thead th", has_text=name).bounding_box()
        assert box is not None and box["x"] + box["width"] <= visible_right + 0.5, f"{name} is scrolled out of view"
    assert wrap.evaluate("el => el.scrollWidth <= el.clientWidth"), "the task table scrolls sideways"
    row = table.locator("tbody tr[data-task]").first
    for cell in row.locator("td").all():
        box = cell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= visible_right + 0.5
    # The phone's screen at the task table: its caption, the agents' columns and the first tasks.
    table.locator("caption").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.screenshot(path=str(ROOT / "docs" / "head-to-head-phone.png"))

    # Interval charts: every label as tall as readable text, not a 720-unit drawing shrunk to half.
    page.goto(live_server.url + "/b/appbench/")
    charts = page.locator("svg.intervals:visible")
    expect(charts.first).to_be_visible()
    heights = charts.first.evaluate(
        "svg => [...svg.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect().height])"
    )
    names = [h for text, h in heights if not re.match(r"^[\d.,%]+$", text)]
    assert names and len(names) == len(set(t for t, _ in heights if not re.match(r"^[\d.,%]+$", t)))
    small = [(text, round(h, 1)) for text, h in heights if h < 11]
    assert not small, f"chart labels under 11 px on a phone: {small}"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.close()


def test_the_api_docs_are_a_site_page_with_the_guide_a_link(demo, browser, live_server):
    page = browser.new_page(viewport=PHONE)
    page.goto(live_server.url + "/api/docs")
    assert page.locator("meta[name=viewport]").get_attribute("content") == "width=device-width, initial-scale=1"
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    expect(page.locator("footer.site-footer")).to_be_visible()
    expect(page.locator(".opblock").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    text_size = page.locator(".opblock-summary-path").first.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert text_size >= 12  # laid out for the phone, not a 980 px page shrunk to fit
    assert not violations(page)

    # The guide is a link, to a site page with the same header and a way back.
    page.get_by_role("link", name="docs/api.md").click()
    expect(page).to_have_url(live_server.url + "/api/docs/api.md")
    expect(page.get_by_role("heading", name="The API", exact=False).first).to_be_visible()
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="API docs").click()
    expect(page).to_have_url(live_server.url + "/api/docs")
    page.get_by_role("navigation", name="Breadcrumb").get_by_role("link", name="Boards").click()
    expect(page).to_have_url(live_server.url + "/")
    page.close()


def test_focus_ring_and_sort_arrows_stand_out_and_a_skip_link_leads_to_the_board_table(demo, browser, live_server):
    page = browser.new_page(viewport=DESKTOP)
    page.goto(live_server.url + "/b/artb/")

    # The first Tab shows the skip link (on screen, with its ring), and Enter puts the focus on the table.
    page.keyboard.press("Tab")
    skip = page.locator(":focus")
    expect(skip).to_have_text("Skip to the board table")
    box = skip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["y"] >= 0
    page.keyboard.press("Enter")
    expect(page.locator("#board-region table.board")).to_be_focused()
    page.keyboard.press("Tab")  # the next stop is in the table: its first sort header
    assert page.evaluate("document.activeElement.closest('table') && document.activeElement.closest('table').id") == (
        "board-table"
    )

    # The focus ring against what it is drawn on, wherever a reader tabs: a sort header in the table's head,
    # a board tab on the page, a link in the dark site header, and the skip link shown over that header.
    checks = {
        "sort header": "#board-region thead a.sort",
        "board tab": "#board-region nav.tabs a",
        "header link": ".site-header .nav-links a",
    }
    for what, selector in checks.items():
        el = page.locator(selector).first
        el.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")  # focused from the keyboard, so :focus-visible applies
        expect(el).to_be_focused()
        ring = el.evaluate("el => getComputedStyle(el).outlineColor")
        style = el.evaluate("el => getComputedStyle(el).outlineStyle")
        behind = el.evaluate(f"el => ({BACKGROUND})(el.parentElement)")
        assert style != "none", what
        ratio = _contrast(ring, behind)
        assert ratio >= 3, f"{what}: focus ring {ring} on {behind} is {ratio:.2f}:1"
    page.goto(live_server.url + "/b/artb/")
    page.keyboard.press("Tab")
    skip = page.locator(":focus")
    ring = skip.evaluate("el => getComputedStyle(el).outlineColor")
    header = page.locator(".site-header").evaluate("el => getComputedStyle(el).backgroundColor")
    assert _contrast(ring, header) >= 3, f"skip link ring {ring} over the header {header}"

    # The sort arrows (the unsorted ↕ and the sorted one) against the table's head.
    arrows = page.locator("#board-region thead a.sort .arrow")
    assert arrows.count() >= 3
    for i in range(arrows.count()):
        arrow = arrows.nth(i)
        colour = arrow.evaluate("el => getComputedStyle(el).color")
        behind = arrow.evaluate(BACKGROUND)
        ratio = _contrast(colour, behind)
        assert ratio >= 3, f"sort arrow {arrow.inner_text()} {colour} on {behind} is {ratio:.2f}:1"
    page.close()
