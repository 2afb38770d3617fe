"""How a scored run was run, recorded and shown. 002, "Evaluation Types": an LLM judge "sends the agent's output and a
rubric to an LLM evaluator (Claude Sonnet by default)"; "Sandbox": "Docker mode (recommended): A fresh Docker
container prepares the workspace ... Local mode (fallback): When Docker is unavailable, a local temporary directory
is used. Results may vary based on the host environment." Each scored run keeps its judge model and execution mode:
in the bundle (import and export), on its page, in runs.csv and in the API; no other methodology records either."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Benchmark
from runs.models import Run
from scoring.bundle import BundleError
from scoring.recount import recount
from tests.builders.admin import admin_form
from tests.builders.review import make_user
from tests.builders.site import outcomes_bundle, scored_bundle

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limit")]

SONNET = "claude-sonnet-4-6"


@pytest.fixture
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0


def _text(page: bytes) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page.decode())))


def _fact(page: bytes, anchor: str) -> str:
    found = re.search(rf'<div id="{anchor}">(.*?)</div>'.encode(), page, re.S)
    return _text(found.group(1)).strip() if found else ""


def _bundle() -> dict:
    """scored_bundle's runs, four of them with what 002 says a run records:
    - solo-t1-1: judged by claude-sonnet-4-6, in Docker;
    - full-t1-1: in local mode (the fallback), no judge model recorded, and nothing judged it (an auto task);
    - full-t2-1: judge scores 8 and 6 but no judge model recorded: judged by a model it does not name;
    - under-t1-4: a heuristic 0.5 and no judge scores: the judge was unavailable, the fallback scored it."""
    doc = scored_bundle()
    runs = {r["id"]: r for r in doc["runs"]}
    runs["solo-t1-1"].update(judge_model=SONNET, execution_mode="docker")
    runs["full-t1-1"].update(execution_mode="local")
    runs["full-t2-1"].update(judge_scores=[8, 6])
    runs["under-t1-4"].update(heuristic=0.5)
    return doc


def test_a_scored_runs_page_says_which_model_judged_it_and_how_it_was_run(load, client):
    load(_bundle())
    page = client.get("/b/sbench/r/r1/runs/solo-t1-1/").content
    assert _fact(page, "judge-model") == f"Judge model {SONNET}"
    assert _fact(page, "execution-mode").startswith("Execution Docker (“A fresh Docker container prepares")
    local = client.get("/b/sbench/r/r1/runs/full-t1-1/").content
    assert _fact(local, "execution-mode").startswith("Execution Local mode (fallback) results may vary with the host")
    assert "Results may vary based on the host environment." in _fact(local, "execution-mode")
    assert _fact(local, "judge-model") == ""  # an auto task that no judge scored: no judge to name
    unnamed = client.get("/b/sbench/r/r1/runs/full-t2-1/").content
    # Recorded nothing: said so, with the seed's default beside it, never shown as if it were the run's.
    assert _fact(unnamed, "judge-model") == (
        "Judge model not recorded (the methodology's default is Claude Sonnet: “an LLM evaluator (Claude Sonnet by "
        "default)”)"
    )
    assert _fact(unnamed, "execution-mode") == "Execution not recorded"
    fallback = client.get("/b/sbench/r/r1/runs/under-t1-4/").content
    assert _fact(fallback, "judge-model") == (
        "Judge model none: the LLM judge was unavailable, and the heuristic fallback scored this run"
    )


def test_the_api_answers_both_for_scored_runs_and_neither_elsewhere(load, client):
    load(_bundle(), outcomes_bundle())
    run = client.get("/api/benchmarks/sbench/runs/r1/solo-t1-1").json()
    assert (run["judge_model"], run["execution_mode"]) == (SONNET, "docker")
    unnamed = client.get("/api/benchmarks/sbench/runs/r1/full-t2-1").json()
    assert (unnamed["judge_model"], unnamed["execution_mode"]) == (None, None)
    listed = {r["key"]: r for r in client.get("/api/benchmarks/sbench/runs?page_size=200").json()["items"]}
    assert listed["full-t1-1"]["execution_mode"] == "local"
    other = client.get("/api/benchmarks/obench/runs/r1/ayla-flights").json()
    assert "judge_model" not in other and "execution_mode" not in other
    assert other["standing"]["board"] == "overall"  # the answer's other fields as before
    for item in client.get("/api/benchmarks/obench/runs").json()["items"]:
        assert "judge_model" not in item and "execution_mode" not in item


def _runs_csv(client, slug: str) -> dict[str, dict[str, str]]:
    rows = csv.DictReader(io.StringIO(client.get(f"/b/{slug}/download/runs.csv").content.decode()))
    return {r["run"]: r for r in rows}


def test_runs_csv_carries_both_for_scored_runs(load, client):
    load(_bundle(), outcomes_bundle())
    rows = _runs_csv(client, "sbench")
    assert (rows["solo-t1-1"]["judge_model"], rows["solo-t1-1"]["execution_mode"]) == (SONNET, "docker")
    assert (rows["full-t1-1"]["judge_model"], rows["full-t1-1"]["execution_mode"]) == ("", "local")
    assert {(r["judge_model"], r["execution_mode"]) for r in _runs_csv(client, "obench").values()} == {("", "")}


def test_the_bundle_round_trips_both_and_its_recount_is_the_board(load, client):
    load(_bundle())
    download = client.get("/b/sbench/download/bundle.json").json()
    runs = {r["id"]: r for r in download["runs"]}
    assert (runs["solo-t1-1"]["judge_model"], runs["solo-t1-1"]["execution_mode"]) == (SONNET, "docker")
    assert (runs["full-t2-1"]["judge_model"], runs["full-t2-1"]["execution_mode"]) == (None, None)
    (counted,) = recount(download)["rounds"]
    assert counted["boards"] == client.get("/api/benchmarks/sbench/rounds/r1/board").json()["data"]
    # The download imported as another benchmark stores both again, and exports the same runs.
    bundle_import(doc={**download, "benchmark": {**download["benchmark"], "slug": "sbench-copy"}})
    stored = Run.objects.get(round__benchmark__slug="sbench-copy", key="full-t1-1")
    assert (stored.judge_model, stored.execution_mode) == ("", "local")
    again = bundle_export(benchmark=Benchmark.objects.get(slug="sbench-copy"))
    assert again["runs"] == download["runs"]


def test_another_methodologys_bundle_never_carries_either():
    doc = outcomes_bundle()
    doc["runs"][0]["judge_model"] = SONNET
    doc["runs"][1]["execution_mode"] = "docker"
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert refused.value.problems == [
        "runs[0].judge_model: the outcomes methodology records no judge model: only scored (002) runs do",
        "runs[1].execution_mode: the outcomes methodology records no execution mode: only scored (002) runs do",
    ]
    assert not Benchmark.objects.filter(slug="obench").exists()
    # And on an outcomes benchmark's download, neither field is written.
    bundle_import(doc=outcomes_bundle())
    exported = bundle_export(benchmark=Benchmark.objects.get(slug="obench"))
    assert all("judge_model" not in r and "execution_mode" not in r for r in exported["runs"])


def test_a_mode_the_seed_does_not_name_is_refused():
    doc = scored_bundle()
    doc["runs"][0]["execution_mode"] = "kubernetes"
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert refused.value.problems == [
        "runs[0].execution_mode: 'kubernetes' is not an execution mode: 'docker' or 'local' (or null, not recorded)"
    ]


def test_an_editor_records_them_on_a_scored_run_and_an_outcomes_run_has_no_such_fields(load, client):
    load(_bundle(), outcomes_bundle())
    client.force_login(make_user("edna", "Editors"))
    run = Run.objects.get(round__benchmark__slug="sbench", key="full-t2-1")
    url = f"/admin/runs/run/{run.pk}/change/"
    data = admin_form(client, url)
    assert (data["judge_model"], data["execution_mode"]) == ("", "")
    data.update(judge_model=SONNET, execution_mode="local", change_reason="The sandbox log names local mode.")
    response = client.post(url, data)
    assert response.status_code == 302, _text(response.content)[:2000]
    run.refresh_from_db()
    assert (run.judge_model, run.execution_mode) == (SONNET, "local")
    other = Run.objects.get(round__benchmark__slug="obench", key="ayla-flights")
    fields = admin_form(client, f"/admin/runs/run/{other.pk}/change/")
    assert "judge_model" not in fields and "execution_mode" not in fields
