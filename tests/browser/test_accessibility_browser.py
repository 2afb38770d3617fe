"""Every page kind of the site passes axe-core's WCAG 2 A and AA rules in a real browser (Debian's Chromium through
Playwright) on the demo data: each board tab of each demo benchmark, the trade-offs, agent, round-agent, task, run,
methodology, changelog and head-to-head pages, the vote screen signed in (a pair, then its reveal), sign-in and
sign-up, and the API docs. A violation fails with its rule, help text and elements (`a11y.py`)."""

from __future__ import annotations

import io

import pytest

from tests.browser.a11y import assert_accessible, violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "plum-orchard-77-kite"
DESKTOP = {"width": 1366, "height": 900}


def _demo() -> None:
    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())


def _boards() -> list[str]:
    from leaderboard.models import Benchmark

    return [f"/b/{b.slug}/?tab={key}" for b in Benchmark.objects.order_by("slug") for key, _ in b.rules.tabs]


def _methodologies() -> list[str]:
    from leaderboard.models import Benchmark

    return [f"/b/{slug}/methodology/" for slug in Benchmark.objects.order_by("slug").values_list("slug", flat=True)]


PAGES = {
    "home": lambda: ["/"],
    "boards": _boards,
    "board-task-tab": lambda: ["/b/appbench/?tab=tasks&task=booking"],
    "tradeoffs": lambda: ["/b/appbench/tradeoffs/", "/b/artb/tradeoffs/"],
    "agent": lambda: ["/agents/nimbus/"],
    "task": lambda: ["/b/appbench/tasks/booking/"],
    "run": lambda: ["/b/artb/r/2026-r1/runs/artb-r1-harbor-cart-checkout/"],
    "methodology": _methodologies,
    "changelog": lambda: ["/b/artb/r/2026-r1/changelog/"],
    "not-found": lambda: ["/b/artb/r/2026-r3/"],
}


def _check(page, base: str, path: str) -> None:
    page.goto(base + path)
    page.wait_for_load_state("networkidle")
    assert_accessible(page)


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_page_kind_is_accessible(kind, transactional_db, browser, live_server):
    _demo()
    paths = PAGES[kind]()
    assert paths
    page = browser.new_page(viewport=DESKTOP)
    found = []
    for path in paths:  # every page of the kind is checked before failing, so one run lists them all
        page.goto(live_server.url + path)
        page.wait_for_load_state("networkidle")
        found += [f"{path}: {line}" for line in violations(page)]
    page.close()
    assert not found, "WCAG 2 A/AA violations:\n" + "\n".join(found)


def test_round_agent_and_compare_pages_are_accessible(transactional_db, browser, live_server):
    """Reached the way a reader reaches them: an agent's name on a round's board, a row's "compare" link."""
    _demo()
    page = browser.new_page(viewport=DESKTOP)
    page.goto(live_server.url + "/b/artb/r/2026-r1/")
    page.locator("#board-region a[href*='/r/2026-r1/agents/']").first.click()
    page.wait_for_url("**/r/2026-r1/agents/**")
    assert_accessible(page)
    page.goto(live_server.url + "/b/appbench/")
    page.locator("#board-region table.board tbody tr").nth(1).get_by_role("link", name="compare").click()
    page.wait_for_url("**/b/appbench/compare/?*")
    page.locator("#compare-table").wait_for()
    assert_accessible(page)
    page.close()


def test_accounts_vote_screen_and_api_docs_are_accessible(transactional_db, browser, live_server):
    from django.contrib.auth import get_user_model

    _demo()
    base = live_server.url
    get_user_model().objects.create_user(username="reader@example.com", email="reader@example.com", password=PASSWORD)
    page = browser.new_page(viewport=DESKTOP)
    _check(page, base, "/signup/")
    _check(page, base, "/api/docs")
    _check(page, base, "/signin/?next=/vote/")
    page.get_by_label("Email").fill("reader@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    stage = page.locator("#vote-stage")
    stage.get_by_role("button", name="Tie").wait_for()
    page.wait_for_load_state("networkidle")
    assert_accessible(page)  # a blind pair, the apps in their frames
    stage.get_by_role("button", name="Tie").click()
    page.get_by_role("link", name="Next pair").wait_for()
    assert_accessible(page)  # the reveal
    page.close()


def test_the_check_catches_a_violation(browser):
    """The check is not blind: an image without a text alternative and a link inside a button are reported."""
    page = browser.new_page()
    page.set_content(
        '<html lang="en"><title>t</title><main><img src="x.png"><button><a href="/">go</a></button></main>'
    )
    found = "\n".join(violations(page))
    assert "image-alt" in found and "nested-interactive" in found
    with pytest.raises(AssertionError, match="image-alt"):
        assert_accessible(page)
    page.close()
