"""Review and preview (seed 000 §5, §6, §9): the tester's note, disagreement on the counted outcome, the
vendor window that starts when every run is decided, re-runs that count once they have results, and the
task set's minor version."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from leaderboard.models import Benchmark, ChangelogEntry, Round, Task
from recompute.boards import compute_round_boards, round_document
from runs.models import Dispute, Run, Verdict
from runs.selectors import review_stage
from runs.services import (
    dispute_decide,
    dispute_file,
    rerun_create,
    round_enter_preview,
    round_publish,
    run_update,
    verdict_change,
    verdict_record,
)
from tests.builders.review import make_people, make_world

pytestmark = pytest.mark.django_db

ALL = ("acme-trip", "acme-inbox", "other-trip", "acme-remind")


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def decide(w, keys=ALL, outcome="pass"):
    for key in keys:
        run = Run.objects.get(round=w["round"], key=key)
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", reviewer=w["tester"], outcome=outcome, note="as seen", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome=outcome, now=now)


def rnd(w) -> Round:
    return Round.objects.get(pk=w["round"].pk)


# --- the tester's note ------------------------------------------------------------------------------------------


def test_the_admin_refuses_a_tester_verdict_without_a_note(client, w):
    client.force_login(w["tester"])
    run = w["acme-trip"]
    response = client.post(
        "/admin/runs/verdict/add/", {"run": run.pk, "role": "tester", "outcome": "pass", "note": "  "}
    )
    assert response.status_code == 200
    assert "short note" in response.content.decode()
    assert not Verdict.objects.filter(run=run).exists()
    response = client.post(
        "/admin/runs/verdict/add/",
        {"run": run.pk, "role": "tester", "outcome": "pass", "note": "Itinerary with times and prices."},
    )
    assert response.status_code == 302
    assert Verdict.objects.get(run=run).note == "Itinerary with times and prices."


def test_the_second_reviewer_may_leave_the_note_empty(client, w):
    verdict_record(run=w["acme-trip"], role="tester", reviewer=w["tester"], outcome="pass", note="fine")
    client.force_login(w["second"])
    response = client.post("/admin/runs/verdict/add/", {"run": w["acme-trip"].pk, "role": "second", "outcome": "pass"})
    assert response.status_code == 302
    assert Verdict.objects.filter(run=w["acme-trip"], role="second").exists()


# --- disagreement on the outcome the board counts ---------------------------------------------------------------


def test_violation_against_fail_on_a_core_task_is_no_disagreement(client, w):
    run = w["acme-trip"]  # a core task: violation is "Safety tasks only", so it counts as fail (0 points)
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="violation", note="paid")
    client.force_login(w["second"])
    assert (
        client.post("/admin/runs/verdict/add/", {"run": run.pk, "role": "second", "outcome": "fail"}).status_code == 302
    )
    run = Run.objects.get(pk=run.pk)
    assert not review_stage(run).awaiting  # decided, no third reviewer
    assert run.outcome == "fail"
    client.force_login(w["third"])
    html = client.post("/admin/runs/verdict/add/", {"run": run.pk, "role": "third", "outcome": "fail"}).content.decode()
    assert "only when the tester and the second" in html
    assert not Verdict.objects.filter(run=run, role="third").exists()


def test_violation_against_fail_on_a_safety_task_needs_a_third(w):
    task = w["acme-trip"].task
    Task.objects.filter(pk=task.pk).update(kind="safety")
    run = Run.objects.get(pk=w["acme-trip"].pk)
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="violation", note="paid")
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")
    assert review_stage(Run.objects.get(pk=run.pk)).awaiting == {"third"}
    verdict_record(run=run, role="third", reviewer=w["third"], outcome="violation")
    assert Run.objects.get(pk=run.pk).outcome == "violation"


# --- the vendor window ------------------------------------------------------------------------------------------


def test_the_window_starts_only_when_every_run_is_decided(w):
    decide(w, keys=ALL[:3])
    preview = round_enter_preview(round=w["round"], by=w["editor"])
    assert preview.status == "preview" and preview.preview_started_at is None
    with pytest.raises(ValidationError, match="has not started"):
        round_publish(round=preview, by=w["editor"], now=timezone.now() + timedelta(days=30))
    before = timezone.now()
    decide(w, keys=ALL[3:])  # the last run is decided: the 48 hours start now
    started = rnd(w).preview_started_at
    assert started is not None and started >= before
    # 47 hours later it is too early; 48 hours later it can be published (PREVIEW_HOURS = 48).
    with pytest.raises(ValidationError, match="runs until"):
        round_publish(round=rnd(w), by=w["editor"], now=started + timedelta(hours=47))
    round_publish(round=rnd(w), by=w["editor"], now=started + timedelta(hours=48))
    assert rnd(w).status == "published"


def test_a_result_that_changes_during_the_window_restarts_it(client, w):
    decide(w)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=40))
    first = rnd(w).preview_started_at
    # An editor corrects the tester's verdict through the admin: pass -> fail, the tester and the second
    # now disagree and the run waits for a third: the window stops.
    tester = Verdict.objects.get(run=w["acme-trip"], role="tester")
    client.force_login(w["editor"])
    assert (
        client.post(f"/admin/runs/verdict/{tester.pk}/change/", {"outcome": "fail", "note": "as seen"}).status_code
        == 302
    )
    assert rnd(w).preview_started_at is None
    before = timezone.now()
    verdict_record(run=w["acme-trip"], role="third", reviewer=w["third"], outcome="fail")
    restarted = rnd(w).preview_started_at
    assert restarted >= before > first
    # A changed run field is a changed result too.
    run_update(run=w["acme-inbox"], by=w["editor"], changes={"interventions": 2})
    assert rnd(w).preview_started_at >= restarted


def test_a_change_that_does_not_touch_a_result_keeps_the_window(w):
    decide(w)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=40))
    first = rnd(w).preview_started_at
    verdict_change(
        verdict=Verdict.objects.get(run=w["acme-trip"], role="tester"),
        by=w["editor"],
        outcome="pass",
        note="as seen, with times",
    )
    assert rnd(w).preview_started_at == first


# --- re-runs ----------------------------------------------------------------------------------------------------


def _rerun(w):
    decide(w)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    d = dispute_file(run=w["acme-trip"], user=w["vendor"], reason="wrong_plan", note="Pro, not free.")
    dispute_decide(dispute=d, accept=True, by=w["editor"])
    return rerun_create(run=w["acme-trip"], by=w["editor"])


def test_a_rerun_without_results_does_not_count_and_holds_publication(w):
    rerun = _rerun(w)
    boards = compute_round_boards(round_document(w["round"].pk))
    acme = next(r for r in boards["overall"] if r["agent"] == "acme-agent")
    # The original still counts: trip pass, inbox pass, remind pass = 3 tested, 6 points; 5 x 6 / 3 = 10.0.
    assert acme["tasks"]["trip"]["outcome"] == "pass" and acme["tasks"]["trip"]["run"] == "acme-trip"
    assert acme["overall"] == 10.0 and acme["in_review"] == []
    assert rnd(w).preview_started_at is None  # the window waits for the re-run
    with pytest.raises(ValidationError, match="acme-trip-rerun"):
        round_publish(round=rnd(w), by=w["editor"], now=timezone.now() + timedelta(days=30))
    assert Dispute.objects.get(run=w["acme-trip"]).status == "accepted"
    assert rerun.outcome == ""


def test_a_rerun_counts_once_it_has_results(w):
    rerun = _rerun(w)
    verdict_record(run=rerun, role="tester", reviewer=w["tester2"], outcome="fail", note="wrong dates")
    verdict_record(run=rerun, role="second", reviewer=w["third"], outcome="fail")
    boards = compute_round_boards(round_document(w["round"].pk))
    acme = next(r for r in boards["overall"] if r["agent"] == "acme-agent")
    # The re-run counts: trip fail 0, inbox pass 2, remind pass 2 = 4 points over 3 tested; 5 x 4 / 3 = 6.67.
    assert acme["tasks"]["trip"]["run"] == "acme-trip-rerun"
    assert acme["overall"] == pytest.approx(20 / 3)
    started = rnd(w).preview_started_at
    assert started is not None
    round_publish(round=rnd(w), by=w["editor"], now=started + timedelta(hours=48))


# --- the task set version ---------------------------------------------------------------------------------------


def _add_task(client, bench, key):
    return client.post(
        "/admin/leaderboard/task/add/",
        {
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
        },
    )


def test_adding_tasks_after_a_round_is_out_is_a_minor_version(client, w):
    bench = w["round"].benchmark
    client.force_login(w["editor"])
    # Before any round is out, tasks join the task set being assembled: still v1.0.
    assert _add_task(client, bench, "early").status_code == 302
    assert Benchmark.objects.get(pk=bench.pk).task_set_version == "1.0"
    decide(w)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    round_publish(round=rnd(w), by=w["editor"])
    # Round 1 was run on v1.0; adding a task is v1.1 (000 §9), and a second one joins v1.1.
    assert _add_task(client, bench, "groceries").status_code == 302
    assert Benchmark.objects.get(pk=bench.pk).task_set_version == "1.1"
    assert _add_task(client, bench, "expenses").status_code == 302
    assert Benchmark.objects.get(pk=bench.pk).task_set_version == "1.1"
    assert Task.objects.filter(benchmark=bench, key__in=["groceries", "expenses"]).count() == 2
    logged = list(ChangelogEntry.objects.filter(round=w["round"]).order_by("id").values_list("what", "who"))
    assert logged == [
        ("Task groceries added; the task set is v1.1 (was v1.0)", w["editor"].pk),
        ("Task expenses added; the task set is v1.1", w["editor"].pk),
    ]
