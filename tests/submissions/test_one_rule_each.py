"""Each submission rule decided once: the open track the form, the API and the command take (the newest open one
when no round is named), and the action forms the site's page and the admin both use (their limits too)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from leaderboard.models import Round
from submissions.catalogue import track_open
from submissions.models import Submission
from tests.builders import tau2 as t
from tests.builders.review import make_user
from tests.builders.site_submissions import hand_made_submission

pytestmark = pytest.mark.django_db


def _second_track(w) -> Round:
    """A second open track on the benchmark, opened a day after the community one."""
    later = track_open(benchmark=w.bench, round_key="community-2")
    type(later).objects.filter(pk=later.pk).update(opened_at=timezone.now() + timedelta(days=1))
    return later.round


def _archive():
    return SimpleUploadedFile("submission.zip", t.zipped(t.files()), content_type="application/zip")


def test_with_two_open_tracks_the_api_and_the_form_both_take_the_newest():
    w = t.mini_world()
    newest = _second_track(w)
    # The API, no round named: into the newest open track (it used to refuse: "name the round").
    answer = Client().post(
        "/api/benchmarks/mini-tau/submissions",
        {"archive": _archive(), "agent": "a-agent"},
        HTTP_AUTHORIZATION=f"Bearer {w.key_a}",
    )
    assert answer.status_code == 201, answer.content
    assert answer.json()["round"] == "community-2"
    # The form, as a member of org B: the same track.
    member = make_user("bea", org="Org B")
    client = Client()
    client.force_login(member)
    page = client.get("/b/mini-tau/submit/").content.decode()
    assert newest.name in page
    sent = client.post("/b/mini-tau/submit/", {"agent": "b-agent", "format": "tau2", "file": _archive()})
    assert sent.status_code == 302, sent.content.decode()[:2000]
    assert set(Submission.objects.values_list("round__key", flat=True)) == {"community-2"}


def test_the_admin_flags_with_the_sites_form_and_its_limits(client):
    # The admin's flag form is the site's (forms.FlagForm): a reason past 5,000 characters is refused in both.
    sub = hand_made_submission()
    client.force_login(make_user("edna", "Editors"))
    data = {"action": "flag", "_selected_action": [str(sub.pk)], "apply": "1", "link": "https://example.org/c"}
    answer = client.post("/admin/submissions/submission/", {**data, "reason": "x" * 5001})
    assert answer.status_code == 200 and "at most 5000 characters" in answer.content.decode()
    assert Submission.objects.get(pk=sub.pk).tier == "self-reported"
    page = client.post(
        f"/b/{sub.benchmark.slug}/submissions/{sub.pk}/flag/", {"reason": "x" * 5001, "link": data["link"]}
    )
    assert page.status_code == 302 and Submission.objects.get(pk=sub.pk).tier == "self-reported"
    client.post("/admin/submissions/submission/", {**data, "reason": "Copied runs"})
    assert Submission.objects.get(pk=sub.pk).tier == "flagged"
