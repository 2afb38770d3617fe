"""A new team member's way in, in Chromium, from a new account to a submission on the board: "Submit results"
on the τ² board says to sign up and ask to join; the member signs up, confirms the address from the mailed
link, asks to join NVIDIA; an editor approves in the admin (the organization is made then); the member submits
the ToolOrchestra folder (zipped) through the upload form as a new agent named "ToolOrchestra", lands on its
page, and finds it on the board under that name, by NVIDIA. axe-core finds nothing on the member's pages.
Screenshots for docs/submissions.md go to docs/ (join-*.png, submit-*.png)."""

from __future__ import annotations

import re
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command

from leaderboard.models import JoinRequest, Membership
from submissions.models import Submission
from tests.browser.a11y import assert_accessible
from tests.builders.review import make_user
from tests.builders.tau2 import TAU2, TOOLORCHESTRA

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PASSWORD = "quince-harbour-42-lamp"
MEMBER = "shizhe@nvidia.example"


def _tau2() -> None:
    """τ²-bench today (2026-03-18) and as first released (2025-06-10, the set ToolOrchestra ran); its community
    track takes both (tests/submissions/conftest.py, `tau2_releases`)."""
    for version, suffix in (("2026-03-18", ""), ("2025-06-10", "-2025-06-10")):
        for domain in ("airline", "retail"):
            path = TAU2 / "tasks" / f"{domain}{suffix}.json"
            call_command(
                "import_tau2_tasks", str(path), benchmark="tau2", domain=domain, version=version, title="τ²-bench"
            )
    call_command(
        "open_submission_track",
        benchmark="tau2",
        task_set_versions="2025-06-10",
        formats="tau2,bundle,inspect",
        stdout=StringIO(),
    )


def _zipped(folder: Path, to: Path) -> Path:
    with zipfile.ZipFile(to, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(folder.rglob("*.json")):
            z.write(path, str(path.relative_to(folder)))
    return to


def _fits_a_phone(page) -> None:
    """The page at a phone's width: nothing wider than the screen."""
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), page.url
    page.set_viewport_size(DESKTOP)


def _sign_up_and_ask_to_join(page, url: str) -> None:
    page.goto(url + "/b/tau2/")
    page.locator("header").get_by_role("link", name="Submit results").click()
    page.wait_for_url("**/b/tau2/submit/")
    assert "signed in as a member of the organization" in page.inner_text("#refusal-reason")
    assert_accessible(page)
    page.screenshot(path=str(DOCS / "submit-refused-signed-out.png"))
    _fits_a_phone(page)
    page.locator("main").get_by_role("link", name="Sign up").click()
    assert "first step to submitting your organization" in page.inner_text("main")
    page.get_by_label("Email").fill(MEMBER)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/join/")
    assert "Confirm your address first" in page.inner_text("main")
    (link,) = re.findall(r"https?://\S+/signup/confirm/\S+/", mail.outbox[-1].body)
    page.goto(link)
    assert "is confirmed" in page.content()
    page.goto(url + "/join/")
    assert "Confirm your address first" not in page.inner_text("main")
    page.get_by_label("Your organization").fill("NVIDIA")
    page.get_by_label("Who you are there").fill("I run our τ²-bench evaluations; Pavlo Molchanov can vouch for me.")
    page.get_by_role("button", name="Ask to join").click()
    page.get_by_role("heading", name="Your request waits for an editor").wait_for()
    assert_accessible(page)
    page.screenshot(path=str(DOCS / "join-request-sent.png"))
    _fits_a_phone(page)


def _editor_approves(browser, url: str) -> None:
    make_user("edna", "Editors", password=PASSWORD)
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{url}/admin/login/")
    page.fill("#id_username", "edna")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{url}/admin/")
    page.get_by_role("link", name="Join requests").click()
    row = page.locator("#result_list tbody tr", has_text=MEMBER)
    assert "new: NVIDIA" in row.inner_text()  # no organization of that name yet: approving makes it
    row.locator("input.action-select").check()
    page.select_option("select[name=action]", "approve")
    page.screenshot(path=str(DOCS / "join-approve-admin.png"))
    page.get_by_role("button", name="Run").click()
    page.get_by_text("Approved: 1 request(s)").wait_for()
    page.get_by_role("link", name="Accounts").click()
    assert "NVIDIA" in page.locator("#result_list tbody tr", has_text=MEMBER).inner_text()
    page.screenshot(path=str(DOCS / "join-users-admin.png"))
    page.close()


def test_a_new_member_joins_nvidia_and_submits_toolorchestra(browser, live_server, tmp_path):
    _tau2()
    page = browser.new_page(viewport=DESKTOP)
    _sign_up_and_ask_to_join(page, live_server.url)
    assert JoinRequest.objects.get().status == "pending"
    _editor_approves(browser, live_server.url)
    assert Membership.objects.get(user__username=MEMBER).organization.name == "NVIDIA"
    assert mail.outbox[-1].to == [MEMBER]

    page.goto(live_server.url + "/b/tau2/")
    page.get_by_role("link", name="Submit results").click()
    page.wait_for_url("**/b/tau2/submit/")
    page.get_by_label("New agent's name").fill("ToolOrchestra")
    page.get_by_label("τ²-bench submission").check()
    page.set_input_files("#id_file", str(_zipped(TOOLORCHESTRA, tmp_path / "toolorchestra.zip")))
    assert_accessible(page)
    page.screenshot(path=str(DOCS / "submit-form.png"))
    _fits_a_phone(page)
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url("**/b/tau2/submissions/*/", timeout=120_000)
    sub = Submission.objects.get()
    assert (sub.agent.name, sub.organization.name, sub.submitted_by.username) == ("ToolOrchestra", "NVIDIA", MEMBER)
    assert "received and checked" in page.inner_text(".messages")
    # airline 28/50 = 56.0% claimed 56.0: agrees (tests/submissions/test_upload_form_and_page.py counts it).
    assert "agrees" in page.locator("tr[data-figure='airline pass^1']").inner_text()
    assert_accessible(page)

    # Its runs went to the round of the task set they ran; there its one row is flagged (it declares a user
    # simulator its files did not run): the default view says so and links the views that show it.
    from tests.site.conftest import compute_all

    compute_all()
    assert sub.round.key == "community-2025-06-10"
    page.goto(f"{live_server.url}/b/tau2/r/{sub.round.key}/")
    empty = page.locator("#board-region p.empty")
    assert "1 agent on this round is flagged" in empty.inner_text()
    page.screenshot(path=str(DOCS / "board-all-rows-hidden.png"))
    empty.get_by_role("link", name="Flagged").click()
    page.wait_for_url("**tier=flagged")
    agent = page.locator("#board-region table.board tbody tr th.col-agent")
    agent.first.wait_for()
    assert agent.inner_text().splitlines()[0].strip().removesuffix("not as declared").strip() == "ToolOrchestra"
    assert "by NVIDIA" in agent.inner_text() and "ran model gpt-4.1-mini-2025-04-14" in agent.inner_text()
