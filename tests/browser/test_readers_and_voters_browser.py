"""#32 items 4-8 in Chromium at 1280x900 and 390x844, as readers and voters meet them: the board's ranked-by
columns first and the agent column in place (desktop), each agent a card (phone), vote counts beside ratings,
no Votes download without votes; signed out, "Vote" says what voting is; the reveal in the vote bar while the
apps keep their state. axe-core finds nothing on any of these pages. Screenshots go to docs/ (small PNGs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.a11y import assert_accessible
from tests.browser.voting import use_both_apps

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORD = "plum-orchard-77-kite"


def _headers(page) -> list[str]:
    return [t.strip() for t in page.locator("#board-region table.board thead th").all_inner_texts()]


def test_boards_lead_with_what_ranks_them_keep_the_agent_in_view_and_are_cards_on_a_phone(demo, browser, live_server):
    base = live_server.url
    page = browser.new_page(viewport=DESKTOP)

    # The weekly board is ranked by pass rate, then interventions, then cost: they follow the agent, and at
    # 1280 px they are on screen without scrolling.
    page.goto(base + "/b/weekly-shootout/")
    heads = [h.rstrip("↕▲▼").strip() for h in _headers(page)]
    assert heads[:5] == ["Rank", "Agent", "Pass rate", "Interventions", "Cost"], heads
    for name in ("Pass rate", "Interventions", "Cost"):
        box = page.locator("#board-region thead th", has_text=name).first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= DESKTOP["width"], (name, box)
    # A benchmark without votes offers no votes download.
    assert page.locator("#downloads").get_by_role("link", name="Votes (gzip JSON lines)").count() == 0
    assert_accessible(page)

    # ARTB is wider than the window: scrolled sideways, the agent column stays where it was.
    page.goto(base + "/b/artb/")
    wrap = page.locator("#board-region .table-wrap")
    agent = page.locator("#board-region table.board tbody th.col-agent").first
    before = agent.bounding_box()
    wrap.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    after = agent.bounding_box()
    assert before and after and after["x"] <= before["x"] + 1 and after["x"] >= 0, (before, after)

    # AppBench takes votes: each rating shows how many votes it rests on, and the votes file is offered.
    page.goto(base + "/b/appbench/")
    rated = page.locator("#board-region table.board tbody .votes").first
    assert rated.inner_text().endswith("votes") and int(rated.inner_text().split()[0]) > 0
    assert page.locator("#downloads").get_by_role("link", name="Votes (gzip JSON lines)").count() == 1
    page.goto(base + "/b/weekly-shootout/")
    page.screenshot(path=str(DOCS / "board-desktop.png"))

    # A phone: every agent is a card, its headline figures named, the task-by-task columns left to the table.
    phone = browser.new_page(viewport=PHONE)
    phone.goto(base + "/b/weekly-shootout/")
    card = phone.locator("#board-region table.board tbody tr").first
    box = card.bounding_box()
    assert box is not None and box["width"] <= PHONE["width"], box
    # Each shown figure carries its column's name (drawn by CSS from data-label, so it is not in innerText).
    labels = card.evaluate(
        """tr => [...tr.querySelectorAll('td')].filter(td => td.offsetParent !== null)
                 .map(td => getComputedStyle(td, '::before').content.replace(/^"|"$/g, ''))"""
    )
    assert labels[:4] == ["Rank", "Pass rate", "Interventions", "Cost"], labels
    assert "%" in card.inner_text() and "$" in card.inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    hidden = card.locator("td.card-more").first
    assert hidden.count() == 0 or not hidden.is_visible()
    assert_accessible(phone)
    phone.screenshot(path=str(DOCS / "board-phone.png"))
    phone.goto(base + "/b/appbench/")
    assert "votes" in phone.locator("#board-region table.board tbody tr").first.inner_text()
    wide = phone.evaluate(
        """() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth)
                 .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""
    )
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], wide[:10]
    # A board with no headline column (AgentBench-Live's tasks tab: one column per task) keeps every task on
    # the card, each named, with its pass@k and heuristic marks: not a rank and nothing it was ranked on.
    phone.goto(base + "/b/agentbench-live/?tab=tasks")
    card = phone.locator("#board-region table.board tbody tr").first
    shown = card.evaluate(
        """tr => [...tr.querySelectorAll('td')].filter(td => td.offsetParent !== null)
                 .map(td => getComputedStyle(td, '::before').content.replace(/^"|"$/g, ''))"""
    )
    assert {"code-001", "multi-002", "research-001"} <= set(shown), shown
    assert "pass@" in card.inner_text() and "heuristic" in card.inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert_accessible(phone)


@pytest.fixture
def appbench(transactional_db, settings, tmp_path):
    from bundles.importer import bundle_import

    settings.MEDIA_ROOT = tmp_path / "media"
    doc = json.loads((ROOT / "fixtures" / "appbench.json").read_text())
    doc["votes"] = []
    bundle_import(doc=doc, folder=ROOT / "fixtures")
    return doc


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_signed_out_vote_explains_then_the_reveal_is_in_the_bar_and_the_apps_stay(
    live_server, appbench, browser, settings, size
):
    settings.VOTE_RATE_LIMIT = 1000
    names = [a["name"] for a in appbench["agents"]]
    viewport = DESKTOP if size == "desktop" else PHONE
    page = browser.new_page(viewport=viewport)

    # Signed out, "Vote" says what voting is and why an account is needed, with sign-up beside the form.
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Vote", exact=True).first.click()
    page.get_by_role("heading", name="Vote on agents' apps").wait_for()
    assert "An account is needed" in page.inner_text("main")
    assert page.get_by_role("link", name="Sign up to vote").is_visible()
    assert page.get_by_role("button", name="Sign in").is_visible()
    assert_accessible(page)
    page.get_by_role("link", name="Sign up to vote").click()
    page.get_by_label("Email").fill(f"voter-{size}@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()

    # The pair, blind: no agent's name anywhere on the page.
    stage = page.locator("#vote-stage")
    stage.get_by_role("button", name="B is better").wait_for()
    page.wait_for_load_state("networkidle")
    html = page.content()
    assert not [n for n in names if n in html], "a name was on the page before the vote"
    assert_accessible(page)
    # What the voter did in the apps is the frames' state: mark the frames and what they hold.
    page.evaluate(
        """() => document.querySelectorAll('iframe.live').forEach((f, i) => { f.dataset.kept = 'yes-' + i; })"""
    )
    frames_before = page.locator("iframe.live").count()
    use_both_apps(page)
    stage.get_by_role("button", name="B is better").click()
    bar = page.locator("#vote-reveal .vote-bar")
    bar.wait_for()

    # The reveal is in the bar, in view: "A = name, B = name", each a link to its run.
    makers = bar.locator(".vote-makers")
    text = makers.inner_text()
    assert text.startswith("A = ") and " B = " in text.replace("·", " "), text
    shown = [n for n in names if n in text]
    assert len(shown) == 2, text
    assert makers.get_by_role("link").count() == 2
    assert "You voted B is better" in bar.inner_text()
    box = bar.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= viewport["height"] + 1, box
    # The apps were not reloaded: the same frame elements, with what was set on them.
    kept = page.evaluate("() => [...document.querySelectorAll('iframe.live')].map(f => f.dataset.kept)")
    assert kept == [f"yes-{i}" for i in range(frames_before)], kept
    # The panel headers have the names too.
    assert [n for n in names if n in page.locator("#side-reveal-A").inner_text()]
    assert_accessible(page)
    page.screenshot(path=str(DOCS / f"vote-reveal-{size}.png"))

    # "Next pair" brings a new blind pair (and new frames).
    page.get_by_role("link", name="Next pair").click()
    stage.get_by_role("button", name="Tie").wait_for()
    assert page.locator("#vote-reveal").count() == 0
    assert not [n for n in names if n in page.locator("#vote-stage").inner_text()]
