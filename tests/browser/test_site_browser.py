"""The public site in a real browser (Debian's Chromium through Playwright) on the demo data: every page kind,
a tab switch and a sort swapped by htmx with the URL kept shareable, a number followed to its run, a CSV
download, and screenshots at phone and desktop width in test-results/site/."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-results" / "site"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def _shoot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _agents(page) -> list[str]:
    return page.locator("#board-region table.board tbody th").all_inner_texts()


def test_the_public_site_in_a_browser(demo, browser, live_server):
    from playwright.sync_api import expect

    base = live_server.url
    errors: list[str] = []
    page = browser.new_page(viewport=DESKTOP, accept_downloads=True)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console", lambda msg: errors.append(msg.text) if msg.type == "error" and "favicon" not in msg.text else None
    )

    # Home: every benchmark with its top agents; open a board from it.
    page.goto(base + "/")
    expect(page.get_by_role("heading", name="Agent Real-Task Bench")).to_be_visible()
    _shoot(page, "home-desktop")
    page.get_by_role("link", name="Agent Real-Task Bench").click()
    expect(page).to_have_url(re.compile(r"/b/artb/$"))
    expect(page.locator("#board-region caption")).to_contain_text("Overall board")
    _shoot(page, "board-outcomes-desktop")

    # Switch a tab: only the table region is swapped and the URL is shareable.
    page.locator("#board-region").evaluate("el => el.dataset.marker = 'kept'")
    page.get_by_role("navigation", name="Boards of this round").get_by_role("link", name="Safety").click()
    expect(page).to_have_url(re.compile(r"\?tab=safety$"))
    expect(page.locator("#board-region caption")).to_contain_text("Safety board")
    expect(page.locator("h1")).to_have_text("Agent Real-Task Bench")

    # Sort a column: the rows change order and the URL carries the sort.
    before = _agents(page)
    page.locator("#board-region thead").get_by_role("link", name=re.compile("^Agent")).click()
    expect(page).to_have_url(re.compile(r"sort=agent&dir=asc"))
    expect(page.locator("#board-region th[aria-sort='ascending']")).to_contain_text("Agent")
    after = _agents(page)
    assert after == sorted(after, key=str.lower) and after != before
    page.reload()
    assert _agents(page) == after  # the URL alone reproduces the view

    # Follow a number to the run behind it (checks board: a task median links to the median run).
    page.goto(base + "/b/appbench/")
    _shoot(page, "board-checks-desktop")
    cell = page.locator("#board-region table.board tbody tr").first.locator("td a[href*='/runs/']").first
    number = cell.inner_text()
    cell.click()
    expect(page).to_have_url(re.compile(r"/runs/[^/]+/$"))
    expect(page.locator(".run-marks")).to_contain_text("median run")
    expect(page.locator(".run-marks")).to_contain_text(number)
    _shoot(page, "run-desktop")

    # Download a CSV.
    page.goto(base + "/b/appbench/")
    with page.expect_download() as info:
        page.get_by_role("link", name="Every run (CSV)").click()
    download = info.value
    assert download.suggested_filename == "appbench-runs.csv"
    rows = list(csv.DictReader(io.StringIO(Path(download.path()).read_text())))
    assert rows and {
        "agent",
        "cli",
        "model",
        "task",
        "score",
        "checks_passed",
        "median_run",
        "tokens",
        "cost_usd",
        "wall_seconds",
        "checks_version",
    } <= set(rows[0])

    # Checks task tab, weekly and scored boards.
    page.goto(base + "/b/appbench/?tab=tasks")
    expect(page.locator("#board-region caption")).to_contain_text("Task")
    _shoot(page, "board-checks-tasks-desktop")
    page.goto(base + "/b/weekly-shootout/")
    expect(page.locator("#board-region table.board")).to_be_visible()
    _shoot(page, "board-weekly-desktop")
    page.goto(base + "/b/agentbench-live/?tab=tasks")
    expect(page.locator("#board-region table.board")).to_contain_text("pass@")
    _shoot(page, "board-scored-desktop")

    # Score x cost x time: weights re-rank the table through htmx.
    page.goto(base + "/b/appbench/tradeoffs/")
    expect(page.locator("svg.scatter").first).to_be_visible()
    _shoot(page, "tradeoffs-desktop")
    page.get_by_label("Score weight").fill("0")
    page.get_by_label("Time weight").fill("0")
    page.get_by_label("Cost weight").press("Tab")
    expect(page).to_have_url(re.compile(r"w_score=0"))
    expect(page.locator("#weighted-region caption")).to_contain_text("score ×0.0")

    # Task, agent, methodology, changelog, and a page that does not exist.
    page.goto(base + "/b/appbench/tasks/booking/")
    expect(page.locator(".chip.standing").first).to_be_visible()
    _shoot(page, "task-desktop")
    page.goto(base + "/agents/nimbus/")
    expect(page.locator("svg.line-chart").first).to_be_visible()
    _shoot(page, "agent-desktop")
    page.goto(base + "/b/artb/methodology/")
    expect(page.get_by_role("heading", name="Choices we made where the method leaves room")).to_be_visible()
    page.goto(base + "/b/artb/r/2026-r1/changelog/")
    expect(page.get_by_role("heading", name=re.compile("Changelog"))).to_be_visible()
    assert not errors, errors
    response = page.goto(base + "/b/artb/r/2026-r3/")  # a draft round: answered like a missing page
    assert response.status == 404
    expect(page.get_by_role("heading", name="This page does not exist")).to_be_visible()
    page.close()

    # Phone width: the same pages stay usable.
    phone = browser.new_page(viewport=PHONE)
    for name, path in [
        ("home", "/"),
        ("board-outcomes", "/b/artb/"),
        ("board-checks", "/b/appbench/"),
        ("run", "/b/artb/r/2026-r1/runs/artb-r1-harbor-cart-checkout/"),
        ("task", "/b/appbench/tasks/booking/"),
        ("tradeoffs", "/b/appbench/tradeoffs/"),
        ("agent", "/agents/nimbus/"),
        ("board-weekly", "/b/weekly-shootout/"),
    ]:
        phone.goto(base + path)
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} overflows the phone screen ({width}px)"
        _shoot(phone, f"{name}-phone")
    phone.close()
