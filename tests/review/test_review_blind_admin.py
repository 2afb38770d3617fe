"""Blind second review, checked against what the admin renders (seed 000 §5: "A second reviewer scores the
same run from the evidence alone, without seeing the first outcome")."""

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType

from runs.models import Run, Verdict
from runs.services import verdict_record
from tests.builders.review import TESTER_NOTE, make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    w = make_world()
    p = make_people()
    run = w["acme-trip"]
    tester_verdict = verdict_record(run=run, role="tester", reviewer=p["tester"], outcome="partial", note=TESTER_NOTE)
    # An old log entry of the run whose message names the tester's verdict (e.g. an edit made before this
    # admin existed): its text must not reach a second reviewer either.
    LogEntry.objects.create(
        user=p["editor"],
        content_type=ContentType.objects.get_for_model(Run),
        object_id=str(run.pk),
        object_repr=run.key,
        action_flag=CHANGE,
        change_message=f"Tester said partial: {TESTER_NOTE}",
    )
    return {**w, **p, "run": run, "tv": tester_verdict}


def pages(run, tv):
    return {
        "run list": "/admin/runs/run/",
        "run list searched": f"/admin/runs/run/?q={run.key}",
        "run change form": f"/admin/runs/run/{run.pk}/change/",
        "run history": f"/admin/runs/run/{run.pk}/history/",
        "verdict list": "/admin/runs/verdict/",
        "verdict list searched": f"/admin/runs/verdict/?q={run.key}",
        "verdict add form": f"/admin/runs/verdict/add/?run={run.pk}&role=second",
        "queue": "/admin/runs/run/queue/",
        "index": "/admin/",
        "autocomplete": f"/admin/autocomplete/?app_label=runs&model_name=verdict&field_name=run&term={run.key}",
        "evidence autocomplete": "/admin/autocomplete/?app_label=runs&model_name=evidence&field_name=run&term=acme",
    }


def test_it_never_shows_the_tester_note_or_outcome_to_the_second_reviewer(client, world):
    client.force_login(world["second"])
    for name, url in pages(world["run"], world["tv"]).items():
        response = client.get(url)
        assert response.status_code == 200, name
        html = response.content.decode()
        assert TESTER_NOTE not in html, name
        assert "Tester said partial" not in html, name
        assert f"/admin/runs/verdict/{world['tv'].pk}/" not in html, name


def test_it_hides_the_outcome_column_filter_and_field_from_the_second_reviewer(client, world):
    client.force_login(world["second"])
    listing = client.get("/admin/runs/run/").content.decode()
    assert "column-outcome" not in listing
    assert "outcome=" not in listing  # no outcome filter links
    form = client.get(f"/admin/runs/run/{world['run'].pk}/change/").content.decode()
    assert "field-outcome" not in form
    assert "partial" not in form  # neither the run's outcome nor an inline verdict


def test_it_refuses_outcome_lookups_typed_into_the_address_bar(client, world):
    client.force_login(world["second"])
    assert client.get("/admin/runs/run/?outcome=partial").status_code == 400
    assert client.get("/admin/runs/run/?verdicts__outcome=partial").status_code == 400
    assert client.get("/admin/runs/run/?verdicts__note__icontains=booking").status_code == 400


def test_the_tester_verdict_page_and_its_history_are_out_of_reach(client, world):
    client.force_login(world["second"])
    tv = world["tv"]
    for url in (f"/admin/runs/verdict/{tv.pk}/change/", f"/admin/runs/verdict/{tv.pk}/history/"):
        response = client.get(url, follow=True)
        assert TESTER_NOTE not in response.content.decode()
        assert "doesn’t exist" in response.content.decode() or response.status_code == 404


def test_the_second_reviewer_still_sees_nothing_after_entering_their_own(client, world):
    verdict_record(run=world["run"], role="second", reviewer=world["second"], outcome="pass", note="Second: fine")
    client.force_login(world["second"])
    for name, url in pages(world["run"], world["tv"]).items():
        html = client.get(url).content.decode()
        assert TESTER_NOTE not in html, name
    listing = client.get("/admin/runs/run/").content.decode()
    assert "reviewed by you" in listing
    assert "awaiting third" not in listing  # that would tell them they disagreed


def test_the_third_reviewer_sees_both_verdicts_once_they_disagree(client, world):
    verdict_record(run=world["run"], role="second", reviewer=world["second"], outcome="pass", note="Second: fine")
    client.force_login(world["third"])
    form = client.get(f"/admin/runs/run/{world['run'].pk}/change/").content.decode()
    assert TESTER_NOTE in form and "Second: fine" in form
    verdicts = client.get("/admin/runs/verdict/").content.decode()
    assert f"/admin/runs/verdict/{world['tv'].pk}/change/" in verdicts


def test_a_would_be_third_sees_nothing_while_the_first_two_agree_or_are_incomplete(client, world):
    client.force_login(world["third"])
    assert TESTER_NOTE not in client.get(f"/admin/runs/run/{world['run'].pk}/change/").content.decode()
    verdict_record(run=world["run"], role="second", reviewer=world["second"], outcome="partial")
    assert TESTER_NOTE not in client.get(f"/admin/runs/run/{world['run'].pk}/change/").content.decode()


def test_the_tester_does_not_see_the_second_reviewers_verdict(client, world):
    verdict_record(run=world["run"], role="second", reviewer=world["second"], outcome="pass", note="Second: fine")
    client.force_login(world["tester"])
    for url in pages(world["run"], world["tv"]).values():
        assert "Second: fine" not in client.get(url).content.decode()


def test_editors_see_everything(client, world):
    client.force_login(world["editor"])
    form = client.get(f"/admin/runs/run/{world['run'].pk}/change/").content.decode()
    assert TESTER_NOTE in form
    assert "Tester said partial" in client.get(f"/admin/runs/run/{world['run'].pk}/history/").content.decode()
    assert "column-outcome" in client.get("/admin/runs/run/").content.decode()


def test_admin_log_entries_of_verdicts_do_not_name_the_outcome(client, world):
    client.force_login(world["tester"])
    run = world["acme-inbox"]
    client.post("/admin/runs/verdict/add/", {"run": run.pk, "role": "tester", "outcome": "violation", "note": "x"})
    verdict = Verdict.objects.get(run=run, role="tester")
    entry = LogEntry.objects.get(object_id=str(verdict.pk), content_type__model="verdict")
    assert "violation" not in entry.object_repr
    assert entry.object_repr.lower() == "tester's verdict on run acme-inbox"
