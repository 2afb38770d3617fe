"""Every page kind of the site passes axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules in a real browser (Debian's
Chromium through Playwright) on the demo data (`a11y.py`; a violation fails with its rule, help text and elements).

- Public pages: each board tab of each demo benchmark, a past round's board, the trade-offs, agent, round-agent,
  head-to-head (empty and filled), methodology and changelog pages, a task page (a to-spec task and the invent
  task) and a run page (one per benchmark, the `checks` one with its table of checks), not found (404), a bad
  address (400), the server's error page (500), sign-up, sign-in, sign-out and the API docs.
- The vote screen, signed in: a pair with both apps live, one app in full screen, the same on a phone (390x844),
  the reveal (in place and as its own page), "No pair to show", a refused pair (410 in place, 400 and 410 as
  whole pages, the latter without htmx), the rate limits (429 in place for a vote, as a page for a draw),
  wrong credentials at sign-in, and sign-out.
- The vendor preview, signed in as a vendor's user: the list of rounds, a round's runs, the dispute form (blank
  and with its errors) and the round again with the filed dispute and its confirmation.

Each test loads its data set once and visits its pages with one browser."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.a11y import assert_accessible, violations
from tests.browser.voting import use_both_apps

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "plum-orchard-77-kite"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def _demo() -> None:
    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())


def _appbench() -> None:
    """AppBench alone (the only benchmark with votes), with its messenger apps: what the vote screen shows."""
    from bundles.importer import bundle_import

    doc = json.loads((ROOT / "fixtures" / "appbench.json").read_text(encoding="utf-8"))
    doc["votes"] = []
    bundle_import(doc=doc, folder=ROOT / "fixtures")


def _boards() -> list[str]:
    from leaderboard.models import Benchmark

    return [f"/b/{b.slug}/?tab={key}" for b in Benchmark.objects.order_by("slug") for key, _ in b.rules.tabs]


def _methodologies() -> list[str]:
    from leaderboard.models import Benchmark

    return [f"/b/{slug}/methodology/" for slug in Benchmark.objects.order_by("slug").values_list("slug", flat=True)]


def _one_run_per_benchmark() -> list[str]:
    """A published run of each benchmark: the run page shows different facts per methodology."""
    from leaderboard.models import Benchmark
    from runs.models import Run

    paths = []
    for bench in Benchmark.objects.order_by("slug"):
        run = Run.objects.filter(round__benchmark=bench, round__status="published").order_by("key").first()
        assert run is not None, bench.slug
        paths.append(f"/b/{bench.slug}/r/{run.round.key}/runs/{run.key}/")
    return paths


CHECKS_RUN = "/b/appbench/r/2026-10/runs/appbench-2026-10-forge-shop-t1/"  # a trial 1: it lists every check

PAGES = {
    "home": lambda: ["/"],
    "boards": _boards,
    "board-of-a-past-round": lambda: ["/b/artb/r/2026-r1/"],
    "board-task-tab": lambda: ["/b/appbench/?tab=tasks&task=booking"],
    "tradeoffs": lambda: ["/b/appbench/tradeoffs/", "/b/artb/tradeoffs/"],
    "agent": lambda: ["/agents/nimbus/"],
    "compare-without-agents": lambda: ["/b/appbench/compare/"],
    "task": lambda: ["/b/appbench/tasks/booking/", "/b/appbench/tasks/messenger/", "/b/artb/tasks/cart-checkout/"],
    "run": lambda: ["/b/artb/r/2026-r1/runs/artb-r1-harbor-cart-checkout/", CHECKS_RUN, *_one_run_per_benchmark()],
    "methodology": _methodologies,
    "changelog": lambda: ["/b/artb/r/2026-r1/changelog/"],
    "not-found": lambda: ["/b/artb/r/2026-r3/"],
    "bad-request": lambda: ["/b/artb/?tab=%00"],
    "accounts": lambda: ["/signup/", "/signin/", "/signout/"],
    "api-docs": lambda: ["/api/docs"],
}
# What each page must show, so a page that quietly stopped rendering its content fails too.
SHOWS = {
    CHECKS_RUN: "Every check",
    "/b/appbench/tasks/messenger/": "Reinvent a messenger",
    "/b/artb/r/2026-r3/": "This page does not exist",
    "/b/artb/?tab=%00": "Bad request",
    "/signout/": "You are signed out",
}


def test_every_public_page_kind_is_accessible(transactional_db, browser, live_server, monkeypatch):
    from pages import selectors

    _demo()
    page = browser.new_page(viewport=DESKTOP)
    found = []

    # The server's error page: the home page's read fails (before any visit, so nothing is cached yet).
    def fail(*args, **kwargs):
        raise RuntimeError("the database went away")

    with monkeypatch.context() as m:
        m.setattr(selectors, "home_page", fail)
        response = page.goto(live_server.url + "/")
        assert response.status == 500 and "Something went wrong" in page.inner_text("main")
        found += [f"500 page: {line}" for line in violations(page)]

    for kind in PAGES:  # every page is checked before failing, so one run lists all violations
        paths = PAGES[kind]()
        assert paths, kind
        for path in paths:
            page.goto(live_server.url + path)
            page.wait_for_load_state("networkidle")
            if path in SHOWS:
                assert SHOWS[path].lower() in page.inner_text("body").lower(), path
            found += [f"{path}: {line}" for line in violations(page)]
    page.close()
    assert not found, "WCAG 2.x A/AA violations:\n" + "\n".join(found)


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


def _sign_in(page, base: str, email: str, next_path: str) -> None:
    page.goto(f"{base}/signin/?next={next_path}")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"**{next_path}")


def _pair_on_screen(page) -> None:
    """Both apps of the pair live, loaded and settled (vote.js marks a settled frame)."""
    page.locator("#vote-stage").get_by_role("button", name="Tie").wait_for()
    for letter in "AB":
        page.frame_locator(f'iframe[title="App {letter}, live"]').get_by_label("Your name").wait_for()
    expect(page.locator("#vote-stage iframe.live[data-settled]")).to_have_count(2)
    page.wait_for_load_state("networkidle")


def _full_screen_is_accessible(page) -> None:
    toggle = page.locator("#vote-stage article").nth(0).get_by_role("button", name="Open full screen")
    toggle.click()
    expect(page.locator("#live-A")).to_have_css("position", "fixed")
    assert_accessible(page)  # one app fills the window, its "Close full screen" button above it
    page.get_by_role("button", name="Close full screen").click()
    expect(page.locator("#live-A")).not_to_have_css("position", "fixed")


def _expire_open_pairs(user) -> None:
    from django.utils import timezone

    from voting.models import Matchup

    assert Matchup.objects.filter(voter=user, used_at=None).update(expires_at=timezone.now() - timedelta(seconds=1))


def test_the_vote_screen_in_every_state_is_accessible(transactional_db, browser, live_server, settings):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from voting.models import Matchup

    _appbench()
    base = live_server.url
    voter = get_user_model().objects.create_user(username="reader@example.com", email="reader@example.com")
    voter.set_password(PASSWORD)
    voter.save()
    page = browser.new_page(viewport=DESKTOP)

    page.goto(f"{base}/signin/?next=/vote/")
    page.get_by_label("Email").fill("reader@example.com")
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("main")).to_contain_text("do not match an account")
    assert_accessible(page)
    _sign_in(page, base, "reader@example.com", "/vote/")

    _pair_on_screen(page)
    assert_accessible(page)  # a blind pair, the apps in their frames
    _full_screen_is_accessible(page)

    # The same pair on a phone: the apps stacked, one above the other.
    phone_context = browser.new_context(
        storage_state=page.context.storage_state(), viewport=PHONE, is_mobile=True, has_touch=True
    )
    phone = phone_context.new_page()
    phone.goto(f"{base}/vote/")
    _pair_on_screen(phone)
    a, b = (phone.locator("#vote-stage article").nth(i).bounding_box() for i in (0, 1))
    assert b["y"] >= a["y"] + a["height"] and b["x"] == a["x"]
    assert_accessible(phone)
    _full_screen_is_accessible(phone)
    phone_context.close()

    stage = page.locator("#vote-stage")
    use_both_apps(page)
    stage.get_by_role("button", name="Tie").click()
    page.get_by_role("link", name="Next pair").wait_for()
    assert_accessible(page)  # the reveal, in place
    voted = Matchup.objects.get(voter=voter, used_at__isnull=False)
    page.goto(f"{base}/vote/r/{voted.key}/")
    expect(page.locator("#vote-stage")).to_contain_text("You voted")
    assert_accessible(page)  # the reveal as its own page

    page.goto(f"{base}/vote/?scope=artb")  # a benchmark without apps to vote on
    expect(stage.get_by_role("heading", name="No pair to show")).to_be_visible()
    assert_accessible(page)

    response = page.goto(f"{base}/vote/r/{'x' * 40}/")  # no vote of this voter on such a pair
    assert response.status == 400
    expect(page.get_by_role("heading", name="Pair not available")).to_be_visible()
    assert_accessible(page)

    page.goto(f"{base}/vote/")  # the next pair, drawn with the vote
    _pair_on_screen(page)
    _expire_open_pairs(voter)
    use_both_apps(page)
    stage.get_by_role("button", name="A is better").click()
    expect(stage.get_by_role("heading", name="Pair expired")).to_be_visible()  # 410, shown in place
    assert_accessible(page)

    page.goto(f"{base}/vote/")
    _pair_on_screen(page)
    settings.VOTE_RATE_LIMIT = 0
    use_both_apps(page)
    stage.get_by_role("button", name="B is better").click()
    expect(stage.get_by_role("heading", name="Too many votes for now")).to_be_visible()  # 429, in place
    assert_accessible(page)
    settings.VOTE_RATE_LIMIT = 30

    settings.VOTE_DRAW_RATE_LIMIT = 0
    response = page.goto(f"{base}/vote/?scope=appbench")  # a new draw: no open pair for this choice
    assert response.status == 429
    expect(page.get_by_role("heading", name="Too many new pairs for now")).to_be_visible()
    assert_accessible(page)
    settings.VOTE_DRAW_RATE_LIMIT = 120

    page.goto(f"{base}/signout/")
    expect(page.locator("main").get_by_role("button", name="Sign out")).to_be_visible()
    assert_accessible(page)
    page.close()

    # Without htmx (it failed to load) a vote is a plain form post, and a refusal is a page of its own (410).
    # (Not a context with JavaScript off: axe itself runs as a script in the page.)
    no_htmx = browser.new_context(viewport=DESKTOP)
    page = no_htmx.new_page()
    page.route("**/htmx*.js", lambda route: route.abort())
    _sign_in(page, base, "reader@example.com", "/vote/")
    page.locator("#vote-stage").get_by_role("button", name="A is better").wait_for()
    unused = Matchup.objects.get(voter=voter, used_at=None, expires_at__gt=timezone.now())
    _expire_open_pairs(voter)
    use_both_apps(page)
    page.locator("#vote-stage").get_by_role("button", name="A is better").click()
    expect(page.get_by_role("heading", name="Pair expired")).to_be_visible()
    assert page.evaluate("() => typeof htmx") == "undefined" and page.url.endswith(f"/vote/m/{unused.key}/")
    assert_accessible(page)
    no_htmx.close()


def test_the_vendor_preview_and_a_dispute_are_accessible(transactional_db, browser, live_server):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.utils import timezone

    from leaderboard.models import Agent, Membership, Round
    from runs.models import Dispute

    _demo()
    base = live_server.url
    # The demo's third ARTB round, in its vendors' 48 hours; a user of Harborline Systems (the harbor agent).
    Round.objects.filter(benchmark__slug="artb", key="2026-r3").update(
        status="preview", preview_started_at=timezone.now()
    )
    org = Agent.objects.get(slug="harbor").organization
    vendor = get_user_model().objects.create_user(username="vendor@example.com", email="vendor@example.com")
    vendor.set_password(PASSWORD)
    vendor.save()
    vendor.groups.add(Group.objects.get_or_create(name="Vendors")[0])
    Membership.objects.create(user=vendor, organization=org)

    page = browser.new_page(viewport=DESKTOP)
    _sign_in(page, base, "vendor@example.com", "/preview/")
    expect(page.get_by_role("heading", level=1)).to_contain_text(org.name)
    assert_accessible(page)
    page.get_by_role("link", name="Agent Real-Task Bench · Round 3 · December 2026").click()
    page.wait_for_url("**/preview/artb/2026-r3/")
    expect(page.locator(".preview-runs tbody tr").first).to_be_visible()
    assert_accessible(page)
    page.get_by_role("link", name="Dispute this run").first.click()
    page.wait_for_url("**/dispute/")
    assert_accessible(page)  # the blank form
    page.get_by_role("button", name="File the dispute").click()
    expect(page.locator("main")).to_contain_text("This field is required")
    assert_accessible(page)  # the form with its errors
    page.get_by_role("radio").first.check()
    page.get_by_label("Note").fill("The run used the previous release; the round pins 4.2.")
    page.get_by_role("button", name="File the dispute").click()
    page.wait_for_url("**/preview/artb/2026-r3/")
    expect(page.get_by_role("status")).to_contain_text("was filed")
    assert Dispute.objects.filter(filed_by=vendor).count() == 1
    assert_accessible(page)  # the round again, the dispute listed and the confirmation shown
    page.close()


def test_the_check_catches_a_violation(browser):
    """The check is not blind: an image without a text alternative and a link inside a button are reported, and
    so is a WCAG 2.2 rule (a control smaller than 24 by 24 pixels with another right next to it)."""
    page = browser.new_page()
    page.set_content(
        '<html lang="en"><title>t</title><main><img src="x.png"><button><a href="/">go</a></button>'
        '<p><button style="width:10px;height:10px;padding:0;border:0">a</button>'
        '<button style="width:10px;height:10px;padding:0;border:0">b</button></p></main>'
    )
    found = "\n".join(violations(page))
    assert "image-alt" in found and "nested-interactive" in found and "target-size" in found
    with pytest.raises(AssertionError, match="image-alt"):
        assert_accessible(page)
    page.close()
