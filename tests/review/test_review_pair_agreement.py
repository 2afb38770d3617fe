"""Editors see review agreement per pair of reviewers in the admin (issue #30 §3); nobody else does, and the
public pages name roles only."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from runs.models import Verdict
from tests.builders.review import make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    w = make_world()
    people = make_people()

    def verdict(run, role, person, outcome):
        Verdict.objects.create(run=w[run], role=role, reviewer=people[person], outcome=outcome)

    verdict("acme-trip", "tester", "tester", "pass")
    verdict("acme-trip", "second", "second", "pass")
    verdict("acme-inbox", "tester", "tester", "pass")
    verdict("acme-inbox", "second", "second", "fail")
    verdict("other-trip", "tester", "tester2", "partial")
    verdict("other-trip", "second", "second", "partial")
    return {**w, **people}


def test_an_editor_sees_agreement_per_reviewer_pair(world, client):
    client.force_login(world["editor"])
    url = reverse("admin:runs_run_agreement", args=[world["round"].pk])
    html = client.get(url).content.decode()
    rows = re.findall(
        r"<tr class=\"row\d\"><td>(.*?)</td><td>(.*?)</td><td>(\d+)</td><td>(\d+)</td>"
        r"<td>(\d+)%</td><td>(.*?)</td></tr>",
        html,
    )
    # tess & sam: acme-trip pass/pass, acme-inbox pass/fail: 2 runs, 1 agreed, 50%.
    #   p_e = (tess pass 2 x sam pass 1) / 2^2 = .5; kappa = (.5 - .5) / (1 - .5) = 0.
    # toby & sam: other-trip partial/partial: 1 run, agreed; p_e = 1: kappa not defined.
    assert rows == [("tess", "sam", "2", "1", "50", "0.00"), ("toby", "sam", "1", "1", "100", "not defined")]
    # The round's change page links to it.
    change = client.get(reverse("admin:leaderboard_round_change", args=[world["round"].pk])).content.decode()
    assert url in change


@pytest.mark.parametrize("who", ["tester", "second", "third", "vendor", "plain"])
def test_nobody_but_an_editor_sees_it(world, client, who):
    client.force_login(world[who])
    response = client.get(reverse("admin:runs_run_agreement", args=[world["round"].pk]))
    assert response.status_code in (302, 403)
    # The refusal is a page of the site (its navigation names the signed-in account): nothing of the table.
    main = re.search(r"<main.*?</main>", response.content.decode(), re.S)
    assert main is None or "sam" not in main.group(0)


def test_anonymous_is_sent_to_sign_in(world, client):
    response = client.get(reverse("admin:runs_run_agreement", args=[world["round"].pk]))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_an_editor_who_reviewed_a_run_blind_does_not_see_it_counted(world, client):
    # The editor judged acme-trip as its second reviewer's stand-in: until every verdict is in (the tester and
    # the editor disagree, so a third is awaited) that run stays out of the editor's view.
    Verdict.objects.filter(run=world["acme-trip"], role="second").update(reviewer=world["editor"], outcome="fail")
    client.force_login(world["editor"])
    html = client.get(reverse("admin:runs_run_agreement", args=[world["round"].pk])).content.decode()
    assert "<td>edna</td>" not in html
    # tess & sam keep acme-inbox only: 1 run, pass/fail, 0 agreed.
    assert re.search(r"<td>tess</td><td>sam</td><td>1</td><td>0</td><td>0%</td>", html)
