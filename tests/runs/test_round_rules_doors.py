"""Each round rule once, on the stored state, behind every door (scoring.round_rules, docs/doors.md): the same
violating change sent through the admin, `import_bundle`, the admin's import page, the upload API and, where it
applies, a submission, gets the same refusal, naming the rule, the round and each run, and writes nothing.

Two worlds: a weekly table (004) of week 41, and the review world of tests/builders/review.py (000, a 48-hour
vendor window)."""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from bundles.importer import bundle_import
from bundles.inspect_logs import logs_to_bundle, read_logs
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, ChangelogEntry, Organization, Round, Task
from runs.models import Run, Verdict
from runs.services import dispute_decide, dispute_file, rerun_create, round_enter_preview, verdict_record
from scoring import methodologies
from scoring.round_rules import document_facts, round_breaches
from submissions.catalogue import track_open
from submissions.models import Submission
from tests.builders import tau2
from tests.builders.doors import BUNDLE_DOORS, Doors, assert_refused, stored
from tests.builders.review import BENCH, ROUND, make_people, make_user, make_world
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

# --- the weekly table ----------------------------------------------------------------------------------------

# 004: "The agents in one table are run in the same week." Week 41 of 2026 starts on Monday 5 October: its week is
# 2026-10-05 00:00:00 UTC up to, not including, 2026-10-12 00:00:00 UTC. Every run started on Tuesday 6 October,
# 09:00 UTC, a day and nine hours into it.
STARTED = "2026-10-06T09:00:00Z"
RUNS = ("ava-inbox", "ava-trip", "bo-inbox", "bo-trip")


def weekly_doc() -> dict:
    """Two agents, two tasks, one run each, all in week 41; the trip task's prompt changed from Lisbon (1.0) to
    Porto (2.0), and every run ran 1.0."""
    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": "weekly", "params": {"preview_hours": 0}},
        "agents": [{"slug": "ava", "name": "Ava"}, {"slug": "bo", "name": "Bo"}],
        "tasks": [
            {
                "key": "trip",
                "title": "Trip plan",
                "version": "2.0",
                "kind": "core",
                "prompt": "Plan a weekend in Porto.",
                "history": [{"version": "1.0", "prompt": "Plan a weekend in Lisbon."}],
            },
            {"key": "inbox", "title": "Inbox", "version": "1.0", "kind": "core", "prompt": "Sort my inbox."},
        ],
        "rounds": [
            {
                "key": "w41",
                "name": "Week 41",
                "status": "draft",
                "starts_on": "2026-10-05",
                "entries": [{"agent": "ava"}, {"agent": "bo"}],
            }
        ],
        "runs": [
            {
                "id": f"{agent}-{task}",
                "round": "w41",
                "agent": agent,
                "task": task,
                "task_version": "1.0",
                "status": "completed",
                "outcome": "pass",
                "started_at": STARTED,
            }
            for agent in ("ava", "bo")
            for task in ("trip", "inbox")
        ],
    }


@pytest.fixture
def doors(client, tmp_path):
    client.force_login(make_user("door-editor", "Editors"))
    return Doors(client, tmp_path)


@pytest.fixture
def weekly(doors):
    bundle_import(doc=weekly_doc())
    return Round.objects.get(benchmark__slug="wk", key="w41")


def _week_unchanged(rnd: Round) -> None:
    assert Round.objects.get(pk=rnd.pk).starts_on == date(2026, 10, 5)


@pytest.mark.parametrize("door", ["admin round form", *BUNDLE_DOORS])
def test_a_change_that_moves_the_week_is_refused_naming_the_runs_it_leaves_outside(doors, weekly, door):
    # starts_on 2026-10-19: the week becomes 19 Oct 00:00 to 25 Oct 23:59:59 UTC, and the four runs of 6 Oct
    # 09:00 UTC started 12 days 15 hours before it.
    if door == "admin round form":
        said = doors.admin(f"/admin/leaderboard/round/{weekly.pk}/change/", starts_on="2026-10-19")
    else:
        doc = weekly_doc()
        doc["rounds"][0]["starts_on"] = "2026-10-19"
        said = doors.bundle(door, doc)
    assert_refused(said, "same_week", "wk/w41", RUNS)
    week = "outside the round's week (2026-10-19 00:00:00 to 2026-10-25 23:59:59 UTC)"
    assert f"run bo-trip started 2026-10-06 09:00:00 UTC, {week}" in said
    _week_unchanged(weekly)


@pytest.mark.parametrize("door", ["admin run form", *BUNDLE_DOORS])
def test_a_weekly_run_without_a_start_time_is_refused(doors, weekly, door):
    run = Run.objects.get(key="bo-trip")
    if door == "admin run form":
        said = doors.admin(f"/admin/runs/run/{run.pk}/change/", started_at_0="", started_at_1="")
    else:
        doc = weekly_doc()
        del doc["runs"][2]["started_at"]  # bo-trip
        said = doors.bundle(door, doc)
    assert_refused(said, "same_week", "wk/w41", ("bo-trip",))
    assert "run bo-trip has no start time (started_at), so its week cannot be checked" in said
    assert Run.objects.get(pk=run.pk).started_at == datetime(2026, 10, 6, 9, tzinfo=UTC)


@pytest.mark.parametrize("door", ["admin round form", *BUNDLE_DOORS])
def test_a_weekly_round_without_a_start_date_is_refused(doors, weekly, door):
    if door == "admin round form":
        said = doors.admin(f"/admin/leaderboard/round/{weekly.pk}/change/", starts_on="")
    else:
        doc = weekly_doc()
        del doc["rounds"][0]["starts_on"]
        said = doors.bundle(door, doc)
    assert_refused(said, "same_week", "wk/w41", RUNS)
    assert "the round has no start date (starts_on), so its week is unknown" in said
    _week_unchanged(weekly)


@pytest.mark.parametrize("door", ["admin run form", *BUNDLE_DOORS])
def test_a_weekly_task_run_in_two_versions_is_refused(doors, weekly, door):
    # 004: "The prompt is the same, word for word, for every agent": Ava's trip run had "Lisbon" (1.0); Bo's
    # changed to 2.0 would have had "Porto".
    run = Run.objects.get(key="bo-trip")
    if door == "admin run form":
        said = doors.admin(f"/admin/runs/run/{run.pk}/change/", task_version="2.0")
    else:
        doc = weekly_doc()
        doc["runs"][2]["task_version"] = "2.0"  # bo-trip
        said = doors.bundle(door, doc)
    assert_refused(said, "one_prompt", "wk/w41", ("ava-trip", "bo-trip"))
    assert "task trip is run in 2 versions (v1.0: ava-trip; v2.0: bo-trip)" in said
    assert Run.objects.get(pk=run.pk).task_version == "1.0"


# --- a submission to the weekly table (its track open on week 41) ---------------------------------------------

SUBMISSION_DOORS = ("submission API", "import_submission")


@pytest.fixture
def weekly_track(weekly):
    """Week 41 takes submissions: Cara Co sends its agent Cara's runs with its submission key."""
    org = Organization.objects.create(slug="cara-co", name="Cara Co")
    track_open(benchmark=weekly.benchmark, round_key="w41")
    return api_key_create(name="Cara Co", benchmark=weekly.benchmark, organization=org)[1]


def _cara(**runs: dict) -> dict:
    """Cara's submission to week 41: one run a task given (task key -> the run's fields)."""
    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": "weekly"},
        "agents": [{"slug": "cara", "name": "Cara"}],
        "tasks": [{"key": k, "title": k.title(), "version": "1.0", "kind": "core"} for k in runs],
        "rounds": [{"key": "w41", "status": "draft", "entries": [{"agent": "cara"}]}],
        "runs": [
            {"id": f"cara-{task}", "round": "w41", "agent": "cara", "task": task, "status": "completed", **fields}
            for task, fields in runs.items()
        ],
    }


def _submitted(door: str, key: str, doc: dict, folder) -> str:
    """`doc` sent as Cara Co's submission by `door`; what the door answered (refused)."""
    if door == "submission API":
        upload = SimpleUploadedFile("cara.json", json.dumps(doc).encode())
        answer = Client().post(
            "/api/benchmarks/wk/submissions", {"bundle": upload, "agent": "cara"}, HTTP_AUTHORIZATION=f"Bearer {key}"
        )
        assert answer.status_code == 422, answer.content
        return "\n".join(answer.json()["problems"])
    path = folder / "cara.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CommandError) as refused:
        args = {"benchmark": "wk", "organization": "Cara Co", "agent": "cara", "round_key": "w41"}
        call_command("import_submission", str(path), **args, stdout=io.StringIO())
    return str(refused.value)


def _nothing_submitted(weekly: Round) -> None:
    assert not Submission.objects.exists()
    assert sorted(Run.objects.filter(round=weekly).values_list("key", flat=True)) == sorted(RUNS)


@pytest.mark.parametrize("door", SUBMISSION_DOORS)
@pytest.mark.parametrize(
    ("started", "said"),
    [
        # 12 October 00:00:00 UTC is the first instant after the week (5 October 00:00 + 7 days).
        ("2026-10-12T00:00:00Z", "started 2026-10-12 00:00:00 UTC, outside the round's week (2026-10-05 00:00:00 to "
         "2026-10-11 23:59:59 UTC)"),
        (None, "has no start time (started_at), so its week cannot be checked"),
    ],
)  # fmt: skip
def test_a_submitted_run_outside_the_week_or_without_a_start_time_is_refused(
    weekly, weekly_track, tmp_path, door, started, said
):
    # 004: "The agents in one table are run in the same week": Cara's inbox run, sent to week 41.
    run = {"task_version": "1.0", "score": 1.0, **({"started_at": started} if started else {})}
    answer = _submitted(door, weekly_track, _cara(inbox=run), tmp_path)
    # Its run is stored under the submission's own id (s<its number>-cara-inbox).
    assert_refused(answer, "same_week", "wk/w41")
    assert re.search(rf"run s\d+-cara-inbox {re.escape(said)}", answer), answer
    _nothing_submitted(weekly)


@pytest.mark.parametrize("door", SUBMISSION_DOORS)
def test_a_submitted_run_of_another_version_of_a_weekly_task_is_refused(weekly, weekly_track, tmp_path, door):
    # 004: "The prompt is the same, word for word, for every agent": Ava and Bo ran the trip task's 1.0 ("Lisbon");
    # Cara's run, of the task as it stands now (2.0, "Porto"), in the same week, would put two prompts in one table.
    run = {"task_version": "2.0", "score": 1.0, "started_at": STARTED}
    answer = _submitted(door, weekly_track, _cara(trip=run), tmp_path)
    assert_refused(answer, "one_prompt", "wk/w41", ("ava-trip", "bo-trip"))
    assert re.search(r"task trip is run in 2 versions \(v1\.0: ava-trip, bo-trip; v2\.0: s\d+-cara-trip\)", answer)
    _nothing_submitted(weekly)


# --- Inspect logs and the weekly table -------------------------------------------------------------------------

# fixtures/inspect-quiz.eval: the agent scripted/steady on three samples (quiz.3, quiz.add, quiz.capital), two epochs
# each: six runs, none with a start time (the conversion reads none: bundles.inspect_logs).
QUIZ = Path(__file__).resolve().parents[2] / "fixtures" / "inspect-quiz.eval"
QUIZ_RUNS = tuple(f"scripted-steady.quiz.{t}.{e}" for t in ("3", "add", "capital") for e in (1, 2))


@pytest.fixture
def weekly_quiz(doors):
    """A weekly table of the quiz's three questions, week 41 (starting Monday 5 October 2026), open to
    submissions from Scripted Co."""
    questions = {
        "3": "Which planet is known as the red planet?",
        "add": "What is 17 + 25? Answer with the number.",
        "capital": "What is the capital of Portugal?",
    }
    tasks = [{"key": f"quiz.{k}", "title": f"quiz {k}", "version": "1.0", "kind": "core", "prompt": p}
             for k, p in questions.items()]  # fmt: skip
    doc = weekly_doc() | {"tasks": tasks, "runs": []}
    doc["benchmark"] = {**doc["benchmark"], "slug": "wkq"}
    bundle_import(doc=doc)
    bench = Benchmark.objects.get(slug="wkq")
    track_open(benchmark=bench, round_key="w41")
    org = Organization.objects.create(slug="scripted-co", name="Scripted Co")
    return api_key_create(name="Scripted Co", benchmark=bench, organization=org)[1]


@pytest.mark.parametrize("door", SUBMISSION_DOORS)
def test_inspect_logs_submitted_to_a_weekly_table_are_refused_by_the_same_week_rule(
    weekly_quiz, tmp_path, door
):  # fmt: skip
    # 004: "The agents in one table are run in the same week": none of the six runs says when it started, so none
    # can be checked against week 41; the submission is refused whole, naming each.
    if door == "submission API":
        with QUIZ.open("rb") as log:
            answer = Client().post(
                "/api/benchmarks/wkq/submissions",
                {"logs": [log], "agent": "scripted-steady", "round": "w41"},
                HTTP_AUTHORIZATION=f"Bearer {weekly_quiz}",
            )
        assert answer.status_code == 422, answer.content
        said = "\n".join(answer.json()["problems"])
    else:
        with pytest.raises(CommandError) as refused:
            args = {"benchmark": "wkq", "organization": "Scripted Co", "agent": "scripted-steady", "round_key": "w41"}
            call_command("import_submission", str(QUIZ), **args, stdout=io.StringIO())
        said = str(refused.value)
    assert_refused(said, "same_week", "wkq/w41")
    for run in QUIZ_RUNS:  # stored under the submission's own ids (s<its number>-...)
        assert re.search(rf"run s\d+-{re.escape(run)} has no start time \(started_at\)", said), run
    assert not Submission.objects.exists()
    assert not Run.objects.filter(round__benchmark__slug="wkq").exists()


def test_import_inspect_into_a_weekly_table_is_refused_whole(weekly_quiz):
    # import_inspect writes `scored` rounds only (Inspect scores make scored boards), so the week's rules (same
    # week, one prompt) are never left to it: a weekly table is refused before anything is written.
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_inspect", str(QUIZ), benchmark="wkq", round_key="w41", stdout=io.StringIO(), stderr=err)
    assert "benchmark 'wkq' uses the 'weekly' methodology; Inspect scores make `scored` boards" in err.getvalue()
    assert not Run.objects.filter(round__benchmark__slug="wkq").exists()


def test_an_inspect_import_brings_nothing_a_round_rule_reads():
    # Why no round rule can be broken by what import_inspect (or the upload API's Inspect door) brings: a scored
    # round (the week's rules are the weekly methodology's), left a draft (no publication: the vendor window), runs
    # with no start or due time, no verdicts (the tester's note, effects due) and no disputes or re-runs. When the
    # conversion comes to carry any of them, this fails, and that rule needs its test through the Inspect door.
    doc = logs_to_bundle(read_logs([(QUIZ.name, QUIZ)]), benchmark="quiz", round_key="r1").doc
    assert doc["benchmark"]["methodology"] == "scored" and not methodologies.get("scored").same_week
    (round_doc,) = doc["rounds"]
    assert round_doc["status"] == "draft" and not {"preview_started_at", "published_at"} & set(round_doc)
    read = {"started_at", "due_at", "verdicts", "disputes", "rerun_of"}
    assert [sorted(read & set(run)) for run in doc["runs"]] == [[]] * len(QUIZ_RUNS)
    assert [round_breaches(f) for f in document_facts(doc)] == [[]]


# --- the review world: re-runs, the vendor window, the tester's note, effects due later, the task set ----------


@pytest.fixture
def review(doors):
    w = {**make_world(), **make_people()}
    for run in Run.objects.filter(round=w["round"]):
        at = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="as seen", now=at)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=at)
    round_enter_preview(round=w["round"], by=w["editor"])
    return w


def _disputed(w) -> None:
    """Acme disputes two runs in the preview: the editors reject the trip one and accept the inbox one, which is
    re-run (000 §6: "A disputed run may be re-run once")."""
    trip = dispute_file(run=w["acme-trip"], user=w["vendor"], reason="environment", note="The network was down.")
    dispute_decide(dispute=trip, accept=False, by=w["editor"], note="The log shows a normal network.")
    inbox = dispute_file(run=w["acme-inbox"], user=w["vendor"], reason="wrong_version", note="We shipped 1.3.")
    dispute_decide(dispute=inbox, accept=True, by=w["editor"])
    rerun_create(run=w["acme-inbox"], by=w["editor"])


def _with_run(doc: dict, **run) -> dict:
    base = {"round": ROUND, "agent": "acme-agent", "status": "completed"}
    doc["runs"].append({**base, **run})
    return doc


@pytest.mark.parametrize("door", ["admin re-run action", *BUNDLE_DOORS])
def test_a_rerun_after_a_rejected_dispute_is_refused(doors, review, door):
    # The trip run passed (tester and second: pass): a re-run after the rejected dispute would replace its pass.
    _disputed(review)
    if door == "admin re-run action":
        said = doors.action("/admin/runs/run/", "create_reruns", review["acme-trip"].pk)
    else:
        doc = _with_run(stored(BENCH, upload=door == "upload API"), id="acme-trip-rerun", task="trip")
        doc["runs"][-1]["rerun_of"] = "acme-trip"
        said = doors.bundle(door, doc)
    assert_refused(said, "rerun", f"{BENCH}/{ROUND}", ("acme-trip",))
    assert "re-runs acme-trip, whose dispute no editor accepted (its dispute was rejected)" in said
    assert not Run.objects.filter(rerun_of=review["acme-trip"]).exists()


@pytest.mark.parametrize("door", ["admin re-run action", *BUNDLE_DOORS])
def test_a_second_rerun_is_refused_in_words_not_with_an_error(doors, review, door):
    _disputed(review)
    if door == "admin re-run action":
        said = doors.action("/admin/runs/run/", "create_reruns", review["acme-inbox"].pk)
    else:
        doc = _with_run(stored(BENCH, upload=door == "upload API"), id="acme-inbox-rerun-2", task="inbox")
        doc["runs"][-1]["rerun_of"] = "acme-inbox"
        said = doors.bundle(door, doc)
    assert_refused(said, "rerun", f"{BENCH}/{ROUND}", ("acme-inbox",))
    assert "a run is re-run once" in said
    assert list(Run.objects.filter(rerun_of=review["acme-inbox"]).values_list("key", flat=True)) == ["acme-inbox-rerun"]


@pytest.mark.parametrize("door", ["admin run form", *BUNDLE_DOORS])
def test_a_rerun_numbered_as_another_trial_is_refused(doors, review, door):
    # 000 §6: "the re-run counts". Where an agent has several trials of a task the latest counts, so a re-run
    # numbered below its run (a bundle's re-run with no trial is trial 1) would leave an older trial counting in its
    # place. The inbox run is trial 1 and its re-run takes trial 1; numbered 2 it is refused at every door.
    _disputed(review)
    rerun = Run.objects.get(rerun_of=review["acme-inbox"])
    assert rerun.trial == review["acme-inbox"].trial == 1  # the admin's re-run takes its run's trial
    if door == "admin run form":
        said = doors.admin(f"/admin/runs/run/{rerun.pk}/change/", trial="2")
    else:
        doc = stored(BENCH, upload=door == "upload API")
        (row,) = [r for r in doc["runs"] if r["id"] == rerun.key]
        row["trial"] = 2
        said = doors.bundle(door, doc)
    assert_refused(said, "rerun", f"{BENCH}/{ROUND}", (rerun.key, "acme-inbox"))
    assert f"run {rerun.key} re-runs acme-inbox (trial 1) as trial 2; a re-run takes the trial of" in said
    assert Run.objects.get(pk=rerun.pk).trial == 1


def test_a_submission_carrying_a_rerun_is_refused():
    # A submission carries no disputes (the site's), so no run of it was disputed and accepted.
    w = tau2.mini_world()
    runs = [
        {"id": "x1", "round": "community", "agent": "a-agent", "task": "mini-0", "status": "completed", "score": 1.0},
        {"id": "x1-again", "round": "community", "agent": "a-agent", "task": "mini-0", "status": "completed"},
    ]
    # Trial 2, so the submission's checks take it as one run each (two of trial 1 would be a best-of, held back).
    runs[1] |= {"score": 0.0, "rerun_of": "x1", "trial": 2}
    bundle = {
        "benchmark": {"slug": "mini-tau", "name": "mini-tau", "methodology": "scored"},
        "agents": [{"slug": "a-agent", "name": "A agent"}],
        "tasks": [{"key": "mini-0", "title": "mini task 0", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "community", "status": "published", "published_at": "2026-01-01T00:00:00Z"}],
        "runs": runs,
    }
    bundle["rounds"][0]["entries"] = [{"agent": "a-agent"}]
    upload = SimpleUploadedFile("b.json", json.dumps(bundle).encode())
    url, key = "/api/benchmarks/mini-tau/submissions", f"Bearer {w.key_a}"
    answer = Client().post(url, {"bundle": upload, "agent": "a-agent"}, HTTP_AUTHORIZATION=key)
    assert answer.status_code == 422, answer.content
    said = "\n".join(answer.json()["problems"])
    # Its runs are stored under the submission's own ids (s<its number>-x1, ...).
    assert_refused(said, "rerun", "mini-tau/community")
    assert re.search(r"run s\d+-x1-again re-runs s\d+-x1, whose dispute no editor accepted \(it has no dispute\)", said)
    assert not Submission.objects.exists() and not Run.objects.filter(round__key="community").exists()


@pytest.mark.parametrize("door", ["admin publish action", "import_bundle", "admin import page"])
def test_publication_before_the_vendor_window_has_passed_is_refused(doors, review, door):
    # 000 §6: "Vendors receive their results 48 hours before publication". The preview started 10 hours ago: 38
    # hours are left.
    rnd = Round.objects.get(pk=review["round"].pk)
    started = timezone.now() - timedelta(hours=10)
    Round.objects.filter(pk=rnd.pk).update(preview_started_at=started)
    if door == "admin publish action":
        said = doors.action("/admin/leaderboard/round/", "publish", rnd.pk)
    else:
        doc = stored(BENCH)
        published = started + timedelta(hours=10)
        doc["rounds"][0].update(status="published", published_at=published.isoformat())
        said = doors.bundle(door, doc)
        assert "10 hours after its vendor preview started" in said
    assert_refused(said, "vendor_window", f"{BENCH}/{ROUND}")
    assert "the benchmark's vendor window is 48 hours" in said
    assert Round.objects.get(pk=rnd.pk).status == "preview"


def test_publication_by_an_import_with_no_preview_at_all_is_refused(doors, review):
    doc = stored(BENCH)
    doc["rounds"][0].update(status="published", preview_started_at=None, published_at="2026-10-12T10:00:00Z")
    said = doors.command(doc)
    assert_refused(said, "vendor_window", f"{BENCH}/{ROUND}")
    assert "published 2026-10-12 10:00:00 UTC with no vendor preview; the benchmark's vendor window is 48 hours" in said
    assert Round.objects.get(pk=review["round"].pk).status == "preview"


def test_an_upload_never_publishes(doors, review):
    # The upload API's own, stricter rule: publication is an editor's step (its window is asked there).
    doc = stored(BENCH, upload=True)
    doc["rounds"][0]["status"] = "published"
    assert "uploads go into draft or preview rounds" in doors.upload(doc)


@pytest.fixture
def unreviewed(doors):
    return {**make_world(), **make_people()}


@pytest.mark.parametrize("door", ["admin verdict form", *BUNDLE_DOORS])
@pytest.mark.parametrize("note", ["  ", None])
def test_a_tester_verdict_without_a_note_is_refused(doors, unreviewed, door, note):
    # 000 §5: "The tester records an outcome with a short note."
    run = unreviewed["acme-trip"]
    if door == "admin verdict form":
        doors.client.force_login(unreviewed["tester"])
        url = f"/admin/runs/verdict/add/?run={run.pk}&role=tester"
        said = doors.admin(url, run=str(run.pk), role="tester", outcome="pass", note=note or "")
    else:
        doc = stored(BENCH, upload=door == "upload API")
        verdict = {"role": "tester", "outcome": "pass", **({"note": note} if note is not None else {})}
        next(r for r in doc["runs"] if r["id"] == "acme-trip")["verdicts"] = [verdict]
        said = doors.bundle(door, doc)
    assert_refused(said, "tester_note", f"{BENCH}/{ROUND}", ("acme-trip",))
    assert "the tester's verdict on run acme-trip has no note" in said
    assert not Verdict.objects.filter(run=run).exists()


@pytest.mark.parametrize("door", ["admin verdict form", *BUNDLE_DOORS])
def test_a_verdict_before_the_effects_are_due_is_refused(doors, unreviewed, door):
    # 000 §2: "judged when those effects are due". The reminder run is due in 3 days; a verdict now is 3 days early.
    run = unreviewed["acme-remind"]
    if door == "admin verdict form":
        doors.client.force_login(unreviewed["tester"])
        url = f"/admin/runs/verdict/add/?run={run.pk}&role=tester"
        said = doors.admin(url, run=str(run.pk), role="tester", outcome="pass", note="The reminder came.")
    else:
        doc = stored(BENCH, upload=door == "upload API")
        an_hour_early = (run.due_at - timedelta(hours=1)).isoformat()
        verdict = {"role": "tester", "outcome": "pass", "note": "The reminder came.", "at": an_hour_early}
        next(r for r in doc["runs"] if r["id"] == "acme-remind")["verdicts"] = [verdict]
        said = doors.bundle(door, doc)
    assert_refused(said, "effects_due", f"{BENCH}/{ROUND}", ("acme-remind",))
    assert f"before its effects are due ({run.due_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC)" in said
    assert not Verdict.objects.filter(run=run).exists()


def test_an_imported_verdict_without_a_time_is_recorded_now_and_refused_before_the_due_time(doors, unreviewed):
    doc = stored(BENCH)
    verdict = {"role": "tester", "outcome": "pass", "note": "The reminder came."}
    next(r for r in doc["runs"] if r["id"] == "acme-remind")["verdicts"] = [verdict]
    assert_refused(doors.command(doc), "effects_due", f"{BENCH}/{ROUND}", ("acme-remind",))


def test_a_later_due_time_than_the_verdicts_is_refused_and_the_run_page_says_when_effects_were_due(
    client, doors, review
):
    run = Run.objects.get(pk=review["acme-remind"].pk)
    later = run.due_at + timedelta(days=1)
    said = doors.admin(f"/admin/runs/run/{run.pk}/change/", due_at_0=f"{later:%Y-%m-%d}", due_at_1=f"{later:%H:%M:%S}")
    assert_refused(said, "effects_due", f"{BENCH}/{ROUND}", ("acme-remind",))
    # Published, its page says when the effects were due (UTC).
    Round.objects.filter(pk=review["round"].pk).update(
        status="published", preview_started_at=timezone.now() - timedelta(days=3), published_at=timezone.now()
    )
    compute_all()
    page = Client().get(f"/b/{BENCH}/r/{ROUND}/runs/acme-remind/").content.decode()
    assert f"<dt>Effects due</dt><dd>{run.due_at.astimezone(UTC):%-d %b %Y, %H:%M} UTC</dd>" in page


@pytest.mark.parametrize("door", ["admin task form", "import_bundle", "admin import page", "upload API"])
def test_two_tasks_added_to_a_published_task_set_make_it_1_1_with_the_changelog_line(doors, review, door):
    # 000 §9: "Adding tasks is a minor version change (v1.1)". Round 1 is published on task set 1.0.
    Round.objects.filter(pk=review["round"].pk).update(
        status="published", preview_started_at=timezone.now() - timedelta(days=3), published_at=timezone.now()
    )
    bench = Benchmark.objects.get(slug=BENCH)
    new = [{"key": k, "title": k.title(), "version": "1.0", "kind": "core"} for k in ("groceries", "expenses")]
    if door == "admin task form":
        for t in new:
            answer = doors.client.post("/admin/leaderboard/task/add/", _task_form(bench, t["key"]))
            assert answer.status_code == 302, answer.content.decode()[-3000:]
    else:
        doc = stored(BENCH, upload=door == "upload API")
        doc["tasks"] += new
        if door == "upload API":
            doc["rounds"] = []  # an upload writes no published round
            doc["runs"] = []
        sent = {"import_bundle": _command_ok, "admin import page": _page_ok, "upload API": _upload_ok}[door]
        sent(doors, doc)
    assert Benchmark.objects.get(pk=bench.pk).task_set_version == "1.1"
    assert Task.objects.filter(benchmark=bench, key__in=["groceries", "expenses"]).count() == 2
    logged = list(ChangelogEntry.objects.filter(round=review["round"]).values_list("what", flat=True))
    if door == "admin task form":  # one at a time: the second joins 1.1
        assert sorted(logged) == [
            "Task expenses added; the task set is v1.1",
            "Task groceries added; the task set is v1.1 (was v1.0)",
        ]
    else:
        assert logged == ["Tasks groceries, expenses added; the task set is v1.1 (was v1.0)"]


def _task_form(bench: Benchmark, key: str) -> dict:
    """The admin's "add task" form as tests/review/test_review_decisions.py posts it."""
    return {
        "benchmark": bench.pk,
        "key": key,
        "title": key.title(),
        "kind": "core",
        "version": "1.0",
        "dimensions": "[]",
        "tags": "[]",
        "time_limit_min": "30",
        "position": "9",
        "change_reason": "",
        "versions-TOTAL_FORMS": "0",
        "versions-INITIAL_FORMS": "0",
        "versions-MIN_NUM_FORMS": "0",
        "versions-MAX_NUM_FORMS": "1000",
    }


def _command_ok(doors: Doors, doc: dict) -> None:
    path = doors.folder / "tasks.json"
    path.write_text(json.dumps(doc))
    call_command("import_bundle", str(path), stdout=io.StringIO())


def _page_ok(doors: Doors, doc: dict) -> None:
    said = doors.import_page(doc)
    assert "Imported:" in said, said[-3000:]


def _upload_ok(doors: Doors, doc: dict) -> None:
    bench = Benchmark.objects.get(slug=doc["benchmark"]["slug"])
    key = api_key_create(name="CI", benchmark=bench)[1]
    answer = Client().post(
        f"/api/benchmarks/{bench.slug}/bundle", json.dumps(doc), content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )  # fmt: skip
    assert answer.status_code == 200, answer.content
