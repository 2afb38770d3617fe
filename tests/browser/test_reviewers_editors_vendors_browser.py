"""Issue #32 items 9-18 in Chromium, at 1280x900 and 390x844: a reviewer judges with the round's values and, as
the third, sees the two verdicts to decide between; an editor sees a draft round's board marked "not public",
corrects a published verdict after seeing its effect, is asked before runs are deleted; a vendor finds the
preview from the navigation and sees what each agent was tested with. The site's own pages keep axe-core at 0
violations; on the Django admin's pages the sections these templates add are checked (the admin's own markup
is Django's)."""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import Group, User
from django.utils import timezone
from playwright.sync_api import expect

from leaderboard.models import Membership, Organization, Round
from recompute.boards import snapshot_recompute
from runs.models import Evidence, Run, Verdict
from runs.services import round_enter_preview, round_publish, verdict_record
from snapshots.models import BoardSnapshot
from tests.browser.a11y import OPTIONS, assert_accessible
from tests.browser.conftest import SIZES
from tests.builders.review import BENCH, ROUND, SECRET_CITY, TESTER_NOTE, make_user, make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-browser-test-password"
SECOND_NOTE = "Second: the dates in the itinerary are wrong."


def _recompute():
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)


def _admin_sections_accessible(page, selectors: list[str]) -> None:
    """axe over the sections our admin templates add (the rest of the page is Django's admin)."""
    present = [s for s in selectors if page.locator(s).count()]
    assert present, selectors
    found = Axe().run(page, context={"include": [[s] for s in present]}, options=OPTIONS).response["violations"]
    assert not found, [f"{v['id']}: {v['help']}" for v in found]


def _sign_in_admin(browser, live_server, username, size):
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    return page


@pytest.fixture
def people(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return {
        name: make_user(name, group, password=PASSWORD)
        for name, group in (("tess", "Testers"), ("sam", "Reviewers"), ("thea", "Reviewers"), ("edna", "Editors"))
    }


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_reviewers_judge_with_the_facts_and_the_third_sees_both_verdicts(live_server, browser, people, size):
    world = make_world()
    run = world["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=people["tess"], outcome="pass", note=TESTER_NOTE)

    second = _sign_in_admin(browser, live_server, "sam", size)
    second.goto(f"{live_server.url}/admin/runs/verdict/add/?run={run.pk}&role=second")
    expect(second.locator("#review-prompt")).to_contain_text(f"Plan a weekend in {SECRET_CITY}")
    expect(second.locator("#review-parameters")).to_contain_text("Private until the round is published")
    assert TESTER_NOTE not in second.content() and second.locator("#earlier-verdicts").count() == 0
    _admin_sections_accessible(second, ["#review-run"])
    # With REVIEW_SCREENSHOTS_DIR set (`REVIEW_SCREENSHOTS_DIR=docs make test PYTEST_ARGS="-k judge_with"`), the
    # form as the reviewer sees it, for docs/review-form-{desktop,phone}.png.
    if os.environ.get("REVIEW_SCREENSHOTS_DIR"):
        second.screenshot(path=str(Path(os.environ["REVIEW_SCREENSHOTS_DIR"]) / f"review-form-{size}.png"))
    # One outcome control, the second reviewer's role only, and no reason asked on a draft round's run.
    assert second.locator('input[name="matched"]').count() == 0 and second.locator("#id_reason").count() == 0
    roles = second.locator("#id_role option").evaluate_all("os => os.map(o => o.value).filter(Boolean)")
    assert roles == ["second"]
    second.fill("#id_note", SECOND_NOTE)
    second.select_option("#id_outcome", "fail")
    second.click('input[name="_save"]')
    second.wait_for_url(f"{live_server.url}/admin/runs/run/queue/")
    assert Verdict.objects.get(run=run, role="second").outcome == "fail"

    third = _sign_in_admin(browser, live_server, "thea", size)
    third.goto(f"{live_server.url}/admin/runs/verdict/add/?run={run.pk}&role=third")
    both = third.locator("#earlier-verdicts")
    expect(both).to_contain_text(TESTER_NOTE)
    expect(both).to_contain_text(SECOND_NOTE)
    expect(both).to_contain_text("Tester")
    _admin_sections_accessible(third, ["#review-run", "#earlier-verdicts"])
    box = both.bounding_box()
    assert box is not None and box["width"] <= SIZES[size]["width"]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_editor_sees_the_draft_board_corrects_with_its_effect_and_is_asked_before_deleting(
    live_server, browser, people, size
):
    world = make_world()
    _recompute()
    editor = _sign_in_admin(browser, live_server, "edna", size)
    # The draft round's board at its public address, marked; the public gets 404.
    editor.goto(f"{live_server.url}/b/{BENCH}/r/{ROUND}/")
    expect(editor.locator(".not-public")).to_contain_text("Not public.")
    assert_accessible(editor)
    anonymous = browser.new_context(viewport=SIZES[size]).new_page()
    assert anonymous.goto(f"{live_server.url}/b/{BENCH}/r/{ROUND}/").status == 404

    # Deleting runs asks first and says what goes with them.
    run = world["other-trip"]
    verdict_record(run=run, role="tester", reviewer=people["tess"], outcome="pass", note="seen")
    editor.goto(f"{live_server.url}/admin/runs/run/")
    editor.check(f'input[name="_selected_action"][value="{run.pk}"]')
    editor.select_option('select[name="action"]', "delete_selected")
    editor.click('button[name="index"]')
    expect(editor.locator("#content")).to_contain_text("Are you sure")
    expect(editor.locator("#content")).to_contain_text("Verdicts: 1")
    assert Run.objects.filter(pk=run.pk).exists()
    editor.click('input[type="submit"]')
    expect(editor.locator(".messagelist")).to_contain_text("Deleted 1 runs.")
    assert not Run.objects.filter(pk=run.pk).exists()

    # Publish, then correct a verdict: the effect first, then the reason, then the run page says so.
    for r in Run.objects.filter(round=world["round"]):
        now = (r.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=r, role="tester", reviewer=people["tess"], outcome="pass", note="as seen", now=now)
        verdict_record(run=r, role="second", reviewer=people["sam"], outcome="pass", now=now)
    round_enter_preview(round=world["round"], by=people["edna"], now=timezone.now() - timedelta(hours=49))
    round_publish(round=Round.objects.get(pk=world["round"].pk), by=people["edna"])
    _recompute()
    verdict = Verdict.objects.get(run=world["acme-trip"], role="tester")
    editor.goto(f"{live_server.url}/admin/runs/verdict/{verdict.pk}/change/")
    editor.select_option("#id_outcome", "fail")
    editor.click('input[name="_save"]')
    effect = editor.locator("#correction-effect")
    expect(effect).to_contain_text("Trip plan pass → in review")
    expect(effect.locator("#correction-review")).to_contain_text("goes back to review until a third reviewer decides")
    _admin_sections_accessible(editor, ["#correction-effect"])
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass"
    editor.fill("#id_reason", "The recording shows no itinerary.")
    editor.click('input[name="_save"]')
    editor.wait_for_url(f"{live_server.url}/admin/runs/verdict/")
    assert Verdict.objects.get(pk=verdict.pk).outcome == "fail"
    editor.goto(f"{live_server.url}/b/{BENCH}/r/{ROUND}/runs/acme-trip/")
    expect(editor.locator(".correction")).to_contain_text("The recording shows no itinerary.")
    expect(editor.locator(".run-marks")).to_contain_text("does not count: in review")
    expect(editor.locator(".run-marks")).not_to_contain_text("counts in the rankings")
    assert_accessible(editor)
    if size == "phone":
        wide = editor.evaluate(
            "w => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1)"
            ".map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8)",
            SIZES[size]["width"],
        )
        assert editor.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"], wide


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_vendor_finds_the_preview_and_sees_what_each_agent_was_tested_with(live_server, browser, people, size):
    world = make_world()
    for r in Run.objects.filter(round=world["round"]):
        now = (r.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=r, role="tester", reviewer=people["tess"], outcome="pass", note="as seen", now=now)
        verdict_record(run=r, role="second", reviewer=people["sam"], outcome="pass", now=now)
    Evidence.objects.create(
        run=world["acme-trip"], kind="recording", url="https://evidence.example.org/trip.mp4", caption="Recording"
    )
    round_enter_preview(round=world["round"], by=people["edna"])
    # Site accounts sign in by email, and their username is that email (voting.views.accounts).
    vendor = User.objects.create_user("vera@example.com", "vera@example.com", PASSWORD)
    vendor.groups.add(Group.objects.get(name="Vendors"))
    Membership.objects.create(user=vendor, organization=Organization.objects.get(name="Acme"))
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(f"{live_server.url}/signin/?next=/")
    page.get_by_label("Email").fill(vendor.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server.url}/")
    page.get_by_role("link", name="Preview").click()
    page.wait_for_url("**/preview/")
    assert_accessible(page)
    page.get_by_role("link", name="ARTB test · Round 1").click()
    page.wait_for_url(f"**/preview/{BENCH}/{ROUND}/")
    tested = page.locator("#entry-acme-agent .tested-with")
    expect(tested).to_contain_text("Version")
    expect(tested).to_contain_text("1.2")
    expect(tested).to_contain_text("Region")
    expect(tested).to_contain_text("Network")
    expect(page.get_by_role("link", name="Recording")).to_have_attribute(
        "href", "https://evidence.example.org/trip.mp4"
    )
    assert "Other Agent" not in page.content()
    assert_accessible(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
