"""Publication: draft -> preview -> published, the vendor preview and disputes, re-runs, refusals with
messages (seed 000 §6)."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from bundles.export import bundle_export
from leaderboard.models import Round, TaskVersion
from recompute.boards import compute_round_boards, round_document
from runs.models import Dispute, Run
from runs.services import (
    dispute_decide,
    dispute_file,
    rerun_create,
    round_enter_preview,
    round_publish,
    verdict_record,
)
from tests.builders.review import BENCH, ROUND, SECRET_CITY, make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def review_all(w, runs=("acme-trip", "acme-inbox", "other-trip", "acme-remind")):
    for key in runs:
        run = Run.objects.get(round=w["round"], key=key)
        now = (run.due_at or timezone.now()) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=now)


def preview_past(w, hours=49):
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=hours))
    return Round.objects.get(pk=w["round"].pk)


def test_entering_preview_sets_status_and_start(w):
    review_all(w)
    rnd = round_enter_preview(round=w["round"], by=w["editor"])
    assert rnd.status == "preview" and rnd.preview_started_at is not None
    with pytest.raises(ValidationError):
        round_enter_preview(round=rnd, by=w["editor"])
    with pytest.raises(PermissionDenied):
        round_enter_preview(round=rnd, by=w["second"])


def test_publishing_a_draft_is_refused(w):
    with pytest.raises(ValidationError, match="draft"):
        round_publish(round=w["round"], by=w["editor"])


def test_publishing_is_refused_before_the_preview_window_has_passed(w):
    review_all(w)
    rnd = preview_past(w, hours=47)
    with pytest.raises(ValidationError, match="vendor preview .* runs until"):
        round_publish(round=rnd, by=w["editor"])


def test_publishing_is_refused_while_runs_are_in_review_naming_them(w):
    review_all(w, runs=("acme-trip", "acme-inbox"))
    rnd = preview_past(w)
    with pytest.raises(ValidationError) as exc:
        round_publish(round=rnd, by=w["editor"])
    message = " ".join(exc.value.messages)
    assert "2 runs are still in review" in message
    assert "other-trip (awaiting tester and second reviewer)" in message and "acme-remind" in message
    assert "acme-trip" not in message


def test_publishing_is_refused_while_a_third_decision_is_missing(w):
    review_all(w, runs=("acme-inbox", "other-trip", "acme-remind"))
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(run=w["acme-trip"], role="second", reviewer=w["second"], outcome="fail")
    rnd = preview_past(w)
    with pytest.raises(ValidationError, match=r"acme-trip \(awaiting third reviewer\)"):
        round_publish(round=rnd, by=w["editor"])


def test_publishing_sets_published_at_and_freezes_the_used_task_versions(w):
    review_all(w)
    rnd = round_publish(round=preview_past(w), by=w["editor"])
    assert rnd.status == "published" and rnd.published_at is not None
    assert TaskVersion.objects.get(task__key="trip", version="1.0").published_at == rnd.published_at


def test_publish_action_in_the_admin_says_why_it_refuses(client, w):
    preview_past(w, hours=1)
    client.force_login(w["editor"])
    response = client.post(
        "/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]}, follow=True
    )
    html = response.content.decode()
    # Runs still in review: the vendor window has not even started.
    assert "was not published" in html and "has not started" in html and "still in review" in html
    assert Round.objects.get(pk=w["round"].pk).status == "preview"


# --- vendor preview and disputes ---------------------------------------------------------------------------------


def test_vendors_see_only_their_own_agents_during_preview(client, w):
    url = f"/preview/{BENCH}/{ROUND}/"
    client.force_login(w["vendor"])
    assert client.get(url).status_code == 404  # draft: nothing to see yet
    preview_past(w, hours=1)
    html = client.get(url).content.decode()
    assert "acme-trip" in html and "acme-inbox" in html and "other-trip" not in html
    assert SECRET_CITY not in html
    client.force_login(w["other_vendor"])
    html = client.get(url).content.decode()
    assert "other-trip" in html and "acme-trip" not in html


def test_the_preview_closes_with_publication(client, w):
    review_all(w)
    rnd = round_publish(round=preview_past(w), by=w["editor"])
    client.force_login(w["vendor"])
    assert client.get(f"/preview/{BENCH}/{rnd.key}/").status_code == 404


def test_non_vendors_get_no_preview(client, w):
    preview_past(w, hours=1)
    url = f"/preview/{BENCH}/{ROUND}/"
    assert client.get(url).status_code == 302  # anonymous: sign in first
    for who in ("plain", "tester", "second", "editor"):
        client.force_login(w[who])
        assert client.get(url).status_code == 404, who


def test_a_vendor_files_a_dispute_on_their_own_run(client, w):
    preview_past(w, hours=1)
    client.force_login(w["vendor"])
    url = f"/preview/{BENCH}/{ROUND}/runs/acme-trip/dispute/"
    assert client.get(url).status_code == 200
    response = client.post(url, {"reason": "wrong_version", "note": "We shipped 1.3 that week."})
    assert response.status_code == 302
    d = Dispute.objects.get()
    assert (d.run.key, d.reason, d.status, d.filed_by) == ("acme-trip", "wrong_version", "open", w["vendor"])
    again = client.post(url, {"reason": "other", "note": "And more."})
    assert "already has an open dispute" in again.content.decode()
    assert (
        client.post(
            f"/preview/{BENCH}/{ROUND}/runs/other-trip/dispute/", {"reason": "environment", "note": "x"}
        ).status_code
        == 404
    )


def test_disputes_are_refused_outside_the_preview(w):
    with pytest.raises(ValidationError, match="preview"):
        dispute_file(run=w["acme-trip"], user=w["vendor"], reason="environment", note="Network was down.")
    with pytest.raises(PermissionDenied):
        dispute_file(run=w["other-trip"], user=w["vendor"], reason="environment", note="x")


def test_dispute_accept_rerun_lifecycle_through_the_admin(client, w):
    preview_past(w)
    dispute = dispute_file(run=w["acme-trip"], user=w["vendor"], reason="wrong_plan", note="Pro plan, not free.")
    review_all(w)
    with pytest.raises(ValidationError, match="dispute is still open"):
        round_publish(round=w["round"], by=w["editor"])
    client.force_login(w["editor"])
    client.post("/admin/runs/dispute/", {"action": "accept", "_selected_action": [dispute.pk]})
    assert Dispute.objects.get(pk=dispute.pk).status == "accepted"
    client.post("/admin/runs/dispute/", {"action": "create_reruns", "_selected_action": [dispute.pk]})
    rerun = Run.objects.get(rerun_of=w["acme-trip"])
    assert rerun.key == "acme-trip-rerun" and rerun.outcome == ""
    # one re-run only, never a re-run of a re-run
    with pytest.raises(ValidationError, match="would have 2 re-runs .*; a run is re-run once"):
        rerun_create(run=w["acme-trip"], by=w["editor"])
    Dispute.objects.create(run=rerun, reason="other", note="again", status="accepted")
    with pytest.raises(ValidationError, match="itself a re-run"):
        rerun_create(run=rerun, by=w["editor"])
    with pytest.raises(IntegrityError), transaction.atomic():
        Run.objects.create(key="rerun-of-rerun", round=rerun.round, entry=rerun.entry, task=rerun.task, rerun_of=rerun)
    # the re-run is reviewed before publication; then both runs are published and the re-run counts
    with pytest.raises(ValidationError, match="acme-trip-rerun"):
        round_publish(round=w["round"], by=w["editor"])
    verdict_record(run=rerun, role="tester", note="seen", reviewer=w["tester2"], outcome="fail")
    verdict_record(run=rerun, role="second", reviewer=w["third"], outcome="fail")
    # The re-run's result changed the round during the preview: its 48 hours start again from now.
    with pytest.raises(ValidationError, match="runs until"):
        round_publish(round=w["round"], by=w["editor"])
    round_publish(round=w["round"], by=w["editor"], now=timezone.now() + timedelta(hours=49))
    doc = bundle_export(benchmark=w["round"].benchmark)
    assert {"acme-trip", "acme-trip-rerun"} <= {r["id"] for r in doc["runs"]}
    boards = compute_round_boards(round_document(w["round"].pk))
    acme = next(r for r in boards["overall"] if r["agent"] == "acme-agent")
    assert acme["tasks"]["trip"]["outcome"] == "fail"  # the re-run's, not the original's pass


def test_a_rejected_dispute_allows_no_rerun(w):
    preview_past(w, hours=1)
    d = dispute_file(run=w["acme-trip"], user=w["vendor"], reason="environment", note="Network was down.")
    with pytest.raises(PermissionDenied):
        dispute_decide(dispute=d, accept=True, by=w["second"])
    dispute_decide(dispute=d, accept=False, by=w["editor"], note="The log shows a normal network.")
    with pytest.raises(ValidationError, match="re-runs acme-trip, whose dispute no editor accepted"):
        rerun_create(run=w["acme-trip"], by=w["editor"])
    with pytest.raises(ValidationError, match="already rejected"):
        dispute_decide(dispute=d, accept=True, by=w["editor"])


def test_a_nul_byte_in_a_preview_url_is_a_404(client, w):
    preview_past(w, hours=1)
    client.force_login(w["vendor"])
    assert client.get(f"/preview/{BENCH}/%00/").status_code == 404
    assert client.get(f"/preview/{BENCH}/{ROUND}/runs/%00/dispute/").status_code == 404
