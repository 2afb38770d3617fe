"""What each role can see and change, from the outside (the Django test client): anonymous, vendor, tester,
reviewer, editor."""

import pytest

from leaderboard.models import Round
from runs.models import Verdict
from runs.services import round_enter_preview, verdict_record
from tests.builders.review import BENCH, ROUND, SECRET_CITY, make_people, make_world

pytestmark = pytest.mark.django_db
STAFF_PAGES = ["/admin/", "/admin/runs/run/", "/admin/runs/run/queue/", "/admin/runs/verdict/"]


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def test_anonymous_reaches_no_admin_page_and_no_preview(client, w):
    round_enter_preview(round=w["round"], by=w["editor"])
    for url in [*STAFF_PAGES, f"/preview/{BENCH}/{ROUND}/"]:
        response = client.get(url)
        assert response.status_code == 302
        assert "login" in response["Location"] or "signin" in response["Location"]


def test_a_vendor_has_no_admin_and_no_public_view_of_the_unpublished_round(client, w):
    round_enter_preview(round=w["round"], by=w["editor"])
    client.force_login(w["vendor"])
    for url in STAFF_PAGES:
        assert client.get(url).status_code == 302
    assert client.get(f"/b/{BENCH}/r/{ROUND}/").status_code == 404
    assert client.get(f"/b/{BENCH}/r/{ROUND}/runs/other-trip/").status_code == 404  # another vendor's run
    assert client.get(f"/preview/{BENCH}/{ROUND}/").status_code == 200
    # Its own run's page, linked from the preview, marked not public.
    assert "Not public." in client.get(f"/b/{BENCH}/r/{ROUND}/runs/acme-trip/").content.decode()


def test_a_tester_enters_the_tester_verdict_through_the_admin_and_nothing_else(client, w):
    client.force_login(w["tester"])
    run = w["acme-trip"]
    form = client.get(f"/admin/runs/verdict/add/?run={run.pk}&role=tester").content.decode()
    assert 'value="tester"' in form and 'value="second"' not in form and 'value="third"' not in form
    response = client.post(
        "/admin/runs/verdict/add/",
        {"run": run.pk, "role": "tester", "outcome": "partial", "note": "Plan complete but no times."},
    )
    assert response.status_code == 302
    v = Verdict.objects.get(run=run)
    assert (v.role, v.outcome, v.reviewer) == ("tester", "partial", w["tester"])
    # a forged second verdict is refused
    response = client.post("/admin/runs/verdict/add/", {"run": w["acme-inbox"].pk, "role": "second", "outcome": "pass"})
    assert response.status_code == 200 and not Verdict.objects.filter(run=w["acme-inbox"]).exists()
    # no change to a verdict once entered, no run edits, no disputes, no round parameters
    assert client.post(f"/admin/runs/verdict/{v.pk}/change/", {"outcome": "pass"}).status_code == 403
    assert Verdict.objects.get(pk=v.pk).outcome == "partial"
    assert client.post(f"/admin/runs/run/{run.pk}/change/", {"interventions": 3}).status_code == 403
    for url in ("/admin/runs/dispute/", "/admin/leaderboard/roundparameter/"):
        assert client.get(url).status_code == 403
    round_page = client.get(f"/admin/leaderboard/round/{w['round'].pk}/change/").content.decode()
    assert SECRET_CITY not in round_page


def test_a_reviewer_enters_second_and_third_verdicts_but_not_the_testers(client, w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    client.force_login(w["second"])
    add = "/admin/runs/verdict/add/"
    assert client.post(add, {"run": run.pk, "role": "tester", "outcome": "pass"}).status_code == 200
    assert client.post(add, {"run": run.pk, "role": "second", "outcome": "fail"}).status_code == 302
    # the same person cannot also decide as third
    html = client.post("/admin/runs/verdict/add/", {"run": run.pk, "role": "third", "outcome": "fail"}).content.decode()
    assert "one role only" in html
    client.force_login(w["third"])
    assert client.post(add, {"run": run.pk, "role": "third", "outcome": "fail"}).status_code == 302
    assert run.verdicts.count() == 3
    assert client.get("/admin/leaderboard/roundparameter/").status_code == 403


def test_a_third_verdict_form_error_is_shown_when_there_is_no_disagreement(client, w):
    client.force_login(w["third"])
    html = client.post(
        "/admin/runs/verdict/add/", {"run": w["acme-trip"].pk, "role": "third", "outcome": "fail"}
    ).content.decode()
    assert "disagree" in html


def test_an_editor_changes_a_verdict_and_publishes(client, w):
    v = verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    client.force_login(w["editor"])
    response = client.post(f"/admin/runs/verdict/{v.pk}/change/", {"outcome": "partial", "note": "corrected"})
    assert response.status_code == 302 and Verdict.objects.get(pk=v.pk).outcome == "partial"
    assert client.get("/admin/leaderboard/roundparameter/").status_code == 200
    client.post("/admin/leaderboard/round/", {"action": "enter_preview", "_selected_action": [w["round"].pk]})
    assert Round.objects.get(pk=w["round"].pk).status == "preview"


def test_round_status_cannot_be_set_by_hand_in_the_admin(client, w):
    client.force_login(w["editor"])
    html = client.get(f"/admin/leaderboard/round/{w['round'].pk}/change/").content.decode()
    assert 'name="status"' not in html and 'name="published_at"' not in html
