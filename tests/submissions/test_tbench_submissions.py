"""The three real Terminal-Bench submissions (../shared/data/terminal-bench), taken the three ways in: Droid by
`import_submission`, OpenHands through the upload form as a zip, Goose through the API. Each claim of the public
table is checked against the figures recomputed from the stored trials, worked out by hand:

- accuracy is the mean over runs of resolved / 80 tasks;
- its standard error is the runs' sample standard deviation (n - 1) over sqrt(5) (tests/scoring/test_tbench.py
  shows the arithmetic for Droid, and that the population deviation would not give the public 0.0135).
"""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from leaderboard.api_keys import api_key_create
from leaderboard.models import Organization, Task
from runs.models import CheckResult, Evidence, Run, SearchEntry
from submissions.models import Submission, TaskSetVersion
from tests.builders import tbench as tb
from tests.builders.review import make_user
from tests.builders.tbench_world import DROID, GOOSE, OPENHANDS, TBENCH, claim_of, sent_folder, tbench_benchmark

pytestmark = pytest.mark.django_db


def _figures(sub: Submission) -> dict[str, tuple]:
    return {f["name"]: (f["claimed"], f["recomputed"], f["agrees"]) for f in sub.figures}


def _checks(sub: Submission) -> dict[str, bool]:
    return {c["name"]: c["passed"] for c in sub.checks}


def test_import_tbench_tasks_loads_the_dataset_once():
    bench = tbench_benchmark()
    assert (bench.methodology, bench.task_set_version, bench.pass_threshold) == ("scored", "0.1.1", 1.0)
    ids = json.loads((TBENCH / "tasks.json").read_text())["task_ids"]
    assert sorted(Task.objects.filter(benchmark=bench).values_list("key", flat=True)) == sorted(ids)
    assert set(Task.objects.filter(benchmark=bench).values_list("family", flat=True)) == {"terminal-bench-core"}
    assert len(TaskSetVersion.objects.get(benchmark=bench, version="0.1.1").tasks) == 80
    out = StringIO()
    call_command("import_tbench_tasks", str(TBENCH / "tasks.json"), benchmark="terminal-bench", stdout=out)
    assert out.getvalue().strip() == "terminal-bench (task set 0.1.1): 0 tasks created, 80 unchanged"


def test_import_tbench_tasks_reads_a_runs_metadata(tmp_path):
    meta = TBENCH / "submissions" / DROID / "tb_rc2_sonnet_1" / "run_metadata.json"
    call_command("import_tbench_tasks", str(meta), benchmark="tb", stdout=StringIO())
    assert TaskSetVersion.objects.get(benchmark__slug="tb").version == "0.1.1"
    assert Task.objects.filter(benchmark__slug="tb").count() == 80


def test_droid_by_the_command_every_check_passes_and_both_claims_agree(tmp_path):
    tbench_benchmark()
    out = StringIO()
    call_command(
        "import_submission",
        str(sent_folder(tmp_path, DROID)),
        benchmark="terminal-bench",
        organization="Factory",
        stdout=out,
    )
    sub = Submission.objects.get()
    assert (sub.format, sub.agent.name, sub.organization.name, sub.tier) == (
        "tbench",
        "Droid",
        "Factory",
        "self-reported",
    )
    assert all(_checks(sub).values()), sub.checks
    figures = _figures(sub)
    # (43+41+42+37+39)/400 = 202/400 = 0.505; stderr 0.0134629 within the claim's half unit (0.00005) of 0.0135.
    assert figures["accuracy"][:2] == (0.505, pytest.approx(0.505)) and figures["accuracy"][2] is True
    assert figures["accuracy stderr"][0] == 0.0135 and figures["accuracy stderr"][2] is True
    assert figures["accuracy stderr"][1] == pytest.approx(0.0134629, abs=1e-7)
    # pass^1 is each task's resolved share of its 5 trials, averaged over the 80 tasks: 202 / 400 = 0.505 again;
    # recomputed, not claimed: it agrees with nothing.
    assert figures["pass^1"] == (None, pytest.approx(0.505), None)
    assert "accuracy: claimed 0.505, recomputed 0.505" in out.getvalue()
    page = Client().get(sub.get_absolute_url()).content.decode()
    assert 'data-figure="pass^1"' in page and 'data-figure="any-of-5"' in page and "not claimed" in page
    # One name, one figure: the at-least-one-of-k estimate is any-of-k, said in words beside the table with the
    # name Terminal-Bench's harness gives it; no figure of the page is named pass@k.
    assert 'data-figure="pass@' not in page
    meaning = re.search(r'data-figure-kind="any-of-k">(.*?)</p>', page, re.S).group(1)
    assert "at least one of k trials drawn passes" in meaning and "pass_at_k" in meaning
    # Each trial a run: 400, its tests its checks, the agent's time its wall time; no recording was sent.
    runs = Run.objects.filter(round=sub.round)
    assert runs.count() == 400 and runs.filter(score=1.0).count() == 202
    oom = runs.get(key=f"s{sub.pk}-tb_rc2_sonnet_1-oom-a1")
    assert (oom.trial, oom.score, oom.tokens_input) == (1, 1.0, None)  # tokens reported as 0: unknown
    assert oom.wall_seconds == pytest.approx(162.699, abs=1e-3)  # 01:43:51.025008 to 01:46:33.724182
    assert list(CheckResult.objects.filter(run=oom).values_list("kind", "name", "passed")) == [
        ("test", "test_offline_model_load", True)
    ]
    assert not Evidence.objects.filter(run__round=sub.round).exists()


def test_openhands_through_the_form_agrees_and_its_recordings_are_kept(tmp_path, client):
    tbench_benchmark()
    Organization.objects.create(slug="openhands", name="OpenHands")
    client.force_login(make_user("olga", org="OpenHands"))
    folder = sent_folder(tmp_path, OPENHANDS)
    files = {str(p.relative_to(tmp_path)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    upload = SimpleUploadedFile("openhands.zip", tb.zipped(files), content_type="application/zip")
    data = {"agent": "__new__", "new_agent_name": "OpenHands", "format": "tbench", "file": upload}
    answer = client.post("/b/terminal-bench/submit/", data)
    assert answer.status_code == 302, answer.content.decode()[:3000]
    sub = Submission.objects.get()
    figures = _figures(sub)
    # Runs resolve 32, 33, 35, 32, 33: (32+33+35+32+33)/400 = 165/400 = 0.4125. Deviations from .4125 of the
    # accuracies .4 .4125 .4375 .4 .4125: -.0125 0 .025 -.0125 0; squares sum .0009375; / 4 = .000234375,
    # sqrt .0153093, / sqrt(5) = .0068465: within half of 0.00001 of the claimed 0.00685.
    assert figures["accuracy"] == (0.4125, pytest.approx(0.4125), True)
    assert figures["accuracy stderr"][1] == pytest.approx(0.0068465, abs=1e-7) and figures["accuracy stderr"][2] is True
    assert sub.tier == "self-reported" and all(_checks(sub).values())
    # Six recordings sent (oom, extract-safely and cron-broken-network of the first two runs), kept as evidence.
    casts = Evidence.objects.filter(run__round=sub.round, kind="recording")
    assert casts.count() == 6
    assert sorted({e.run.task.key for e in casts}) == ["cron-broken-network", "extract-safely", "oom"]
    assert "terminal recordings: 6 sent of the 400 the trials reference" in sub.notes
    # Their text is searched with the other transcripts.
    assert SearchEntry.objects.filter(run__round=sub.round, text__contains="INSTALL_SUCCESS").exists()


def test_goose_through_the_api_its_stderr_differs_at_its_rounding(tmp_path):
    tbench_benchmark()
    org = Organization.objects.create(slug="block", name="Block")
    _, key = api_key_create(name="Block", benchmark=tbench_benchmark(), organization=org)
    folder = sent_folder(tmp_path, GOOSE)
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    upload = SimpleUploadedFile("goose.zip", tb.zipped(files), content_type="application/zip")
    answer = Client().post(
        "/api/benchmarks/terminal-bench/submissions",
        {"archive": upload, "agent_name": "Goose"},
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    figures = {f["name"]: f for f in body["figures"]}
    # (39+36+39+34+33)/400 = 181/400 = 0.4525 agrees. Deviations from .4525 of .4875 .45 .4875 .425 .4125:
    # .035 -.0025 .035 -.0275 -.04; squares sum .0048125; / 4 = .00120313, sqrt .0346861, / sqrt(5) = .0155121.
    # Claimed 0.015 (three decimals: within 0.0005): .0155121 - .015 = .0005121 is past it: differs.
    assert (figures["accuracy"]["claimed"], figures["accuracy"]["agrees"]) == (0.4525, True)
    stderr = figures["accuracy stderr"]
    assert (stderr["claimed"], stderr["agrees"]) == (0.015, False)
    assert stderr["recomputed"] == pytest.approx(0.0155121, abs=1e-7)
    assert body["tier"] == "flagged" and body["format"] == "tbench"
    # Its runs came as summaries (each with its 80 trials inline): no tb.lock, no metadata to check against.
    checks = {c["name"]: c for c in body["checks"]}
    assert checks["tb_timeouts"]["passed"] is False and "no tb.lock" in checks["tb_timeouts"]["detail"]
    assert checks["tb_trials_complete"]["passed"] is True and checks["tb_summaries_agree"]["passed"] is True
    listed = Client().get("/api/benchmarks/terminal-bench/submissions").json()
    # Five trials of each task (five runs, one attempt each): pass^1 to pass^5 and any-of-2 to any-of-5, named as
    # the boards name them (any-of-1 is pass^1); none is named pass@k, 002's share of an agent's trials that pass.
    assert [f["name"] for f in listed[0]["figures"]] == ["accuracy", "accuracy stderr"] + [
        f"pass^{k}" for k in range(1, 6)
    ] + [f"any-of-{k}" for k in range(2, 6)]


def test_a_claim_on_the_form_is_taken_over_claims_json(tmp_path):
    tbench_benchmark()
    folder = sent_folder(tmp_path, DROID, claims={**claim_of(DROID), "accuracy": 0.6})
    call_command(
        "import_submission",
        str(folder),
        benchmark="terminal-bench",
        organization="Factory",
        claim=["accuracy=0.505"],
        stdout=StringIO(),
    )
    assert _figures(Submission.objects.get())["accuracy"][::2] == (0.505, True)


def test_claims_given_on_the_upload_form_are_checked_at_their_decimals(tmp_path, client):
    # Five hand-made runs of toy-bench's two tasks, alpha resolved in each, beta in none: accuracy 5/10 = 0.5 in
    # every run, so its standard error is 0. Claimed on the form as 0.50 (agrees) and 0.01 (0 is 0.01 away,
    # past half of 0.01: differs).
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(list(tb.TASKS)))
    call_command(
        "import_tbench_tasks", str(ids), benchmark="toy", dataset=tb.DATASET, version=tb.VERSION, stdout=StringIO()
    )
    call_command("open_submission_track", benchmark="toy", stdout=StringIO())
    Organization.objects.create(slug="acme", name="Acme")
    client.force_login(make_user("ann", org="Acme"))
    page = client.get("/b/toy/submit/").content.decode()
    assert 'name="claim_accuracy"' in page and 'name="claim_accuracy_stderr"' in page
    upload = SimpleUploadedFile("runs.zip", tb.zipped(tb.folder()), content_type="application/zip")
    data = {"agent": "__new__", "new_agent_name": "Toy", "format": "tbench", "file": upload}
    answer = client.post("/b/toy/submit/", {**data, "claim_accuracy": "0.50", "claim_accuracy_stderr": "0.01"})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    figures = _figures(Submission.objects.get())
    assert figures["accuracy"] == (0.5, 0.5, True) and figures["accuracy stderr"] == (0.01, 0.0, False)
    assert Submission.objects.get().tier == "flagged"


def test_a_track_takes_the_formats_it_names(tmp_path, client):
    # Opened for Terminal-Bench runs only: the form offers that format alone, and a τ² folder is refused.
    tbench_benchmark()
    with pytest.raises(CommandError, match="no format tb-runs"):
        call_command("open_submission_track", benchmark="terminal-bench", formats="tb-runs", stdout=StringIO())
    Organization.objects.create(slug="acme", name="Acme")
    client.force_login(make_user("ann", org="Acme"))
    page = client.get("/b/terminal-bench/submit/").content.decode()
    assert 'value="tbench"' in page and 'value="tau2"' not in page
    from tests.builders import tau2 as t

    upload = SimpleUploadedFile("s.zip", t.zipped(t.files()), content_type="application/zip")
    refused = client.post(
        "/b/terminal-bench/submit/", {"agent": "__new__", "new_agent_name": "X", "format": "tau2", "file": upload}
    )
    assert refused.status_code == 400 and not Submission.objects.exists()
