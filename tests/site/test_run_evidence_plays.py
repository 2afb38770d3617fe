"""A run's recording plays where the reader is: a player on the run page for the recording the site stores, each
mark a control seeking it; AgentBench-Live run pages show how the score is reached and the judge's narrative as
text; marks are found by the site search. (The browser test, tests/browser/test_evidence_browser.py, plays it.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.files.base import ContentFile

from bundles.importer import bundle_import
from runs.models import Evidence, Run
from tests.builders.site import outcomes_bundle
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RECORDING = FIXTURES / "evidence" / "recording.webm"


def _marked_run(marks) -> Run:
    doc = outcomes_bundle(slug="mbench")
    doc["runs"][0]["marks"] = marks
    bundle_import(doc=doc)
    compute_all()
    return Run.objects.get(key="ayla-flights")


def _store_recording(run: Run) -> Evidence:
    ev = Evidence.objects.get(run=run, kind="recording")
    ev.url = ""
    ev.file.save("ayla-flights.webm", ContentFile(RECORDING.read_bytes()), save=True)
    return ev


def test_a_stored_recording_plays_on_the_run_page_and_each_mark_seeks_it(client):
    run = _marked_run([{"at_seconds": 545, "label": "intervention: typed a two-factor code"}])
    ev = _store_recording(run)
    html = client.get("/b/mbench/r/r1/runs/ayla-flights/").content.decode()
    player = re.search(r'<video id="run-player" controls preload="metadata" src="([^"]+)"', html)
    assert player and player.group(1) == ev.href and ev.href.startswith("/media/evidence/")
    marks = re.search(r'<ol class="marks">(.*?)</ol>', html, re.S).group(1)
    # 545 s is 9m 05s; without script the mark opens the file at its second, with it a button seeks the player.
    assert re.findall(r'<li id="(mark-\d+)"><a href="([^"]+)" data-seek="(\d+)">([^<]+)</a> ([^<]+)</li>', marks) == [
        ("mark-545", f"{ev.href}#t=545", "545", "9m 05s", "intervention: typed a two-factor code")
    ]


def test_a_recording_elsewhere_stays_a_link_and_no_player_is_drawn(client):
    # The page may load media from the site only (Content-Security-Policy default-src 'self').
    _marked_run([{"at_seconds": 5, "label": "start"}])
    html = client.get("/b/mbench/r/r1/runs/ayla-flights/").content.decode()
    assert "<video" not in html
    assert '<a href="https://media.example.org/ayla-flights.mp4#t=5">5s</a>' in html


@pytest.fixture
def abl():
    bundle_import(doc=json.loads((FIXTURES / "agentbench-live.json").read_text()))
    compute_all()


def _parts(html: str) -> tuple[list[list[str]], str]:
    table = re.search(r'<table class="score-parts" id="score-parts-table">(.*?)</table>', html, re.S).group(1)
    body = re.search(r"<tbody>(.*?)</tbody>", table, re.S).group(1)
    rows = [
        [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]
    foot = re.sub(r"<[^>]+>", " ", re.search(r"<tfoot>(.*?)</tfoot>", table, re.S).group(1))
    return rows, " ".join(foot.split())


def test_a_composite_run_shows_its_test_and_judge_parts_adding_up_to_its_score(abl, client):
    # Claude Code on multi-001, 19 March: tests 1.0 (a published pass rate), judge criteria 1, 1, 1, 1.
    # 0.6 x 1.0 + 0.4 x ((1 + 1 + 1 + 1) / 4 / 10) = 0.60 + 0.4 x 0.10 = 0.60 + 0.04 = 0.64.
    html = client.get("/b/agentbench-live/r/2026-03-19/runs/abl-2026-03-19-claude-code-multi-001-t1/").content.decode()
    rows, foot = _parts(html)
    assert rows == [
        ["Tests", "pass rate as published", "1.00", "60%", "0.60"],
        ["LLM judge", "mean of 4 criteria, 1.00 / 10", "0.10", "40%", "0.04"],
    ]
    assert foot == "Score (the points added up) 0.64"
    assert "How the score 0.64 is reached" in html


def test_a_heuristic_stands_in_for_the_judge_capped_and_marked(abl, client):
    # A 14-15 March composite run scored by output presence 0.7 with every test passed: the cap takes the
    # judged part to 0.60, so 0.6 x 1.0 + 0.4 x 0.60 = 0.60 + 0.24 = 0.84 (the file published 0.88).
    run = next(
        r
        for r in Run.objects.filter(round__key="2026-03-14-2", task__evaluation="composite", heuristic=0.7)
        if r.auto_pass_rate == 1.0
    )
    html = client.get(f"/b/agentbench-live/r/2026-03-14-2/runs/{run.key}/").content.decode()
    rows, foot = _parts(html)
    assert rows == [
        ["Tests", "pass rate as published", "1.00", "60%", "0.60"],
        ["Heuristic fallback (no judge) heuristic", "0.70, capped at 0.60", "0.60", "40%", "0.24"],
    ]
    assert foot == "Score (the points added up) 0.84"


def test_a_score_without_its_parts_says_it_is_the_published_one(abl, client):
    # Claude Code on multi-001, 14 March: tests 1.0, the judge call failed (no criteria, no heuristic): the
    # score is the published 0.6 (= 0.6 x 1.0 + 0.4 x nothing).
    html = client.get(
        "/b/agentbench-live/r/2026-03-14-2/runs/abl-2026-03-14-2-claude-code-multi-001-t1/"
    ).content.decode()
    rows, foot = _parts(html)
    assert rows == [
        ["Tests", "pass rate as published", "1.00", "60%", "0.60"],
        ["LLM judge", "no judge score", "–", "40%", "–"],
    ]
    assert foot == "Score as published with the run 0.60"


def test_the_judge_narrative_is_text_not_a_dict(abl, client):
    html = client.get("/b/agentbench-live/r/2026-03-19/runs/abl-2026-03-19-gemini-cli-multi-001-t3/").content.decode()
    assert "{&#x27;Completeness&#x27;" not in html and "{'Completeness'" not in html
    narrative = re.search(r'<div id="judge-narrative">(.*?)</div>', html, re.S).group(1)
    items = re.findall(r"<li>([^<]+)</li>", narrative)
    assert items == ["Completeness: 1", "Code quality: 1", "Changelog quality: 1", "Process: 7"]
    assert "<pre" not in re.search(r'<section id="judge".*?</section>', html, re.S).group(0)


def test_a_mark_is_found_by_the_search_and_the_hit_lands_on_it(client):
    _marked_run(
        [
            {"at_seconds": 545, "label": "intervention: typed a two-factor code"},
            {"at_seconds": 900, "label": "follow-up"},
        ]
    )
    html = client.get("/b/mbench/search/", {"q": "two-factor"}).content.decode()
    assert 'href="/b/mbench/r/r1/runs/ayla-flights/#mark-545"' in html
    assert "moment in the recording" in html
    page = client.get("/b/mbench/r/r1/runs/ayla-flights/").content.decode()
    assert 'id="mark-545"' in page


def test_the_demo_weekly_notes_name_what_their_marks_name():
    doc = json.loads((FIXTURES / "weekly.json").read_text())
    words = ("cleared a login prompt", "typed a two-factor code", "dismissed a cookie wall")
    checked = 0
    for run in doc["runs"]:
        marks = [m["label"].removeprefix("intervention: ") for m in run.get("marks") or []]
        note = run["verdicts"][0]["note"]
        if not marks or "cap" in note:
            continue
        assert all(m in note for m in marks), (run["id"], note, marks)
        assert not any(w in note for w in words if w not in marks), (run["id"], note, marks)
        assert "approved a permission dialog" not in note
        checked += 1
    assert checked > 10
