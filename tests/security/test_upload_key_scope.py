"""An upload key of one benchmark, attacking over HTTP: it writes runs, verdicts and evidence into its benchmark's
draft and preview rounds, and new agents, organizations and tasks; it changes no stored agent or organization
(shared by every benchmark), none of its benchmark's settings, and no task a published round reads. A refused
upload answers 422 naming each field, and writes nothing."""

from __future__ import annotations

import copy
import json

import pytest
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Agent, Benchmark, Organization, Round, Task, TaskVersion
from runs.models import Run

pytestmark = pytest.mark.django_db

TASKS = [
    {"key": "t1", "title": "Fix it", "version": "1.0", "kind": "core", "evaluation": "auto", "prompt": "Fix it."},
    {"key": "t2", "title": "Port it", "version": "1.0", "kind": "core", "evaluation": "auto", "prompt": "Port it."},
]


def _run(rid: str, rnd: str, agent: str, task: str, passed: int) -> dict:
    return {
        "id": rid,
        "round": rnd,
        "agent": agent,
        "task": task,
        "status": "completed",
        "tests_passed": passed,
        "tests_total": 10,
    }


def published_doc() -> dict:
    """Benchmark "sb" with a published round r1 (agent "alpha" of Alpha Labs on both tasks), stored by an editor.
    Another benchmark "other" enters the shared agent "shared" of Shared Org in its published round."""
    return {
        "benchmark": {"slug": "sb", "name": "Scored Bench", "methodology": "scored", "params": {"pass_threshold": 0.8}},
        "agents": [{"slug": "alpha", "name": "Alpha", "organization": "Alpha Labs", "primary_language": "en"}],
        "tasks": copy.deepcopy(TASKS),
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-09-01T12:00:00Z",
                "entries": [{"agent": "alpha"}],
                "tasks": ["t1", "t2"],
            }
        ],
        "runs": [_run("a1", "r1", "alpha", "t1", 3), _run("a2", "r1", "alpha", "t2", 9)],
    }


def other_doc() -> dict:
    return {
        "benchmark": {"slug": "other", "name": "Other", "methodology": "scored"},
        "agents": [{"slug": "shared", "name": "Shared", "organization": "Shared Org", "primary_language": "en"}],
        "tasks": copy.deepcopy(TASKS[:1]),
        "rounds": [
            {
                "key": "o1",
                "status": "published",
                "published_at": "2026-09-01T12:00:00Z",
                "entries": [{"agent": "shared"}],
            }
        ],
        "runs": [_run("s1", "o1", "shared", "t1", 5)],
    }


def upload_doc() -> dict:
    """What the team's CI sends for a new draft round r2: the benchmark as stored, the agents as stored."""
    doc = published_doc()
    doc["rounds"] = [{"key": "r2", "status": "draft", "entries": [{"agent": "alpha"}]}]
    doc["runs"] = [_run("b1", "r2", "alpha", "t1", 10)]
    return doc


@pytest.fixture
def key() -> str:
    bundle_import(doc=published_doc())
    bundle_import(doc=other_doc())
    return api_key_create(name="CI", benchmark=Benchmark.objects.get(slug="sb"))[1]


def post(doc: dict, key: str):
    return Client().post(
        "/api/benchmarks/sb/bundle",
        json.dumps(doc),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )


def stored() -> tuple:
    """Everything an upload could reach outside its own draft rounds, as stored."""
    bench = Benchmark.objects.get(slug="sb")
    return (
        (bench.name, bench.methodology, bench.description, bench.pass_threshold, bench.params),
        sorted(Agent.objects.values_list("slug", "name", "organization__name", "primary_language")),
        sorted(Organization.objects.values_list("slug", "name")),
        sorted(Task.objects.values_list("benchmark__slug", "key", "title", "kind", "time_limit_min")),
        sorted(TaskVersion.objects.values_list("task__key", "version", "prompt")),
        sorted(Round.objects.values_list("benchmark__slug", "key", "status")),
        Run.objects.count(),
    )


def test_the_upload_a_team_sends_is_accepted(key):
    res = post(upload_doc(), key)
    assert res.status_code == 200, res.content
    assert Run.objects.filter(round__key="r2").count() == 1


def test_new_agents_organizations_and_tasks_are_accepted(key):
    doc = upload_doc()
    doc["agents"].append({"slug": "gamma", "name": "Gamma", "organization": "Gamma Co"})
    doc["tasks"].append({"key": "t3", "title": "New", "version": "1.0", "kind": "core", "prompt": "New."})
    doc["rounds"][0]["entries"].append({"agent": "gamma"})
    doc["runs"].append(_run("g1", "r2", "gamma", "t3", 7))
    res = post(doc, key)
    assert res.status_code == 200, res.content
    assert Agent.objects.get(slug="gamma").organization.name == "Gamma Co"


def _rename_other_agent(doc: dict) -> None:
    doc["agents"].append({"slug": "shared", "name": "Pwned", "organization": "Shared Org"})


def _move_agent(doc: dict) -> None:
    doc["agents"][0]["organization"] = "Shared Org"


def _rename_org(doc: dict) -> None:
    doc["agents"][0]["organization"] = "ALPHA LABS"


def _blank_language(doc: dict) -> None:
    doc["agents"][0]["primary_language"] = None


def _threshold(doc: dict) -> None:
    doc["benchmark"]["params"]["pass_threshold"] = 0.05


def _bench_name(doc: dict) -> None:
    doc["benchmark"]["name"] = "Hijacked"


def _bench_params(doc: dict) -> None:
    doc["benchmark"]["params"]["k"] = 5


def _bench_description(doc: dict) -> None:
    doc["benchmark"]["description"] = "Now says something else."


def _methodology(doc: dict) -> None:
    doc["benchmark"]["methodology"] = "outcomes"


def _prompt(doc: dict) -> None:
    doc["tasks"][0]["prompt"] = "Do something else."


def _task_kind(doc: dict) -> None:
    doc["tasks"][1]["kind"] = "safety"


CHANGES = [
    (_rename_other_agent, "agents[1].name"),
    (_move_agent, "agents[0].organization"),
    (_rename_org, "agents[0].organization"),
    (_blank_language, "agents[0].primary_language"),
    (_threshold, "benchmark.params.pass_threshold"),
    (_bench_name, "benchmark.name"),
    (_bench_params, "benchmark.params"),
    (_bench_description, "benchmark.description"),
    (_methodology, "benchmark.methodology"),
    (_prompt, "tasks[0]"),
    (_task_kind, "tasks[1].kind"),
]


@pytest.mark.parametrize(("change", "field"), CHANGES, ids=[c[0].__name__.strip("_") for c in CHANGES])
def test_a_key_changes_no_stored_shared_row(key, change, field):
    before = stored()
    doc = upload_doc()
    change(doc)
    res = post(doc, key)
    assert res.status_code == 422, res.content
    problems = res.json()["problems"]
    assert any(p.startswith(field) for p in problems), problems
    assert stored() == before


def test_every_field_is_named_at_once(key):
    doc = upload_doc()
    for change, _ in CHANGES:
        if change is not _methodology:
            change(doc)
    res = post(doc, key)
    assert res.status_code == 422
    problems = res.json()["problems"]
    for _, field in CHANGES:
        if field != "benchmark.methodology":
            assert any(p.startswith(field) for p in problems), (field, problems)


def test_a_task_no_published_round_reads_may_be_reworded_by_its_team(key):
    # t3 exists only in the draft round r2: the team may still fix its wording.
    doc = upload_doc()
    doc["tasks"].append({"key": "t3", "title": "Draft", "version": "1.0", "kind": "core", "prompt": "First."})
    doc["runs"].append(_run("b3", "r2", "alpha", "t3", 1))
    assert post(doc, key).status_code == 200
    doc["tasks"][-1]["prompt"] = "Second."
    assert post(doc, key).status_code == 200, post(doc, key).content
    assert TaskVersion.objects.get(task__key="t3").prompt == "Second."
