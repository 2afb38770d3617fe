"""A submitting organization trying to game the track, from outside (its submission key on the API): a trajectory
file whose task list is cut to the definitions that pass, a declared model or user simulator other than the one
the runs used, and a bundle carrying review records (verdicts, disputes, a preview link, evidence) that only the
site's own reviewers write. Each is caught; what a submission may write is runs and transcripts."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Organization
from runs.models import Run, Verdict
from submissions.catalogue import track_open
from submissions.models import Submission
from tests.builders import tau2 as t
from tests.builders.bundles import make_bundle

pytestmark = pytest.mark.django_db
URL = "/api/benchmarks/mini-tau/submissions"


def _post(key: str, data: dict):
    return Client().post(URL, data, HTTP_AUTHORIZATION=f"Bearer {key}")


def _archive(files: dict[str, bytes]):
    return SimpleUploadedFile("submission.zip", t.zipped(files), content_type="application/zip")


def _checks(answer) -> dict[str, dict]:
    return {c["name"]: c for c in answer.json()["checks"]}


def test_a_task_list_cut_to_one_definition_does_not_vouch_for_the_other_runs():
    # Tasks 1 and 2 were run on wordings the benchmark does not hold; the file lists only task 0's definition.
    w = t.mini_world()
    doc = t.results(t.baseline_sims(), tasks=t.TASKS[:1])
    answer = _post(w.key_a, {"archive": _archive(t.files(mini=doc)), "agent": "a-agent"})
    assert answer.status_code == 201, answer.content
    check = _checks(answer)["task_versions"]
    assert check["passed"] is False
    assert "mini: 2 of 3 runs are of tasks the benchmark does not hold in task set 1.0" in check["detail"]
    assert answer.json()["tier"] == "flagged"
    # Never counted: only task 0's run is written, so pass^1 is (1 + 0 + 0) / 3 = 33.3, not the claimed 66.7.
    assert list(Run.objects.filter(entry__agent__slug="a-agent").values_list("task__key", flat=True)) == ["mini-0"]
    (figure,) = answer.json()["figures"]
    assert figure["recomputed"] == pytest.approx(100 / 3) and figure["agrees"] is False


def test_a_file_without_task_definitions_counts_no_run():
    w = t.mini_world()
    doc = t.results(t.baseline_sims())
    del doc["tasks"]
    answer = _post(w.key_a, {"archive": _archive(t.files(mini=doc)), "agent": "a-agent"})
    assert answer.status_code == 201, answer.content
    assert _checks(answer)["task_versions"]["passed"] is False
    assert not Run.objects.filter(entry__agent__slug="a-agent").exists()


def test_a_declared_model_or_user_simulator_other_than_the_runs_fails_a_check_naming_both():
    w = t.mini_world()
    declared = copy.deepcopy(t.DECLARED)
    declared["model_name"] = "Orchestrator 8B"
    declared["methodology"]["user_simulator"] = "gpt-5"
    doc = t.results(t.baseline_sims(), llm="gpt-4.1-mini-2025-04-14")
    doc["info"]["user_info"]["llm"] = "gpt-4.1-2025-04-14"
    answer = _post(w.key_a, {"archive": _archive(t.files(declared, mini=doc)), "agent": "a-agent"})
    assert answer.status_code == 201, answer.content
    check = _checks(answer)["declared_models"]
    assert check["passed"] is False
    assert "model_name 'Orchestrator 8B'; the files' agent ran gpt-4.1-mini-2025-04-14" in check["detail"]
    assert "user_simulator 'gpt-5'; the files' user simulator ran gpt-4.1-2025-04-14" in check["detail"]
    assert answer.json()["tier"] == "flagged"


def test_a_declared_model_the_runs_name_passes():
    # "Mini Agent" names mini-agent, the files' agent model; the user simulator u1 is the one declared. A dated
    # release of the declared model (u1-2025-01-01) is the same model.
    w = t.mini_world()
    doc = t.results(t.baseline_sims())
    doc["info"]["user_info"]["llm"] = "u1-2025-01-01"
    answer = _post(w.key_a, {"archive": _archive(t.files(mini=doc)), "agent": "a-agent"})
    assert _checks(answer)["declared_models"] == {
        "name": "declared_models",
        "passed": True,
        "detail": "model mini-agent, user simulator u1-2025-01-01, as declared",
        "kind": "disclosure",
    }


def _bundle(**run_fields) -> dict:
    run = {"id": "x1", "round": "community", "agent": "a-agent", "task": "mini-0", "status": "completed"}
    return {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {"slug": "mini-tau", "name": "mini-tau", "methodology": "scored"},
        "agents": [{"slug": "a-agent", "name": "A agent", "organization": "Org A"}],
        "tasks": [{"key": "mini-0", "title": "mini task 0", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "community", "status": "published", "entries": [{"agent": "a-agent"}]}],
        "runs": [{**run, "score": 1.0, **run_fields}],
    }


REVIEW_RECORDS = {
    "verdicts": [{"role": "tester", "outcome": "pass", "note": "bundle verdict"}],
    "disputes": [{"reason": "other", "note": "raised by the vendor", "status": "accepted"}],
    "preview_url": "https://app.example.org/",
    "evidence": [{"kind": "recording", "url": "https://example.org/r.webm"}],
}


def test_a_bundle_carrying_review_records_is_refused_with_each_reason():
    w = t.mini_world()
    doc = _bundle(**REVIEW_RECORDS)
    doc["rounds"][0]["entries"][0]["tier"] = "verified"
    upload = SimpleUploadedFile("b.json", json.dumps(doc).encode())
    answer = _post(w.key_a, {"bundle": upload, "agent": "a-agent"})
    # Whatever was taken, no public run page shows the submitter's review records.
    for run in Run.objects.all():
        html = Client().get(f"/b/mini-tau/r/{run.round.key}/runs/{run.key}/").content.decode()
        assert "bundle verdict" not in html and "raised by the vendor" not in html
    assert answer.status_code == 422, answer.content
    problems = answer.json()["problems"]
    for field in ("verdicts", "disputes", "preview_url", "evidence[0]"):
        assert any(p.startswith(f"runs[0].{field}:") for p in problems), (field, problems)
    assert any(p.startswith("rounds[0].entries[0].tier:") for p in problems), problems
    assert not Submission.objects.exists() and not Run.objects.exists() and not Verdict.objects.exists()


def test_a_submitted_runs_page_shows_no_tester_verdict_or_dispute():
    # The same bundle with its transcript only is taken; its public run page has no review record.
    w = t.mini_world()
    transcript = {"format": "agent-leaderboard-transcript/1", "messages": [{"role": "user", "text": "hello"}]}
    doc = _bundle(transcript=transcript)
    upload = SimpleUploadedFile("b.json", json.dumps(doc).encode())
    answer = _post(w.key_a, {"bundle": upload, "agent": "a-agent"})
    assert answer.status_code == 201, answer.content
    run = Run.objects.get(entry__agent__slug="a-agent")
    page = Client().get(f"/b/mini-tau/r/community/runs/{run.key}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "hello" in html
    assert "Tester" not in html and "bundle verdict" not in html and "raised by" not in html


def test_a_bundle_run_carrying_its_own_outcome_label_is_refused_on_an_outcomes_board(
    django_capture_on_commit_callbacks,
):
    # On an outcomes board a run's outcome label is its verdict where no reviewer gave one (000 §5): a submitted
    # "outcome": "pass" would score Gamma 10.0 with no reviewer having looked. It is refused, nothing written.
    with django_capture_on_commit_callbacks(execute=True):
        bundle_import(doc=make_bundle())
    bench = Benchmark.objects.get(slug="tb")
    track_open(benchmark=bench)
    org = Organization.objects.create(slug="org-c", name="Org C")
    _, key = api_key_create(name="C", benchmark=bench, organization=org)
    run = {"id": "g1", "round": "community", "agent": "gamma", "task": "t1", "status": "completed"}
    doc = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {"slug": "tb", "name": "Test Bench", "methodology": "outcomes"},
        "agents": [{"slug": "gamma", "name": "Gamma", "organization": "Org C"}],
        "tasks": [{"key": "t1", "title": "Book a table", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "community", "status": "published", "entries": [{"agent": "gamma"}]}],
        "runs": [{**run, "outcome": "pass"}],
    }
    upload = SimpleUploadedFile("b.json", json.dumps(doc).encode())
    answer = Client().post(
        "/api/benchmarks/tb/submissions", {"bundle": upload, "agent": "gamma"}, HTTP_AUTHORIZATION=f"Bearer {key}"
    )
    assert answer.status_code == 422, answer.content
    assert any(p.startswith("runs[0].outcome:") for p in answer.json()["problems"]), answer.json()
    assert not Submission.objects.exists() and not Run.objects.filter(round__key="community").exists()
