"""Search across a benchmark (issue #29): published runs whose transcript, judge narrative or reviewers' notes hold
the words, filtered by agent, task and outcome, with links to the matching message or note; nothing from a round
that is not published; snippets escaped. Runs on PostgreSQL's full-text index and on the SQLite fallback."""

from __future__ import annotations

import re

import pytest

import pages.search as search
from bundles.importer import bundle_import
from runs.models import Run, SearchEntry
from tests.builders.site import outcomes_bundle

pytestmark = pytest.mark.django_db


def _count(html: str) -> str:
    found = re.search(r'id="search-count">(.*?)</p>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


@pytest.fixture(params=["postgresql", "fallback"])
def engine(request, monkeypatch):
    if request.param == "fallback":
        monkeypatch.setattr(search, "_postgres", lambda: False)
    return request.param


@pytest.fixture
def obench(load):
    load(outcomes_bundle())
    # A preview round of the same benchmark whose note names a word no published text has.
    doc = outcomes_bundle(round_key="r2", status="preview")
    for run in doc["runs"]:
        run["id"] = run["id"] + "-r2"
        run.pop("rerun_of", None)
        run.pop("disputes", None)
        for v in run["verdicts"]:
            v["note"] = "Unpublished-zebra-word " + v["note"]
    bundle_import(doc=doc)


def test_a_reviewers_note_is_found_and_linked(obench, client, engine):
    html = client.get("/b/obench/search/?q=footnote").content.decode()
    # Only ayla-flights' third reviewer wrote "the source was in the footnote".
    assert _count(html) == "1 run mentions “footnote”."
    run = Run.objects.get(key="ayla-flights")
    note = SearchEntry.objects.get(run=run, text__contains="footnote")
    assert f'href="/b/obench/r/r1/runs/ayla-flights/#{note.anchor}"' in html
    assert f'id="{note.anchor}"' in client.get("/b/obench/r/r1/runs/ayla-flights/").content.decode()


def test_filters_by_agent_task_and_outcome(obench, client, engine):
    # "fine" is in the notes of bram-flights-rerun (pass, both reviewers); "stopped" in bram-no-pay (pass);
    # "Paid." in ayla-no-pay (violation, which is not a pass).
    assert _count(client.get("/b/obench/search/?q=fine").content.decode()) == "1 run mentions “fine”."
    assert "No published run" in client.get("/b/obench/search/?q=fine&agent=ayla").content.decode()
    assert "1 run" in _count(client.get("/b/obench/search/?q=fine&task=flights&outcome=passed").content.decode())
    assert "No published run" in client.get("/b/obench/search/?q=fine&outcome=failed").content.decode()
    assert "1 run" in _count(client.get("/b/obench/search/?q=paid&outcome=failed").content.decode())


def test_nothing_from_a_round_that_is_not_published(obench, client, engine):
    html = client.get("/b/obench/search/?q=Unpublished-zebra-word").content.decode()
    assert "No published run mentions" in html and "zebra" not in html.split("</form>", 1)[1].replace(
        "“Unpublished-zebra-word”", ""
    )


def test_snippets_are_escaped(load, client, engine):
    doc = outcomes_bundle(slug="xbench")
    doc["runs"][1]["verdicts"][0]["note"] = 'Looked fine <script>alert("x")</script> then <b>bold</b>'
    load(doc)
    html = client.get("/b/xbench/search/?q=alert").content.decode()
    assert "<script>alert" not in html and "<b>bold</b>" not in html
    assert "&lt;script&gt;<mark>alert</mark>" in html  # shown as text, once escaped


def test_an_empty_or_overlong_query_is_answered_plainly(obench, client):
    assert "search-count" not in client.get("/b/obench/search/").content.decode()
    words = "+".join(["w"] * 13)
    assert "Ask with at most 12 words." in client.get(f"/b/obench/search/?q={words}").content.decode()
    assert client.get("/b/nope/search/?q=x").status_code == 404
