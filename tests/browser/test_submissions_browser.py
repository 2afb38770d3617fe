"""The submissions in Chromium, as a reader and an editor meet them: the two real τ²-bench submissions on the
community round, the board filtered by tier, a submission's page with its checks and claims, an editor flagging
it from the page, and an editor verifying ToolOrchestra, re-filed as its runs were graded (`refiled`), whose runs
ran other models than it declares, with a note acknowledging that. axe-core finds nothing on these pages.
Screenshots for docs/submissions.md go to docs/ (submission-page.png, board-tier-filter.png,
submission-verified-as-ran.png)."""

from __future__ import annotations

import tempfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from leaderboard.models import Organization
from snapshots.models import BoardSnapshot
from submissions.models import Submission
from tests.browser.a11y import assert_accessible
from tests.builders.review import make_user
from tests.builders.tau2 import BUTTON, TAU2, TOOLORCHESTRA, refiled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs"
DESKTOP = {"width": 1280, "height": 900}
PASSWORD = "quince-harbour-42-lamp"


def _load() -> tuple[Submission, Submission]:
    from recompute.boards import snapshot_recompute

    for version, suffix in (("2026-03-18", ""), ("2025-06-10", "-2025-06-10")):
        for domain in ("airline", "retail"):
            path = str(TAU2 / "tasks" / f"{domain}{suffix}.json")
            call_command(
                "import_tau2_tasks",
                path,
                benchmark="tau2",
                domain=domain,
                version=version,
                title="τ²-bench",
                stdout=StringIO(),
            )
    call_command(
        "open_submission_track",
        benchmark="tau2",
        task_set_versions="2025-06-10",
        formats="tau2,bundle,inspect",
        stdout=StringIO(),
    )
    Organization.objects.create(slug="distyl-ai", name="Distyl AI")
    Organization.objects.create(slug="nvidia", name="NVIDIA")
    call_command("import_submission", str(BUTTON), benchmark="tau2", organization="distyl-ai", stdout=StringIO())
    button = Submission.objects.latest("id")
    # Its folder as its runs were graded (`refiled`): the real one files them under other tasks' ids, which no
    # editor may verify past; re-filed, only its declared models differ from what ran.
    folder = refiled(TOOLORCHESTRA, Path(tempfile.mkdtemp()))
    call_command("import_submission", str(folder), benchmark="tau2", organization="nvidia", stdout=StringIO())
    orchestra = Submission.objects.latest("id")
    for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)
    return button, orchestra


def test_a_reader_filters_the_board_by_tier_and_reads_a_submission(browser, live_server):
    button, orchestra = _load()
    page = browser.new_page(viewport=DESKTOP)
    # Both ran τ²-bench's first task set (2025-06-10): their runs are on that version's board. ToolOrchestra's
    # declared models are not the ones its files ran: flagged, so the default view shows Button only.
    page.goto(live_server.url + "/b/tau2/r/community-2025-06-10/")
    rows = page.locator("#board-region table.board tbody tr")
    assert rows.count() == 1 and page.locator("#board-region td[data-label='Tier']").inner_text() == "self-reported"
    page.locator(".tier-filter").get_by_role("link", name="Flagged").click()
    page.wait_for_url("**tier=flagged")
    rows.first.wait_for()
    assert rows.count() == 1
    assert page.locator("#board-region td[data-label='Tier']").all_inner_texts() == ["flagged"]
    assert_accessible(page)
    page.screenshot(path=str(DOCS / "board-tier-filter.png"))

    page.locator("#board-region td[data-label='Tier'] a").first.click()
    page.wait_for_url("**/submissions/*/")
    figures = page.locator("table.submission-figures")
    airline = figures.locator("tr[data-figure='airline pass^1']").inner_text()
    assert "agrees" in airline
    assert "not verifiable" in figures.locator("tr[data-figure='telecom pass^1']").inner_text()
    assert "passed" in page.locator("tr[data-check='task_versions']").inner_text()
    assert "failed" in page.locator("tr[data-check='declared_models']").inner_text()
    assert_accessible(page)
    page.goto(live_server.url + orchestra.get_absolute_url())
    page.screenshot(path=str(DOCS / "submission-page.png"), full_page=False)


def test_an_editor_flags_from_the_page_and_the_history_says_so(browser, live_server):
    button, _ = _load()
    editor = make_user("edna", "Editors", password=PASSWORD)
    page = browser.new_page(viewport=DESKTOP)
    _sign_in(page, live_server, editor)
    page.goto(live_server.url + button.get_absolute_url())
    page.fill("#flag-reason", "The airline trajectories repeat another team's")
    page.fill("#flag-link", "https://example.org/evidence")
    page.get_by_role("button", name="Flag").click()
    page.wait_for_url("**/submissions/*/")
    history = page.locator(".submission-history").inner_text()
    assert "flagged: The airline trajectories repeat another team's" in history
    assert "Flagged by an editor" in page.content()
    assert_accessible(page)


def _sign_in(page, live_server, user) -> None:
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")


def test_an_editor_verifies_toolorchestra_acknowledging_the_models_it_ran(browser, live_server):
    from recompute.boards import snapshot_recompute

    _, orchestra = _load()
    page = browser.new_page(viewport=DESKTOP)
    _sign_in(page, live_server, make_user("edna", "Editors", password=PASSWORD))
    page.goto(live_server.url + orchestra.get_absolute_url())
    # The browser itself holds the form back until the acknowledgment is written.
    page.fill("#verify-note", "Re-ran ten airline tasks from the trajectories' seeds: same rewards.")
    page.fill("#verify-link", "https://example.org/audit")
    page.get_by_role("button", name="Verify").click()
    assert page.locator("#verify-disclosure:invalid").count() == 1
    assert Submission.objects.get(pk=orchestra.pk).tier == "flagged"
    page.fill("#verify-disclosure", "Ran gpt-4.1-mini against a gpt-4.1 simulator, not the declared models.")
    page.get_by_role("button", name="Verify").click()
    page.wait_for_url("**/submissions/*/")
    assert Submission.objects.get(pk=orchestra.pk).tier == "verified"
    ran = page.locator("[data-as-ran]")
    assert "gpt-4.1-mini-2025-04-14" in ran.locator("tr[data-ran='model']").inner_text()
    assert "Acknowledged by the verifying editor" in ran.inner_text()
    assert_accessible(page)
    page.screenshot(path=str(DOCS / "submission-verified-as-ran.png"), full_page=False)
    for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)
    page.goto(live_server.url + "/b/tau2/r/community-2025-06-10/")
    row = page.locator(f"#board-region tr[data-agent='{orchestra.agent.slug}']")
    assert "verified" in row.locator("td[data-label='Tier']").inner_text()
    assert "ran model gpt-4.1-mini-2025-04-14" in row.inner_text() and "not as declared" in row.inner_text()
    assert_accessible(page)
