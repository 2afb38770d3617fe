"""A task's evidence list, stored on the task and read against each run. 000 §2: "The full run is screen-recorded.
Task-specific evidence (inbox screenshots, baselines, call audio) is captured as listed in the task's evidence
field." The task page and the API give the list; each run page, and the API's run, say which listed items the run
lacks."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from bundles.importer import bundle_import
from runs.models import Run
from scoring.task_evidence import checklist, lacking
from tests.builders.site import outcomes_bundle

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limit")]

LISTED = ["recording", "screenshot of the final answer", "tester's fare baseline"]


@pytest.fixture
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0


def _text(page: bytes) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page.decode())))


def _bundle() -> dict:
    """The flights task lists three items. Ayla's run has a recording (kind "recording", captioned "full
    recording") and a screenshot captioned "Screenshot of the  final answer" (case and spacing aside, the second
    item): it lacks the third, the tester's fare baseline. Bram's re-run has no evidence at all: it lacks all three.
    """
    doc = outcomes_bundle()
    doc["tasks"][0]["evidence"] = LISTED
    ayla = next(r for r in doc["runs"] if r["id"] == "ayla-flights")
    ayla["evidence"].append(
        {"kind": "screenshot", "url": "https://media.example.org/a.png", "caption": "Screenshot of the  final answer"}
    )
    return doc


def test_the_task_page_and_the_api_give_the_tasks_evidence_list(load, client):
    load(_bundle())
    page = client.get("/b/obench/tasks/flights/").content
    listed = re.search(rb'<ul class="evidence" id="task-evidence">(.*?)</ul>', page, re.S).group(1)
    assert re.findall(r"<li>(.*?)</li>", unescape(listed.decode())) == LISTED
    assert client.get("/api/benchmarks/obench/tasks/flights").json()["evidence"] == LISTED
    # A task that lists nothing answers an empty list, and its page has no such section.
    assert client.get("/api/benchmarks/obench/tasks/email").json()["evidence"] == []
    assert b'id="task-evidence"' not in client.get("/b/obench/tasks/email/").content


def test_each_run_page_and_the_api_say_which_listed_evidence_the_run_lacks(load, client):
    load(_bundle())
    ayla = _text(client.get("/b/obench/r/r1/runs/ayla-flights/").content)
    # 3 listed - 2 held (the recording by its kind, the screenshot by its caption) = 1 lacking.
    assert "This run lacks 1 of the 3 items its task lists: tester's fare baseline." in ayla
    assert "missing tester's fare baseline" in ayla and "here screenshot of the final answer" in ayla
    assert "here recording" in ayla
    run = client.get("/api/benchmarks/obench/runs/r1/ayla-flights").json()
    assert run["evidence_lacking"] == ["tester's fare baseline"]
    # The re-run has no evidence: all 3 lacking, in the list's order.
    rerun = client.get("/api/benchmarks/obench/runs/r1/bram-flights-rerun").json()
    assert rerun["evidence_lacking"] == LISTED
    assert "This run lacks 3 of the 3 items its task lists" in _text(
        client.get("/b/obench/r/r1/runs/bram-flights-rerun/").content
    )
    # A run of a task that lists nothing has nothing to lack, and its page says nothing of it.
    assert client.get("/api/benchmarks/obench/runs/r1/ayla-email").json()["evidence_lacking"] == []
    assert "items its task lists" not in _text(client.get("/b/obench/r/r1/runs/ayla-email/").content)


def test_a_run_that_never_ran_the_task_lacks_nothing():
    held = [("screenshot", "service not available in the test region")]
    assert checklist(LISTED, "region_blocked", held) is None
    assert lacking(LISTED, "unsupported", []) == []
    # A run that reached the time limit ran: what it lacks is listed.
    assert lacking(LISTED, "timeout", held) == LISTED


def test_a_kind_named_alone_is_held_by_evidence_of_that_kind_and_other_items_by_caption_only():
    # "recording" is a kind: any recording holds it. "screenshot of the final answer" is not: a screenshot captioned
    # otherwise ("final state") does not hold it.
    held = [("recording", "full screen recording"), ("screenshot", "final state")]
    assert lacking(LISTED, "completed", held) == ["screenshot of the final answer", "tester's fare baseline"]
    assert lacking(["call audio"], "completed", [("audio", "")]) == ["call audio"]
    assert lacking(["call audio"], "completed", [("audio", "Call audio")]) == []


def test_the_demo_runs_carry_what_their_tasks_list_but_one(client):
    """The demo's ARTB bundle: every run's evidence is captioned with its task's items, except Atlas Ops's hotel
    hold, which lacks "screenshot of the pre-payment page" of its three (recording, screenshot of the comparison,
    screenshot of the pre-payment page): 3 - 2 held = 1 lacking."""
    doc = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "artb.json").read_text())
    bundle_import(doc=doc)
    lacking_runs = {
        run.key: lacking(version.evidence, run.status, [(e.kind, e.caption) for e in run.evidence.all()])
        for run in Run.objects.filter(round__benchmark__slug="artb").select_related("task")
        for version in [run.task.versions.get(version=run.task_version)]
    }
    assert {k: v for k, v in lacking_runs.items() if v} == {
        "artb-r1-atlas-ops-hotel-hold": ["screenshot of the pre-payment page"]
    }
    page = _text(client.get("/b/artb/r/2026-r1/runs/artb-r1-atlas-ops-hotel-hold/").content)
    assert "This run lacks 1 of the 3 items its task lists: screenshot of the pre-payment page." in page
