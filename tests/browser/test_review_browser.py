"""In a real browser: a tester, a second reviewer who disagrees and a third reviewer enter their outcomes
through the admin; an editor publishes the round with the admin action; the public run page shows all three
verdicts."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import Round
from runs.models import Run
from runs.services import verdict_record
from tests.builders.review import BENCH, ROUND, make_user, make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-browser-test-password"


def sign_in(browser, live_server, username):
    page = browser.new_context().new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    return page


def review(page, live_server, role: str, outcome: str, note: str) -> None:
    page.goto(f"{live_server.url}/admin/runs/run/queue/")
    page.click('tr[data-run="acme-trip"] a:has-text("Review as")')
    assert page.input_value("#id_role") == role
    page.select_option("#id_outcome", outcome)
    page.fill("#id_note", note)
    page.click('input[name="_save"]')
    page.wait_for_url(f"{live_server.url}/admin/runs/run/queue/")
    assert "Recorded the" in page.content()


def test_three_reviewers_then_publication_then_the_public_run_page(live_server, browser, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    world = make_world(preview_started_at=None)
    Round.objects.filter(pk=world["round"].pk).update(
        status="preview", preview_started_at=timezone.now() - timedelta(hours=49)
    )
    people = {
        name: make_user(name, group, password=PASSWORD)
        for name, group in (("tess", "Testers"), ("sam", "Reviewers"), ("thea", "Reviewers"), ("edna", "Editors"))
    }
    for key in ("acme-inbox", "other-trip", "acme-remind"):  # the rest of the round is reviewed already
        run = Run.objects.get(key=key)
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", note="seen", reviewer=people["tess"], outcome="pass", now=now)
        verdict_record(run=run, role="second", reviewer=people["sam"], outcome="pass", now=now)

    review(sign_in(browser, live_server, "tess"), live_server, "tester", "pass", "Tester: itinerary complete.")
    second = sign_in(browser, live_server, "sam")
    second.goto(f"{live_server.url}/admin/runs/run/{world['acme-trip'].pk}/change/")
    assert "Tester: itinerary complete." not in second.content()  # blind
    review(second, live_server, "second", "fail", "Second: the dates are wrong.")
    third = sign_in(browser, live_server, "thea")
    third.goto(f"{live_server.url}/admin/runs/run/{world['acme-trip'].pk}/change/")
    assert "Tester: itinerary complete." in third.content() and "Second: the dates are wrong." in third.content()
    review(third, live_server, "third", "partial", "Third: usable, one date wrong.")
    assert Run.objects.get(key="acme-trip").outcome == "partial"
    # Every run is decided now, so the vendors' 48 hours start; let them pass.
    Round.objects.filter(pk=world["round"].pk).update(preview_started_at=timezone.now() - timedelta(hours=49))

    editor = sign_in(browser, live_server, "edna")
    editor.goto(f"{live_server.url}/admin/leaderboard/round/")
    editor.check(f'input[name="_selected_action"][value="{world["round"].pk}"]')
    editor.select_option('select[name="action"]', "publish")
    editor.click('button[name="index"]')
    # The action asks first, naming what becomes public; nothing is published until the editor confirms.
    asked = editor.locator("#publish-confirmation")
    asked.wait_for()
    assert "round parameter value" in asked.inner_text() and "reviewer verdict" in asked.inner_text()
    assert Round.objects.get(pk=world["round"].pk).status == "preview"
    editor.get_by_role("button", name="Yes, publish 1 round").click()
    editor.wait_for_load_state()
    assert "is published" in editor.content()
    assert Round.objects.get(pk=world["round"].pk).status == "published"

    public = browser.new_context().new_page()
    public.goto(f"{live_server.url}/b/{BENCH}/r/{ROUND}/runs/acme-trip/")
    text = public.inner_text("body")
    for expected in ("Tester: itinerary complete.", "Second: the dates are wrong.", "Third: usable, one date wrong."):
        assert expected in text
    assert "Third reviewer" in text or "third reviewer" in text
