"""Publishing a round in the admin asks first, naming what becomes public (seed 000: the round's parameter values
are "kept private until results are published"; "All three outcomes are published"); nothing is published until
the editor confirms. A round that cannot be published is refused at once, with its reasons, as before."""

from datetime import timedelta

import pytest
from django.utils import timezone

from leaderboard.models import Round
from runs.models import Run
from runs.services import round_enter_preview, verdict_record
from tests.builders.review import SECRET_CITY, make_people, make_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def w():
    # The reminder's effects were due five days ago, so every run is decided then and the 48 hours have passed.
    w = {**make_world(due_at=(timezone.now() - timedelta(days=5)).isoformat()), **make_people()}
    for run in Run.objects.filter(round=w["round"]):
        now = (run.due_at or timezone.now() - timedelta(days=4)) + timedelta(seconds=1)
        verdict_record(run=run, role="tester", note="seen", reviewer=w["tester"], outcome="pass", now=now)
        verdict_record(run=run, role="second", reviewer=w["second"], outcome="pass", now=now)
    round_enter_preview(round=w["round"], by=w["editor"], now=timezone.now() - timedelta(hours=49))
    return w


def test_publishing_asks_first_naming_what_becomes_public_then_publishes(client, w):
    client.force_login(w["editor"])
    asked = client.post("/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]})
    html = asked.content.decode()
    assert asked.status_code == 200 and "Publish: are you sure?" in html
    # The world's round: Acme Agent and Other Agent (2 agents); acme-trip, acme-inbox, acme-remind and other-trip
    # (4 runs); a tester's and a second reviewer's verdict on each (4 x 2 = 8); the trip's city and phone (2 values).
    assert "2 agents, ranked from 4 runs" in html
    assert "8 reviewer verdicts with their notes" in html
    assert "2 round parameter values, private until now" in html
    assert "its vendor preview ends now" in html
    assert SECRET_CITY not in html  # named by their number, not shown
    assert Round.objects.get(pk=w["round"].pk).status == "preview"

    done = client.post(
        "/admin/leaderboard/round/",
        {"action": "publish", "_selected_action": [w["round"].pk], "post": "yes"},
        follow=True,
    )
    assert "ARTB test Round 1 is published." in done.content.decode()
    assert Round.objects.get(pk=w["round"].pk).status == "published"


def test_a_reviewer_cannot_reach_the_confirmation(client, w):
    client.force_login(w["second"])
    answer = client.post("/admin/leaderboard/round/", {"action": "publish", "_selected_action": [w["round"].pk]})
    assert "Publish: are you sure?" not in answer.content.decode()
    assert Round.objects.get(pk=w["round"].pk).status == "preview"
