"""Transcripts behind every run (issue #29): a real Inspect eval whose scripted model calls a tool, imported, and
its run page showing the tool call, the tool's result, the final answer and the scorer's explanation, each at its
anchor; pages, search within the run, inert model text, privacy before publication, and refusals that write
nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.files.storage import storages
from django.core.management import call_command

from bundles.importer import bundle_import
from runs.models import Run, SearchEntry, Transcript
from scoring.bundle import BundleError
from tests.inspect_logs.conftest import publish
from tests.inspect_logs.scripted import ALMANAC

pytestmark = pytest.mark.django_db

RUN = "/b/quiz/r/r1/runs/scripted-steady.quiz.3.1/"


def _import(path: Path) -> None:
    call_command("import_inspect", str(path), "--benchmark", "quiz", "--round", "r1", stdout=open("/dev/null", "w"))


def _message(html: str, index: int) -> str:
    found = re.search(rf'<li id="m-{index}" class="message role-(\w+)">(.*?)</li>', html, re.S)
    assert found, f"no message m-{index}"
    return found.group(1) + ": " + found.group(2)


def test_the_run_page_shows_the_tool_call_its_result_the_answer_and_the_scorers_explanation(tool_logs, client):
    _import(tool_logs["steady"])
    publish("quiz", "r1")
    html = client.get(RUN).content.decode()
    # Sample 3 ("Which planet is known as the red planet?"), epoch 1: the steady model asks the almanac about
    # topic "3", the tool answers with entry 9031, the model answers "Venus" (its script's first answer).
    assert _message(html, 0).startswith("user: ") and "Which planet is known as the red planet?" in _message(html, 0)
    call = _message(html, 1)
    assert (
        call.startswith("assistant: ")
        and "Calls tool <code>almanac</code>" in call
        and "&quot;topic&quot;: &quot;3&quot;" in call
    )
    result = _message(html, 2)
    assert result.startswith("tool: ") and ALMANAC["3"] in result and "from <code>almanac</code>" in result
    assert _message(html, 3).startswith("assistant: ") and "Venus" in _message(html, 3)
    scores = re.search(r'<div class="transcript-scores" id="scores">(.*?)</div>', html, re.S).group(1)
    # `includes` scores I (the target "Mars" is not in "Venus") and explains with the answer it read.
    assert "includes" in scores and "incorrect (I)" in scores and '<p class="explanation">Venus</p>' in scores


def test_search_within_a_run_highlights_and_links_every_match(tool_logs, client):
    _import(tool_logs["steady"])
    publish("quiz", "r1")
    html = client.get(RUN + "?q=IRON oxide").content.decode()
    assert "<mark>iron oxide</mark>" in html
    assert 'href="?q=IRON+oxide&amp;m=2#m-2"' in html and "is in 1 message" in html
    assert "is in no message" in client.get(RUN + "?q=saturn").content.decode()


def test_the_search_entries_hold_each_messages_text_and_tool_calls(tool_logs):
    _import(tool_logs["steady"])
    run = Run.objects.get(key="scripted-steady.quiz.3.1")
    texts = dict(SearchEntry.objects.filter(run=run).values_list("anchor", "text"))
    assert texts["m-2"] == ALMANAC["3"]
    assert 'almanac {"topic": "3"}' in texts["m-1"]
    # Importing the same log again stores nothing new.
    before = list(Transcript.objects.values_list("id", "digest"))
    _import(tool_logs["steady"])
    assert list(Transcript.objects.values_list("id", "digest")) == before


def test_before_publication_no_public_page_or_api_shows_a_transcript(tool_logs, client):
    _import(tool_logs["steady"])  # a draft round
    assert client.get(RUN).status_code == 404
    assert client.get(RUN + "?q=iron").status_code == 404
    body = client.get("/api/benchmarks/quiz/runs").content.decode()
    assert "Almanac entry" not in body
    assert "Almanac entry" not in client.get("/b/quiz/download/bundle.json").content.decode()


def _bundle(transcript: dict) -> dict:
    return {
        "benchmark": {"slug": "tb", "name": "TB", "methodology": "scored", "params": {"preview_hours": 0}},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core", "prompt": "Do it."}],
        "rounds": [
            {
                "key": "r1",
                "name": "R1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                "entries": [{"agent": "a"}],
            }
        ],
        "runs": [
            {
                "id": "r-1",
                "round": "r1",
                "agent": "a",
                "task": "t",
                "status": "completed",
                "score": 0.5,
                "transcript": transcript,
            }
        ],
    }


def test_model_text_with_script_and_markdown_renders_inert(client):
    evil = '<script>alert("x")</script> **bold** [link](javascript:alert(1)) <img src=x onerror=alert(1)>'
    bundle_import(
        doc=_bundle(
            {
                "messages": [
                    {"role": "user", "text": "Say something."},
                    {
                        "role": "assistant",
                        "text": evil,
                        "tool_calls": [{"id": "c1", "function": "f", "arguments": {"x": "<b>"}}],
                    },
                    {"role": "tool", "text": "", "tool_call_id": "c1", "function": "f", "error": "<i>timeout</i>"},
                ]
            }
        )
    )
    html = client.get("/b/tb/r/r1/runs/r-1/?q=script").content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html and "<i>timeout</i>" not in html
    assert "&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt;" in html
    assert "**bold**" in html and "<strong>bold</strong>" not in html  # Markdown stays text
    assert "&quot;&lt;b&gt;&quot;" in html


@pytest.mark.parametrize(
    "transcript, problem",
    [
        ({"messages": [{"role": "wizard", "text": "hi"}]}, "runs[0].transcript.messages[0].role"),
        ({"messages": "not a list"}, "runs[0].transcript.messages"),
        ({"messages": [{"role": "assistant", "tool_calls": [{"arguments": {}}]}]}, "tool_calls[0]"),
    ],
)
def test_a_malformed_transcript_is_refused_and_nothing_is_written(transcript, problem):
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=_bundle(transcript))
    assert any(problem in p for p in refused.value.problems), refused.value.problems
    assert not Run.objects.exists() and not Transcript.objects.exists()


def test_an_oversized_transcript_is_refused_and_nothing_is_written(settings):
    settings.TRANSCRIPT_MAX_BYTES = 10_000
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=_bundle({"messages": [{"role": "user", "text": "x" * 20_000}]}))
    assert any("over the limit of 10,000" in p for p in refused.value.problems)
    assert not Run.objects.exists() and not Transcript.objects.exists()


def test_a_failed_import_leaves_no_transcript_file(monkeypatch):
    # The transcript is written, then a later step of the same import fails: its files go with the rollback.
    import bundles.importer as importer

    def fail(*args, **kwargs):
        raise RuntimeError("a later step failed")

    monkeypatch.setattr(importer, "_shared_logged", fail)
    with pytest.raises(RuntimeError):
        bundle_import(doc=_bundle({"messages": [{"role": "user", "text": "hello"}]}))
    assert not Transcript.objects.exists()
    storage = storages["transcripts"]
    _, folders = storage.listdir("transcripts") if storage.exists("transcripts") else ([], [])
    assert all(not storage.listdir(f"transcripts/{d}")[1] for d in folders)


def test_a_long_transcript_opens_in_pages_and_an_anchor_link_opens_its_page(client, settings):
    settings.TRANSCRIPT_PAGE_SIZE = 100
    messages = [
        {"role": "assistant" if i % 2 else "user", "text": f"line {i} " + ("needle" if i == 250 else "")}
        for i in range(301)
    ]
    bundle_import(doc=_bundle({"messages": messages}))
    first = client.get("/b/tb/r/r1/runs/r-1/").content.decode()
    assert 'id="m-0"' in first and 'id="m-99"' in first and 'id="m-100"' not in first
    assert "page 1 of 4" in first
    third = client.get("/b/tb/r/r1/runs/r-1/?page=3").content.decode()
    assert 'id="m-200"' in third and 'id="m-299"' in third
    found = client.get("/b/tb/r/r1/runs/r-1/?q=needle").content.decode()
    assert 'href="?q=needle&amp;m=250#m-250"' in found
    assert 'id="m-250"' in client.get("/b/tb/r/r1/runs/r-1/?q=needle&m=250").content.decode()


def test_a_transcript_file_next_to_the_bundle_is_read_in_the_documented_format(tmp_path, client):
    (tmp_path / "t.json").write_text(
        json.dumps({"messages": [{"role": "user", "text": "from a file"}], "output": "done"})
    )
    doc = _bundle({"messages": []})
    del doc["runs"][0]["transcript"]
    doc["runs"][0]["evidence"] = [{"kind": "transcript", "path": "t.json"}]
    bundle_import(doc=doc, folder=tmp_path)
    assert "from a file" in client.get("/b/tb/r/r1/runs/r-1/").content.decode()
    (tmp_path / "bad.json").write_text("{not json")
    doc["runs"][0]["evidence"] = [{"kind": "transcript", "path": "bad.json"}]
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc, folder=tmp_path)
    assert any("is not JSON" in p for p in refused.value.problems)


def test_the_benchmark_search_finds_a_phrase_only_the_tool_result_holds(tool_logs, client):
    _import(tool_logs["steady"])
    publish("quiz", "r1")
    html = client.get('/b/quiz/search/?q="iron oxide dust"').content.decode()
    # Sample 3's tool result, in both epochs of the steady model: 2 runs, each linked to message 2.
    assert "2 runs mention" in html
    assert 'href="/b/quiz/r/r1/runs/scripted-steady.quiz.3.1/?q=iron&amp;m=2#m-2"' in html
