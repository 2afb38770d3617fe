"""The reviewers' queue and its counts on the admin index."""

from datetime import timedelta

import pytest
from django.utils import timezone

from runs.selectors import queue_counts, review_queue
from runs.services import verdict_record
from tests.builders.review import make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    return {**make_world(), **make_people()}


def keys(user):
    return {(i.run.key, tuple(i.roles)) for i in review_queue(user)}


def test_testers_see_runs_awaiting_a_tester(w):
    assert keys(w["tester"]) == {
        ("acme-trip", ("tester",)),
        ("acme-inbox", ("tester",)),
        ("other-trip", ("tester",)),
        ("acme-remind", ("tester",)),
    }


def test_reviewers_see_second_reviews_and_third_decisions_but_not_runs_they_reviewed(w):
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(run=w["acme-trip"], role="second", reviewer=w["second"], outcome="fail")
    assert ("acme-trip", ("third",)) in keys(w["third"])
    assert not any(k == "acme-trip" for k, _ in keys(w["second"]))
    assert not any(k == "acme-trip" for k, _ in keys(w["tester"]))


def test_runs_not_due_are_listed_as_due_on_and_not_actionable(client, w):
    item = next(i for i in review_queue(w["tester"]) if i.run.key == "acme-remind")
    assert not item.actionable
    client.force_login(w["tester"])
    html = client.get("/admin/runs/run/queue/").content.decode()
    assert f"due on {timezone.localtime(w['acme-remind'].due_at):%Y-%m-%d}" in html
    assert f"?run={w['acme-remind'].pk}&amp;role=tester" not in html
    assert queue_counts(w["tester"]) == {"tester": 3, "second": 0, "third": 0, "not_due": 1, "total": 3}


def test_a_due_run_becomes_actionable(w):
    run = w["acme-remind"]
    run.due_at = timezone.now() - timedelta(minutes=1)
    run.save()
    assert next(i for i in review_queue(w["tester"]) if i.run.key == "acme-remind").actionable


def test_the_admin_index_shows_the_counts(client, w):
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    client.force_login(w["second"])
    html = client.get("/admin/").content.decode()
    assert 'data-count="second">3<' in html and 'data-count="not_due">1<' in html
    client.force_login(w["vendor"])
    assert client.get("/admin/").status_code == 302  # vendors are not staff


def test_decided_runs_leave_the_queue(w):
    verdict_record(run=w["acme-trip"], role="tester", note="seen", reviewer=w["tester"], outcome="pass")
    verdict_record(run=w["acme-trip"], role="second", reviewer=w["second"], outcome="pass")
    assert not any(k == "acme-trip" for k, _ in keys(w["third"]))
    assert not any(k == "acme-trip" for k, _ in keys(w["editor"]))
