"""Recording verdicts: who may enter which role, the final outcome, due times, and corrections after
publication (seed 000 §3, §5, §6, §9)."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.utils import timezone

from leaderboard.caching import content_version_bump
from leaderboard.models import ChangelogEntry
from runs.models import Run
from runs.services import run_update, verdict_change, verdict_record
from snapshots.models import BoardSnapshot
from tests.builders.review import BENCH, ROUND, make_people, make_world
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def outcome_of(run):
    return Run.objects.get(pk=run.pk).outcome


def test_it_takes_the_agreed_outcome_of_tester_and_second(w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    assert outcome_of(run) == ""  # in review until the second
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass")
    assert outcome_of(run) == "pass"


def test_a_disagreement_waits_for_the_third_who_decides(w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")
    assert outcome_of(run) == ""
    verdict_record(run=run, role="third", reviewer=w["third"], outcome="partial")
    assert outcome_of(run) == "partial"


def test_the_lowest_matched_row_applies(w):
    v = verdict_record(
        run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], matched=["pass", "partial", "fail"]
    )
    assert v.outcome == "fail"
    v = verdict_record(
        run=w["acme-inbox"], role="tester", note="seen", reviewer=w["tester"], outcome="pass", matched=["unsupported"]
    )
    assert v.outcome == "unsupported"


def test_a_third_verdict_is_refused_without_a_disagreement(w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    with pytest.raises(ValidationError, match="disagree"):
        verdict_record(run=run, role="third", reviewer=w["third"], outcome="pass")
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass")
    with pytest.raises(ValidationError, match="disagree"):
        verdict_record(run=run, role="third", reviewer=w["third"], outcome="pass")


def test_a_reviewer_never_reviews_one_run_in_two_roles(w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")
    with pytest.raises(ValidationError, match="one role only"):
        verdict_record(run=run, role="third", reviewer=w["second"], outcome="fail")
    # an editor (who may enter any role) is held to the same rule
    verdict_record(run=w["acme-inbox"], role="tester", note="seen", reviewer=w["editor"], outcome="pass")
    with pytest.raises(ValidationError, match="one role only"):
        verdict_record(run=w["acme-inbox"], role="second", reviewer=w["editor"], outcome="pass")


def test_testers_enter_only_the_tester_role_and_reviewers_only_second_or_third(w):
    with pytest.raises(PermissionDenied):
        verdict_record(run=w["acme-trip"], role="second", reviewer=w["tester"], outcome="pass")
    with pytest.raises(PermissionDenied):
        verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["second"], outcome="pass")
    with pytest.raises(PermissionDenied):
        verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["vendor"], outcome="pass")


def test_one_verdict_per_role(w):
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    with pytest.raises(ValidationError, match="already has"):
        verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester2"], outcome="fail")


def test_a_run_whose_effects_are_not_due_cannot_be_judged_yet(w):
    run = w["acme-remind"]
    with pytest.raises(ValidationError, match="before its effects are due"):
        verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(
        run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass", now=run.due_at + timedelta(minutes=1)
    )


def test_a_verdict_marks_the_round_board_stale(w):
    BoardSnapshot.objects.filter(round=w["round"]).update(stale=False)
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    assert BoardSnapshot.objects.get(round=w["round"], kind="boards").stale


def _publish(w):
    for key in ("acme-trip", "acme-inbox", "other-trip"):
        verdict_record(run=w[key], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
        verdict_record(run=w[key], role="second", reviewer=w["second"], outcome="pass")
    rnd = w["round"]
    rnd.status, rnd.published_at = "published", timezone.now()
    rnd.save()
    BoardSnapshot.objects.filter(round=rnd).update(stale=False)


def test_only_editors_change_a_verdict(w):
    v = verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    with pytest.raises(PermissionDenied):
        verdict_change(verdict=v, by=w["tester"], outcome="fail")


def test_after_publication_a_verdict_change_needs_a_reason_and_is_logged_and_recomputed(w):
    _publish(w)
    v = w["acme-trip"].verdicts.get(role="second")
    with pytest.raises(ValidationError, match="say why"):
        verdict_change(verdict=v, by=w["editor"], outcome="fail", note="")
    verdict_change(verdict=v, by=w["editor"], outcome="fail", reason="The recording shows no itinerary.")
    entry = ChangelogEntry.objects.get(round=w["round"])
    # The run goes back to review (tester pass, second now fail): the log says what the board lost, not the
    # corrected verdict, which is published with the third reviewer's decision.
    assert entry.what == (
        "Run acme-trip: a verdict was corrected; the verdicts are published once its review is complete; "
        "counted outcome: pass -> in review"
    )
    assert entry.why == "The recording shows no itinerary." and entry.who == w["editor"] and entry.who_role == "editor"
    assert outcome_of(w["acme-trip"]) == ""  # tester pass, second fail: back in review until a third decides
    assert BoardSnapshot.objects.get(round=w["round"], kind="boards").stale


def _run_page(client, key: str) -> str:
    """The public page of run `key` as it stands: the boards recomputed, no cached page served."""
    compute_all()
    content_version_bump()
    return client.get(f"/b/{BENCH}/r/{ROUND}/runs/{key}/").content.decode()


def test_a_correction_that_makes_tester_and_second_agree_sets_the_third_verdict_aside(w, client):
    # 000 §5: "If they disagree, a third reviewer decides." Tester pass, second corrected to fail: they disagree,
    # the third says fail, and the run is a fail. A second correction puts the second back to pass: tester and
    # second agree again, so the run is a pass; the third's fail, given while they disagreed, decides nothing.
    _publish(w)
    run = w["acme-trip"]
    second = run.verdicts.get(role="second")
    verdict_change(verdict=second, by=w["editor"], outcome="fail", reason="The recording shows no itinerary.")
    verdict_record(run=run, role="third", reviewer=w["third"], outcome="fail", reason="Decided the disagreement.")
    assert outcome_of(run) == "fail"
    page = _run_page(client, "acme-trip")
    assert "they disagreed, so a third reviewer decided" in page
    verdict_change(verdict=second, by=w["editor"], outcome="pass", reason="The itinerary was in the footnote.")
    assert outcome_of(run) == "pass"
    entry = ChangelogEntry.objects.filter(run=run).latest("id")
    assert entry.what.endswith("counted outcome: fail -> pass")
    page = _run_page(client, "acme-trip")
    assert "outcome: pass" in page and "they disagreed, so a third reviewer decided" not in page
    assert "they agree, so the third reviewer's verdict does not decide the outcome" in page
    # Made to disagree again, the third's verdict decides again.
    verdict_change(verdict=second, by=w["editor"], outcome="partial", reason="Half the itinerary was there.")
    assert outcome_of(run) == "fail"


def test_after_publication_a_run_change_is_logged_with_old_and_new_values(w):
    _publish(w)
    with pytest.raises(ValidationError):
        run_update(run=w["acme-trip"], by=w["editor"], changes={"interventions": 2})
    run_update(run=w["acme-trip"], by=w["editor"], changes={"interventions": 2}, reason="Counted from the video.")
    entry = ChangelogEntry.objects.get(round=w["round"])
    assert "none -> 2" in entry.what and entry.run_id == w["acme-trip"].pk
    assert BoardSnapshot.objects.get(round=w["round"], kind="boards").stale


def test_before_publication_changes_write_no_changelog(w):
    v = verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_change(verdict=v, by=w["editor"], outcome="fail")
    assert not ChangelogEntry.objects.exists()


def test_weekly_takes_a_lone_tester_label(w):
    run = w["acme-trip"]
    run.round.benchmark.methodology = "weekly"
    run.round.benchmark.save()
    verdict_record(run=Run.objects.get(pk=run.pk), role="tester", note="seen", reviewer=w["tester"], outcome="partial")
    assert outcome_of(run) == "partial"
