"""Blind double review against the whole admin (seed 000 §5): until every verdict of a run is in, nobody who
reviews it learns anything about another verdict of it, on any page, list, count or message. Each test signs
in as a reviewer of the run, reads every admin page that names the run before and after the other reviewer's
verdict arrives, and finds nothing changed."""

import re

import pytest
from django.contrib.auth.models import Group

from runs.services import round_enter_preview, verdict_record
from tests.builders.review import make_people, make_user, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    w = {**make_world(), **make_people()}
    # In preview, the round's "publication" field lists its runs in review (a draft says only "a draft").
    w["round"] = round_enter_preview(round=w["round"], by=w["editor"])
    return w


def _readonly(html: str, field: str) -> str:
    match = re.search(rf'field-{field}\b.*?<div class="readonly">(.*?)</div>', html, re.S)
    assert match, f"no {field} field"
    return match.group(1).strip()


def seen_by(client, user, w) -> dict[str, object]:
    """Everything the admin tells `user` about the review of run acme-trip and its round."""
    client.force_login(user)
    run, rnd = w["acme-trip"], w["round"]
    round_page = client.get(f"/admin/leaderboard/round/{rnd.pk}/change/").content.decode()
    run_list = client.get("/admin/runs/run/").content.decode()
    run_page = client.get(f"/admin/runs/run/{run.pk}/change/").content.decode()
    index = client.get("/admin/").content.decode()
    queue = client.get("/admin/runs/run/queue/")
    return {
        "round publication": _readonly(round_page, "publication"),
        "run list review column": re.findall(r'class="field-review">(.*?)</td>', run_list),
        "run page review": re.search(r"Review: <strong>(.*?)</strong>", run_page).group(1),
        "index counts": re.findall(r'data-count="(\w+)">(\d+)<', index),
        "queue": re.findall(r"<tr[^>]*data-run=.*?</tr>", queue.content.decode(), re.S)
        if queue.status_code == 200
        else [],
    }


def test_it_never_tells_the_tester_that_the_second_reviewer_disagreed(client, w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="seen")
    before = seen_by(client, w["tester"], w)
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")  # disagrees: awaits a third
    after = seen_by(client, w["tester"], w)
    assert after == before
    assert "awaiting third" not in str(after)
    assert "acme-trip (reviewed by you)" in after["round publication"]


def test_it_never_tells_the_second_reviewer_whether_the_tester_has_judged_or_agreed(client, w):
    run = w["acme-trip"]
    before_tester = seen_by(client, w["second"], w)
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="seen")
    assert seen_by(client, w["second"], w) == before_tester  # not "awaiting second reviewer" now
    assert "acme-trip (awaiting review)" in before_tester["round publication"]

    # The other order: the second judges first, then the tester's verdict arrives and disagrees.
    other = w["other-trip"]
    verdict_record(run=other, role="second", reviewer=w["second"], outcome="fail")
    before = seen_by(client, w["second"], w)
    verdict_record(run=other, role="tester", reviewer=w["tester"], outcome="pass", note="seen")
    after = seen_by(client, w["second"], w)
    assert after == before
    assert "other-trip (reviewed by you)" in after["round publication"] and "awaiting third" not in str(after)


def test_an_editor_who_reviewed_the_run_is_blind_to_it_until_every_verdict_is_in(client, w):
    run = w["acme-trip"]
    tester_verdict = verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="Tess: ok")
    verdict_record(run=run, role="second", reviewer=w["editor"], outcome="fail", note="Edna: no")
    client.force_login(w["editor"])
    round_page = client.get(f"/admin/leaderboard/round/{w['round'].pk}/change/").content.decode()
    assert "acme-trip (reviewed by you)" in _readonly(round_page, "publication")
    assert "Tess: ok" not in client.get(f"/admin/runs/run/{run.pk}/change/").content.decode()
    assert f"/admin/runs/verdict/{tester_verdict.pk}/change/" not in client.get("/admin/runs/verdict/").content.decode()
    refused = client.post(
        "/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]}, follow=True
    ).content.decode()
    assert "was not published" in refused and "awaiting third" not in refused

    verdict_record(run=run, role="third", reviewer=w["third"], outcome="fail")  # every verdict is in now
    assert "Tess: ok" in client.get(f"/admin/runs/run/{run.pk}/change/").content.decode()


def test_an_editor_not_reviewing_the_run_and_a_would_be_third_still_see_why_it_waits(client, w):
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=w["tester"], outcome="pass", note="seen")
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")
    for person in ("editor", "third"):
        assert "acme-trip (awaiting third reviewer)" in seen_by(client, w[person], w)["round publication"], person


def test_a_reviewer_in_both_groups_is_told_only_that_they_reviewed_the_run_already(client, w):
    both = make_user("bo", "Testers")
    both.groups.add(Group.objects.get(name="Reviewers"))
    run = w["acme-trip"]
    verdict_record(run=run, role="tester", reviewer=both, outcome="pass", note="seen")
    client.force_login(both)

    def try_second_role() -> str:
        html = client.post("/admin/runs/verdict/add/", {"run": run.pk, "role": "second", "outcome": "pass"})
        return re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', html.content.decode(), re.S)

    before = try_second_role()
    verdict_record(run=run, role="second", reviewer=w["second"], outcome="fail")
    after = try_second_role()
    assert after == before and "You already reviewed this run as the Tester" in str(after)
    assert "already has a" not in str(after)
