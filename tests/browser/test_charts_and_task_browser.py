"""Charts and the task page as a reader sees them in Chromium at desktop and phone width: the Inspect quiz's
interval axis ends at 1.00 for a 0-1 score, the AgentBench-Live trade-offs page says it has no cost or time
(no empty charts, no re-rank), the Head-to-head header is not a sort link, and a task page colours a counted
fail like the rubric's fail, not green. Every page passes axe-core."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import violations
from tests.browser.conftest import SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _background(locator) -> str:
    return locator.evaluate("el => getComputedStyle(el).backgroundColor")


@pytest.mark.parametrize("size", sorted(SIZES))
def test_charts_and_run_colours_say_what_the_data_says(demo, browser, live_server, size):
    page = browser.new_page(viewport=SIZES[size])
    base = live_server.url
    found: list[str] = []

    page.goto(base + "/b/inspect-quiz/")
    ticks = page.locator("svg.chart text.tick").all_text_contents()
    assert ticks and ticks[0] == "0.00" and ticks[-1] == "1.00" and "2.00" not in ticks, ticks
    expect(page.locator("#board-region table.board tbody tr").first).to_contain_text("0.04s")
    found += violations(page)

    page.goto(base + "/b/agentbench-live/tradeoffs/")
    expect(page.locator("#no-axes")).to_contain_text("No agent in this round reports cost or time")
    expect(page.get_by_role("heading", name="Re-rank with your own weights")).to_have_count(0)
    expect(page.locator("#main svg")).to_have_count(0)
    found += violations(page)

    # The weekly trade-offs: week totals named as such, and no dot label over another label or a dot, as the
    # browser draws them (each text's own box, in the chart's units).
    page.goto(base + "/b/weekly-shootout/tradeoffs/")
    expect(page.locator("#main")).to_contain_text("Time of the week")
    expect(page.locator("#main")).not_to_contain_text("per run")
    for chart in page.locator("svg.scatter:visible").all():  # the wide drawings (a phone shows the narrow ones)
        boxes = chart.evaluate(
            """svg => [...svg.querySelectorAll('text.dot-label, circle.dot')].map(el => {
                const b = el.getBBox(); return [el.tagName, el.textContent, b.x, b.y, b.x + b.width, b.y + b.height];
            })"""
        )
        labels = [b for b in boxes if b[0] == "text"]
        assert len(labels) >= 4, boxes
        for a in labels:
            for b in boxes:
                if b is a:
                    continue
                apart = a[4] <= b[2] or b[4] <= a[2] or a[5] <= b[3] or b[5] <= a[3]
                assert apart, f"label {a[1]!r} overlaps {b[0]} {b[1]!r}: {a} {b}"
    found += violations(page)

    page.goto(base + "/b/artb/")
    header = page.locator("#board-region thead th", has_text="Head-to-head")
    expect(header).to_be_visible() if size == "desktop" else expect(header).to_have_count(1)
    expect(header.locator("a")).to_have_count(0)
    expect(page.locator("#board-region thead th", has_text="Agent").locator("a")).to_have_count(1)

    page.goto(base + "/b/weekly-shootout/tasks/trip-plan/")
    expect(page.locator("td.num", has_text="one run").first).to_be_visible()
    found += violations(page)
    fail_pill = page.locator(".criterion .pill.bad").first
    pass_pill = page.locator(".criterion .pill.good").first
    counted_fail = page.locator("a.chip.standing", has_text="fail").first
    counted_pass = page.locator("a.chip.standing", has_text="pass").first
    assert _background(counted_fail) == _background(fail_pill)
    assert _background(counted_pass) == _background(pass_pill)
    assert _background(counted_fail) != _background(counted_pass)
    assert not found, found
    page.close()
