"""`export_bundle --all` writes every round of a benchmark, and the file recounts: a run's id is unique within its
round, so two rounds that ran the same plan (the same agents, tasks and trials, so the same run ids) are one
valid bundle, and importing it again keeps each round's runs apart."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from bundles.importer import bundle_import
from bundles.inspect_logs import logs_to_bundle, read_logs
from runs.models import Run
from scoring.bundle import BundleError, check_bundle
from scoring.recount import recount

pytestmark = pytest.mark.django_db

QUIZ = Path(__file__).resolve().parents[2] / "fixtures" / "inspect-quiz.eval"


def _quiz_in_two_rounds() -> None:
    """The demo's Inspect quiz as `load_demo` imports it: round 1 published, round 2 a draft of the same log."""
    logs = read_logs([(QUIZ.name, QUIZ)])
    for key, status in (("2026-r1", "published"), ("2026-r2", "draft")):
        doc = logs_to_bundle(logs, benchmark="inspect-quiz", round_key=key).doc
        doc["rounds"][0].update(status=status)
        doc["benchmark"]["params"] = {"preview_hours": 0}  # as load_demo: no vendor window
        if status == "published":
            doc["rounds"][0]["published_at"] = "2026-03-02T12:00:00Z"
        bundle_import(doc=doc)


def test_an_export_of_every_round_recounts_though_its_rounds_share_run_ids(tmp_path):
    _quiz_in_two_rounds()
    out = tmp_path / "quiz.json"
    call_command("export_bundle", "--benchmark", "inspect-quiz", "--all", "-o", str(out), stderr=io.StringIO())
    doc = json.loads(out.read_text())
    ids = {r: sorted(run["id"] for run in doc["runs"] if run["round"] == r) for r in ("2026-r1", "2026-r2")}
    assert ids["2026-r1"] and ids["2026-r1"] == ids["2026-r2"]  # the same six runs in each round
    # Recounted from the file alone, both rounds' boards: each round scores its own six runs alike.
    counted = tmp_path / "recount.json"
    call_command("recount", str(out), "-o", str(counted))
    result = json.loads(counted.read_text())
    rounds = {r["round"]: r["boards"] for r in result["rounds"]}
    assert set(rounds) == {"2026-r1", "2026-r2"}
    assert rounds["2026-r1"]["overall"] == rounds["2026-r2"]["overall"] != []
    assert set(rounds["2026-r1"]["standings"]) == set(ids["2026-r1"])


def test_importing_the_export_again_keeps_each_rounds_runs_apart(tmp_path):
    _quiz_in_two_rounds()
    out = tmp_path / "quiz.json"
    call_command("export_bundle", "--benchmark", "inspect-quiz", "--all", "-o", str(out), stderr=io.StringIO())
    doc = json.loads(out.read_text())

    def stored() -> set[tuple]:
        return {
            (r.round.key, r.key, r.task.key, r.score, r.trial, r.status)
            for r in Run.objects.select_related("round", "task")
        }

    before = stored()
    assert len(before) == len(doc["runs"]) == 2 * len({run["id"] for run in doc["runs"]})
    bundle_import(doc=doc)
    assert stored() == before


def test_a_run_id_twice_in_one_round_is_still_refused():
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "scored"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [
            {"key": "r1", "status": "draft", "entries": [{"agent": "a"}]},
            {"key": "r2", "status": "draft", "entries": [{"agent": "a"}]},
        ],
        "runs": [
            {"id": "x", "round": "r1", "agent": "a", "task": "t", "status": "completed"},
            {"id": "x", "round": "r2", "agent": "a", "task": "t", "status": "completed"},
            {"id": "x", "round": "r2", "agent": "a", "task": "t", "status": "completed", "trial": 2},
        ],
    }
    with pytest.raises(BundleError) as refused:
        check_bundle(doc)
    assert refused.value.problems == ["runs[2].id: duplicate run id 'x' in round 'r2'"]
    del doc["runs"][2]
    assert [r["round"] for r in recount(doc)["rounds"]] == ["r1", "r2"]
