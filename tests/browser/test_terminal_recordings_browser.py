"""A Terminal-Bench trial's terminal recording in Chromium: OpenHands' real submission taken in, one of its six
recordings (the oom task of its first run) plays on the run's page in asciinema's own player (vendored, served by
the site), seeks, and shows the trial's tests beside it; its text is found by the site's search; a trial whose
recording was referenced but not sent lists it as missing. Nothing the page loads is refused by its
Content-Security-Policy. Screenshot for docs/submissions.md: docs/terminal-recording.png."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from submissions.models import Submission
from tests.browser.a11y import assert_accessible
from tests.builders.tbench_world import OPENHANDS, sent_folder, tbench_benchmark

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOCS = Path(__file__).resolve().parents[2] / "docs"
DESKTOP = {"width": 1280, "height": 900}
SCREEN = "#run-player .ap-term"


def _screen(page) -> str:
    return page.locator(SCREEN).inner_text()


def test_an_openhands_recording_plays_seeks_and_shows_its_tests(browser, live_server, tmp_path):
    tbench_benchmark()
    folder = sent_folder(tmp_path, OPENHANDS)
    call_command(
        "import_submission", str(folder), benchmark="terminal-bench", organization="OpenHands", stdout=StringIO()
    )
    sub = Submission.objects.get()
    page = browser.new_page(viewport=DESKTOP)
    refused: list[str] = []
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: refused.append(str(e)))

    page.goto(f"{live_server.url}/b/terminal-bench/r/community/runs/s{sub.pk}-openhands-sonnet-oom-a1/")
    page.locator(SCREEN).wait_for()
    # The trial's one test, failed, beside the player.
    assert (
        page.locator(".cast-tests li[data-test='test_offline_model_load']").inner_text()
        == "failed test_offline_model_load"
    )
    # Seek to 14 s: the agent's start had failed by 12.36 s ("No module named 'openhands'"); at 2 s it had not.
    page.evaluate("document.getElementById('run-player').player.seek(14)")
    expect(page.locator(SCREEN)).to_contain_text("No module named 'openhands'")
    page.evaluate("document.getElementById('run-player').player.seek(2)")
    expect(page.locator(SCREEN)).not_to_contain_text("No module named")
    assert "install-agent.sh" in _screen(page)
    # Played from there with its own button, the time goes on.
    clock = "document.getElementById('run-player').player.getCurrentTime()"
    before = page.evaluate(clock)
    page.locator("#run-player .ap-playback-button").click()
    page.wait_for_timeout(1500)
    assert page.evaluate(clock) > before + 0.5
    assert refused == [], refused
    assert_accessible(page)
    page.locator("section[aria-labelledby='evidence-title']").screenshot(path=str(DOCS / "terminal-recording.png"))

    # Opened at #t=14 (as a search or a mark links it): the player stands at that second.
    page.goto(f"{live_server.url}/b/terminal-bench/r/community/runs/s{sub.pk}-openhands-sonnet-oom-a1/#t=14")
    expect(page.locator(SCREEN)).to_contain_text("No module named 'openhands'")

    # The recording's text is found with the other transcripts, and links back to the trial.
    page.goto(f"{live_server.url}/b/terminal-bench/search/?q=INSTALL_SUCCESS")
    found = page.locator("main a[href*='openhands-sonnet-oom-a1']")
    assert found.count() >= 1

    # A trial whose recording was referenced and not sent: listed as missing, the page otherwise whole.
    page.goto(f"{live_server.url}/b/terminal-bench/r/community/runs/s{sub.pk}-openhands-sonnet-hello-world-a1/")
    missing = page.locator("#recording-missing").inner_text()
    assert "missing" in missing and "hello-world/hello-world.1-of-1.openhands-sonnet/sessions/agent.cast" in missing
    assert page.locator("#run-player").count() == 0
