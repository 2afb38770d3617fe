"""Small walls, in Chromium at 1280x900: an editor finds a submission's Verify and Flag forms near the top of its
page (they stood at y≈9,690 of 10,760, below 164 runs) and reads its runs in their natural order (airline-2
before airline-10); a τ² run page describes τ²-bench's reward (not "the share of tests passed" with "no test
result") and says which task set its task version is of, and that it is not the current one; an editor's
correction shows its effect as the correction's next step, without the admin's red "Please correct the errors
below." (publishing asking first is walked in `test_review_browser.py`)."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import expect

from runs.models import Run, Verdict
from runs.services import round_enter_preview, round_publish, verdict_record
from tests.browser.conftest import SIZES
from tests.browser.tau2_site import ROUND, load_tau2
from tests.builders.review import make_user, make_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "a-browser-test-password"


def _editor(browser, live_server):
    make_user("edna", "Editors", password=PASSWORD)
    page = browser.new_context(viewport=SIZES["desktop"]).new_page()
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "edna")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    return page


def _task_number(task: str) -> tuple[str, int]:
    family, number = task.rsplit("-", 1)
    return family, int(number)


def test_a_submissions_actions_are_near_its_top_and_its_runs_in_natural_order(live_server, browser):
    _, orchestra = load_tau2()
    page = _editor(browser, live_server)
    page.goto(f"{live_server.url}/b/tau2/submissions/{orchestra.pk}/")
    verify = page.get_by_role("group", name="Verify (reproduced or audited)")
    flag = page.get_by_role("group", name="Flag")
    # Both forms start in the first screen and a half, above the checks, the figures and the runs.
    for form in (verify, flag):
        box = form.bounding_box()
        assert box is not None and box["y"] < 1.5 * SIZES["desktop"]["height"], box
    checks = page.locator("#checks-title").bounding_box()
    runs = page.locator("#runs-title").bounding_box()
    assert checks is not None and runs is not None and verify.bounding_box()["y"] < checks["y"] < runs["y"]
    # The runs by task, numbers read as numbers: airline-0, airline-1, airline-2 ... airline-9, airline-10.
    tasks = page.locator("table.submission-runs tbody tr td:nth-child(2)").all_inner_texts()
    assert len(tasks) >= 11 and tasks == sorted(tasks, key=_task_number)
    assert tasks.index("airline-2") < tasks.index("airline-10")


def test_a_tau2_run_page_describes_the_reward_and_its_task_version(live_server, browser):
    button, _ = load_tau2()
    # airline-2 differs between τ²'s releases: the first release's (the round's task set, 2025-06-10) is the task's
    # version 2.0, today's (2026-03-18) its current version 1.0.
    run = Run.objects.get(round__key=ROUND, key=f"s{button.pk}-airline-2-t1")
    assert (run.task_version, run.task.version) == ("2.0", "1.0")
    page = browser.new_context(viewport=SIZES["desktop"]).new_page()
    page.goto(f"{live_server.url}/b/tau2/r/{ROUND}/runs/{run.key}/")
    parts = page.locator("#score-parts")
    expect(parts).to_contain_text("τ²-bench's own reward")
    expect(parts).not_to_contain_text("share of tests passed")
    expect(parts).not_to_contain_text("no test result")
    reward = page.locator("#tau2-reward")
    expect(reward).to_contain_text("DB")
    expect(reward).to_contain_text("COMMUNICATE")
    version = page.locator("#task-version")
    expect(version).to_have_text(
        re.compile(r"2\.0, as task set 2025-06-10 holds it\s+not the current version, 1\.0 \(task set 2026-03-18\)")
    )


def test_a_corrections_effect_is_shown_without_an_error_banner(live_server, browser):
    world = make_world()
    tess, sam = make_user("tess", "Testers"), make_user("sam", "Reviewers")
    for r in Run.objects.filter(round=world["round"]):
        now = (r.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=r, role="tester", reviewer=tess, outcome="pass", note="as seen", now=now)
        verdict_record(run=r, role="second", reviewer=sam, outcome="pass", now=now)
    page = _editor(browser, live_server)
    edna = User.objects.get(username="edna")
    round_enter_preview(round=world["round"], by=edna, now=timezone.now() - timedelta(hours=49))
    round_publish(round=world["round"], by=edna, now=timezone.now() + timedelta(days=3))
    verdict = Verdict.objects.get(run=world["acme-trip"], role="tester")
    page.goto(f"{live_server.url}/admin/runs/verdict/{verdict.pk}/change/")
    page.select_option("#id_outcome", "fail")
    page.click('input[name="_save"]')
    expect(page.locator("#correction-effect")).to_contain_text("Trip plan pass → in review")
    expect(page.locator(".errornote")).to_have_count(0)
    expect(page.locator(".errorlist")).to_have_count(0)
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass"
    # Saved again without the reason it asked for: that is an error now, and still nothing is saved.
    page.click('input[name="_save"]')
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator("#correction-effect")).to_be_visible()
    assert Verdict.objects.get(pk=verdict.pk).outcome == "pass"
    page.fill("#id_reason", "The recording shows no itinerary.")
    page.click('input[name="_save"]')
    page.wait_for_url(f"{live_server.url}/admin/runs/verdict/")
    assert Verdict.objects.get(pk=verdict.pk).outcome == "fail"
