"""The blind-vote screen in a real browser (Debian's Chromium through Playwright) on the AppBench demo data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser.voting import use_both_apps

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "plum-orchard-77-kite"


@pytest.fixture
def demo(transactional_db, settings, tmp_path):
    from bundles.importer import bundle_import

    settings.MEDIA_ROOT = tmp_path / "media"
    doc = json.loads((ROOT / "fixtures" / "appbench.json").read_text())
    doc["votes"] = []  # the screen does not need the demo's votes; importing them only slows the set-up
    bundle_import(doc=doc, folder=ROOT / "fixtures")  # with the messenger apps next to the bundle
    return doc


def _names(doc) -> list[str]:
    return [a["name"] for a in doc["agents"]]


def _vote_and_check_reveal(page, button: str, names: list[str]) -> None:
    stage = page.locator("#vote-stage")
    stage.get_by_role("button", name=button).wait_for()
    use_both_apps(page)
    before = stage.inner_text()
    assert not [n for n in names if n in before], "a name was shown before the vote"
    assert page.locator("#vote-stage .side-letter").all_inner_texts() == ["A", "B"]
    stage.get_by_role("button", name=button).click()
    page.get_by_role("link", name="Next pair").wait_for()
    after = stage.inner_text()
    assert len([n for n in names if n in after]) == 2, after
    assert "You voted" in after and button in after


def test_sign_up_sign_in_vote_three_ways_and_sign_out(live_server, demo, browser, settings):
    from django.contrib.auth import get_user_model

    from voting.models import Vote

    names = _names(demo)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    page.goto(f"{live_server.url}/signup/")
    page.get_by_label("Email").fill("voter@example.com")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("link", name="Sign in").first.click()
    page.get_by_label("Email").fill("voter@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Sign out").wait_for()

    page.get_by_role("link", name="Vote", exact=True).click()
    page.locator("#vote-stage").wait_for()
    assert "Your account is new" in page.content()
    page.wait_for_load_state("networkidle")
    _vote_and_check_reveal(page, "A is better", names)
    page.get_by_role("link", name="Next pair").click()
    _vote_and_check_reveal(page, "B is better", names)
    page.get_by_role("link", name="Next pair").click()
    page.locator("#vote-stage").get_by_role("button", name="Tie").wait_for()
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_load_state("networkidle")
    _vote_and_check_reveal(page, "Tie", names)

    user = get_user_model().objects.get(email="voter@example.com")
    assert list(Vote.objects.filter(voter=user).order_by("id").values_list("winner", flat=True)) == ["a", "b", "tie"]
    assert not Vote.objects.filter(voter=user, counts=True).exists()  # a new account: stored, not counted yet

    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("link", name="Sign in").first.wait_for()
    assert "voter@example.com" not in page.content()
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_a_vendors_user_is_never_shown_its_own_agent(live_server, demo, browser, settings):
    from django.contrib.auth import get_user_model

    from leaderboard.models import Agent, Membership
    from voting.models import Matchup

    settings.VOTE_RATE_LIMIT = 1000
    forge = Agent.objects.select_related("organization").get(slug="forge")
    user = get_user_model().objects.create_user(
        username="dev@anvil.example", email="dev@anvil.example", password=PASSWORD
    )
    Membership.objects.create(user=user, organization=forge.organization)

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/signin/?next=/vote/")
    page.get_by_label("Email").fill("dev@anvil.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    stage = page.locator("#vote-stage")
    shown: set[str] = set()
    for _ in range(30):
        use_both_apps(page)
        stage.get_by_role("button", name="Tie").click()
        page.get_by_role("link", name="Next pair").wait_for()
        text = stage.inner_text()
        assert forge.name not in text and forge.organization.name not in text
        shown |= {n for n in _names(demo) if n in text}
        page.get_by_role("link", name="Next pair").click()
        stage.get_by_role("button", name="Tie").wait_for()
    assert forge.name not in shown and len(shown) >= 4
    assert not Matchup.objects.filter(voter=user, run_a__entry__agent=forge).exists()
    assert not Matchup.objects.filter(voter=user, run_b__entry__agent=forge).exists()
