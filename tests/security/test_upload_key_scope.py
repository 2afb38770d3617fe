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
from leaderboard.models import Agent, Benchmark, ChangelogEntry, Organization, Round, Task, TaskVersion
from runs.models import Run

pytestmark = pytest.mark.django_db

# t1 carries every field a task and a task version have, and an earlier published version in its history.
TASKS = [
    {
        "key": "t1",
        "title": "Fix it",
        "version": "1.1",
        "kind": "core",
        "dimensions": ["correctness"],
        "domain": "web",
        "family": "fixes",
        "difficulty": "hard",
        "evaluation": "auto",
        "time_limit_min": 30,
        "token_budget": 100000,
        "human_minutes": 20,
        "tags": ["bugfix"],
        "prompt": "Fix it.",
        "parameters": ["city"],
        "interruption": "Stop after the first test run.",
        "evidence": ["recording"],
        "scenarios": ["open the app", "reload it"],
        "criteria": {"pass": ["the tests pass"], "fail": ["they do not"]},
        "observes_later_effects": False,
        "published_at": "2026-08-01T12:00:00Z",
        "change_note": "Names the city.",
        "history": [
            {
                "version": "1.0",
                "prompt": "Fix the bug.",
                "scenarios": ["open the app"],
                "criteria": {"pass": ["the tests pass"]},
                "published_at": "2026-07-01T12:00:00Z",
            }
        ],
    },
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
        "benchmark": {
            "slug": "sb",
            "name": "Scored Bench",
            "methodology": "scored",
            "params": {"preview_hours": 0, "pass_threshold": 0.8},
        },
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
        "benchmark": {"slug": "other", "name": "Other", "methodology": "scored", "params": {"preview_hours": 0}},
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


# Every field of a task and of a task version, attacked in turn by the benchmark team's key, starting from the
# task exactly as the public download exports it (t1, which the published round r1 reads). The fields are the
# models' own: a field added later has no attack here and its test fails until it gets one.
NAMES_THE_ROW = {Task: {"id", "benchmark", "key"}, TaskVersion: {"id", "task"}}


def _model_fields(model) -> list[str]:
    return [f.name for f in model._meta.concrete_fields if f.name not in NAMES_THE_ROW[model]]


TASK_ATTACKS = {
    "title": ("title", "PWNED"),
    "kind": ("kind", "safety"),
    "version": ("version", "9.0"),  # a new current version (its wording is the bundle's)
    "dimensions": ("dimensions", ["pwned"]),
    "domain": ("domain", "pwned"),
    "family": ("family", "pwned"),
    "difficulty": ("difficulty", "trivial"),
    "evaluation": ("evaluation", "review"),
    "time_limit_min": ("time_limit_min", 1),
    "token_budget": ("token_budget", 1),
    "human_minutes": ("human_minutes", 1),
    "tags": ("tags", ["pwned"]),
}
VERSION_ATTACKS = {
    "version": ("version", "0.1"),  # in the history: a version the task never had
    "prompt": ("prompt", "PWNED"),
    "parameters": ("parameters", ["pwned"]),
    "interruption": ("interruption", "PWNED"),
    "evidence": ("evidence", ["nothing"]),
    "scenarios": ("scenarios", ["PWNED scenario 3"]),
    "criteria": ("criteria", {"pass": ["anything"]}),
    "observes_later_effects": ("observes_later_effects", True),
    "published_at": ("published_at", "2020-01-01T00:00:00Z"),  # backdated
    "change_note": ("change_note", "PWNED"),
}
# Fields a bundle does not set for a stored task: its place in the task list follows the site's order (an upload
# lists the tasks its runs need, in any order), a version's creation time is the site's, and so is its
# fingerprint (set by `import_tau2_tasks` from the benchmark's own task file). The attack is answered 200 and the
# stored value stays.
NOT_FROM_A_KEY = {
    (Task, "position"): lambda doc: doc["tasks"].reverse(),
    (TaskVersion, "created_at"): lambda doc: doc["tasks"][0].update(created_at="2020-01-01T00:00:00Z"),
    (TaskVersion, "fingerprint"): lambda doc: doc["tasks"][0].update(fingerprint="0" * 64),
}


def task_rows() -> list[tuple]:
    """Every stored field of every task and task version."""
    return [
        tuple(getattr(row, f.attname) for f in model._meta.concrete_fields)
        for model in (Task, TaskVersion)
        for row in model.objects.order_by("pk")
    ]


def exported_upload_doc() -> dict:
    """The team's upload of a new draft round, its tasks exactly as the public download exports them."""
    doc = upload_doc()
    doc["tasks"] = Client().get("/api/benchmarks/sb/bundle").json()["tasks"]
    assert doc["tasks"][0]["key"] == "t1" and doc["tasks"][0]["history"][0]["version"] == "1.0"
    return doc


def _attack(doc: dict, model, name: str, where: str) -> str | None:
    """Change field `name` of t1 (`where`: the task, its current version or its history entry); the path the
    refusal names, or None for a field a bundle does not set."""
    if (model, name) in NOT_FROM_A_KEY:
        NOT_FROM_A_KEY[model, name](doc)
        return None
    t1 = doc["tasks"][0]
    if model is Task or (where == "current" and name == "version"):
        key, value = TASK_ATTACKS[name]
        t1[key] = value
        return f"tasks[0].{key}"
    key, value = VERSION_ATTACKS[name]
    if where == "history":
        t1["history"][0][key] = value
        return f"tasks[0].history[0].{key}"
    t1[key] = value
    return f"tasks[0].{key}"


FIELD_ATTACKS = [
    *[(Task, name, "task") for name in _model_fields(Task)],
    *[(TaskVersion, name, where) for name in _model_fields(TaskVersion) for where in ("current", "history")],
]


@pytest.mark.parametrize(
    ("model", "name", "where"), FIELD_ATTACKS, ids=[f"{m.__name__}.{n}.{w}" for m, n, w in FIELD_ATTACKS]
)
def test_a_key_changes_no_field_of_a_task_a_published_round_reads(key, model, name, where):
    before = task_rows()
    doc = exported_upload_doc()
    assert post(doc, key).status_code == 200  # the export as it is: nothing to refuse
    runs = Run.objects.count()
    path = _attack(doc, model, name, where)
    res = post(doc, key)
    if path is None:
        assert res.status_code == 200, res.content
    else:
        assert res.status_code == 422, res.content
        problems = res.json()["problems"]
        assert any(p.startswith(path) for p in problems), (path, problems)
        assert Run.objects.count() == runs
    assert task_rows() == before


def test_every_field_of_a_task_and_its_versions_is_named_in_one_answer(key):
    doc = exported_upload_doc()
    # Not the versions' names: with another name a version is a new one, and its fields are not changes.
    paths = [_attack(doc, m, n, w) for m, n, w in FIELD_ATTACKS if (m, n) not in NOT_FROM_A_KEY and n != "version"]
    res = post(doc, key)
    assert res.status_code == 422
    problems = res.json()["problems"]
    assert [p for p in paths if not any(q.startswith(f"{p}:") for q in problems)] == [], problems


def test_the_vote_screen_keeps_the_scenarios_a_key_tried_to_replace(key):
    doc = exported_upload_doc()
    doc["tasks"][0]["scenarios"] = ["PWNED scenario 3"]
    assert post(doc, key).status_code == 422
    assert TaskVersion.objects.get(task__benchmark__slug="sb", task__key="t1", version="1.1").scenarios == [
        "open the app",
        "reload it",
    ]
    assert not TaskVersion.objects.filter(task__benchmark__slug="sb", task__key="t1", version="0.1").exists()


def test_a_key_writes_no_changelog_line(key):
    # The changelog is the site's own record (corrections, publication, by whom): a line a team's key wrote into
    # a draft round would be public at publication, with any author and date.
    doc = upload_doc()
    doc["rounds"][0]["changelog"] = [{"what": "Verdict changed", "why": "Audit", "who": "editor", "at": "2020-01-01"}]
    res = post(doc, key)
    assert res.status_code == 422, res.content
    assert any(p.startswith("rounds[0].changelog") for p in res.json()["problems"]), res.json()
    assert not ChangelogEntry.objects.exists()
    assert not Run.objects.filter(round__key="r2").exists()
