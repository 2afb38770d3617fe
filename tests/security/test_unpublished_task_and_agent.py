"""What the public learns, over HTTP with no account, of a task and an agent that only unpublished rounds hold.

A task that only a draft (or a preview) round holds is not public, its prompt least of all: its page and its API
answer 404 exactly like a task that does not exist, and no list, board, count or download names it, until a
round holding it is published. An agent entered only in unpublished rounds is answered 404 by every filter of
the runs API exactly like an unknown agent: the API never confirms that either exists. (Benchmarks are public
as soon as they exist: `/api/benchmarks` lists them all, so `benchmark=` confirms nothing new.)"""

from __future__ import annotations

import copy
import json

import pytest
from django.test import Client

from bundles.importer import bundle_import
from tests.security.test_upload_key_scope import _run, published_doc

pytestmark = pytest.mark.django_db

DRAFT_PROMPT = "SECRET-DRAFT-PROMPT: rebuild the billing page"
PREVIEW_PROMPT = "SECRET-PREVIEW-PROMPT: port the sync engine"


def unpublished_doc() -> dict:
    """Benchmark "sb" with its published round r1 (alpha on t1 and t2), a draft round r2 holding the new task
    "drafted" (run by alpha and by "quietbot", an agent of Hidden Co entered nowhere else) and a preview round r3
    holding the new task "previewed"."""
    doc = published_doc()
    doc["agents"].append({"slug": "quietbot", "name": "Hidden Agent", "organization": "Hidden Co"})
    doc["tasks"] += [
        {"key": "drafted", "title": "Drafted Title", "version": "1.0", "kind": "core", "prompt": DRAFT_PROMPT},
        {"key": "previewed", "title": "Previewed Title", "version": "1.0", "kind": "core", "prompt": PREVIEW_PROMPT},
    ]
    doc["rounds"] += [
        {"key": "r2", "status": "draft", "entries": [{"agent": "alpha"}, {"agent": "quietbot"}]},
        {"key": "r3", "status": "preview", "entries": [{"agent": "alpha"}], "tasks": ["previewed"]},
    ]
    doc["runs"] += [
        _run("d1", "r2", "alpha", "drafted", 4),
        _run("d2", "r2", "quietbot", "drafted", 6),
        _run("p1", "r3", "alpha", "previewed", 5),
    ]
    return doc


@pytest.fixture
def world():
    bundle_import(doc=unpublished_doc())


def body(response) -> str:
    return b"".join(response).decode() if response.streaming else response.content.decode()


def same_as_unknown(client: Client, url: str, hidden: str, unknown: str = "no-such-thing") -> None:
    """`url` naming `hidden` answers exactly as it does naming a key that was never stored."""
    seen, never = client.get(url.format(hidden)), client.get(url.format(unknown))
    assert seen.status_code == never.status_code == 404, (url, seen.status_code, never.status_code)
    assert body(seen).replace(hidden, "KEY") == body(never).replace(unknown, "KEY"), url


@pytest.mark.parametrize("task", ["drafted", "previewed"])
def test_a_task_only_unpublished_rounds_hold_answers_404_like_an_unknown_one(client, world, task):
    same_as_unknown(client, "/b/sb/tasks/{}/", task)
    same_as_unknown(client, "/api/benchmarks/sb/tasks/{}", task)
    same_as_unknown(client, "/api/benchmarks/sb/runs?task={}", task)
    assert client.get("/b/sb/tasks/t1/").status_code == 200
    assert client.get("/api/benchmarks/sb/tasks/t1").status_code == 200


def test_no_public_list_board_count_or_download_names_an_unpublished_task(client, world):
    pages = {
        "/api/benchmarks/sb/tasks": None,
        "/api/benchmarks/sb": None,
        "/api/benchmarks/sb/bundle": None,
        "/b/sb/download/bundle.json": None,
        "/b/sb/download/runs.csv": None,
        "/b/sb/": None,
        "/b/sb/?tab=tasks": None,
        "/b/sb/methodology/": None,
        "/b/sb/r/r1/board.csv?tab=tasks": None,
    }
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        text = body(response)
        for secret in ("drafted", "Drafted Title", DRAFT_PROMPT, "previewed", "Previewed Title", PREVIEW_PROMPT):
            assert secret not in text, (url, secret)
    assert [t["key"] for t in client.get("/api/benchmarks/sb/tasks").json()] == ["t1", "t2"]
    assert client.get("/api/benchmarks/sb").json()["tasks"] == 2
    download = json.loads(body(client.get("/b/sb/download/bundle.json")))
    assert [t["key"] for t in download["tasks"]] == ["t1", "t2"]


def test_a_task_becomes_public_with_its_prompt_when_a_round_holding_it_is_published(client, world):
    doc = unpublished_doc()
    published = copy.deepcopy(doc)
    published["rounds"][1].update(status="published", published_at="2026-10-01T12:00:00Z")
    bundle_import(doc=published)  # an editor publishes r2
    assert DRAFT_PROMPT in client.get("/b/sb/tasks/drafted/").content.decode()
    assert client.get("/api/benchmarks/sb/tasks/drafted").json()["prompt"] == DRAFT_PROMPT
    assert "drafted" in [t["key"] for t in client.get("/api/benchmarks/sb/tasks").json()]
    assert client.get("/api/benchmarks/sb/runs?task=drafted").json()["count"] == 2
    # the preview round's task is still its people's only
    same_as_unknown(client, "/api/benchmarks/sb/tasks/{}", "previewed")


def test_an_agent_entered_only_in_unpublished_rounds_answers_404_like_an_unknown_one(client, world):
    same_as_unknown(client, "/api/benchmarks/sb/runs?agent={}", "quietbot")
    same_as_unknown(client, "/api/benchmarks/sb/runs?agent={}&round=r1", "quietbot")
    same_as_unknown(client, "/api/agents/{}", "quietbot")
    same_as_unknown(client, "/agents/{}/", "quietbot")
    assert client.get("/api/benchmarks/sb/runs?agent=alpha").status_code == 200


@pytest.mark.parametrize("round_key", ["r2", "r3"])
def test_an_unpublished_round_answers_404_like_an_unknown_one_in_every_filter(client, world, round_key):
    same_as_unknown(client, "/api/benchmarks/sb/runs?round={}", round_key)
    same_as_unknown(client, "/api/benchmarks/sb/rounds/{}", round_key)
    same_as_unknown(client, "/b/sb/r/{}/", round_key)


def test_a_task_in_a_published_rounds_task_set_is_public_though_nobody_ran_it(client, world):
    doc = unpublished_doc()
    doc["tasks"].append({"key": "spare", "title": "Spare", "version": "1.0", "kind": "core", "prompt": "Spare."})
    doc["rounds"][0]["tasks"].append("spare")
    bundle_import(doc=doc, update_shared=True)  # an editor adds it to the published round's task set
    assert client.get("/api/benchmarks/sb/tasks/spare").json()["prompt"] == "Spare."
    assert client.get("/b/sb/tasks/spare/").status_code == 200
