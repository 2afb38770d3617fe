"""The submission pages attacked from outside: the upload form, the page of a submission and each action on it,
as an anonymous visitor, a signed-in user of no organization, a member of another organization, a member of
the submitting organization (a vendor) and an editor; with CSRF enforced."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.models import Agent, Membership, Organization, RoundStatus
from submissions.models import Submission, SubmissionEvent, SubmissionTrack
from tests.builders.review import make_user
from tests.builders.site_submissions import hand_made_submission

pytestmark = pytest.mark.django_db

ACTIONS = {
    "verify": {"note": "Re-ran it", "link": "https://example.org/a"},
    "flag": {"reason": "Copied runs", "link": "https://example.org/b"},
    "unflag": {"note": ""},
    "withdraw": {"note": ""},
}


@pytest.fixture
def world():
    sub = hand_made_submission()
    other = Organization.objects.create(slug="rival", name="Rival")
    Agent.objects.filter(slug="under").update(organization=other)
    SubmissionTrack.objects.create(round=sub.round)
    return {
        "sub": sub,
        "editor": make_user("edna", "Editors"),
        "vendor": _member("vera", sub.organization),
        "rival": _member("rita", other),
        "plain": make_user("pat"),
    }


def _member(name: str, org: Organization):
    user = make_user(name, "Vendors")
    Membership.objects.create(user=user, organization=org)
    return user


def _state(sub: Submission) -> tuple:
    sub.refresh_from_db()
    return sub.status, sub.tier, sub.flag_reason, sub.verified_note, sub.events.count()


@pytest.mark.parametrize("action", list(ACTIONS))
def test_no_one_but_an_editor_verifies_flags_or_unflags_and_no_outsider_withdraws(client, world, action):
    sub = world["sub"]
    before = _state(sub)
    url = f"/b/sbench/submissions/{sub.pk}/{action}/"
    assert client.post(url, ACTIONS[action]).status_code == 403  # anonymous
    outsiders = ["plain", "rival"] + ([] if action == "withdraw" else ["vendor"])
    for who in outsiders:
        client.force_login(world[who])
        assert client.post(url, ACTIONS[action]).status_code == 403, who
        client.logout()
    assert _state(sub) == before


def test_a_get_changes_nothing_and_csrf_is_enforced(world):
    sub = world["sub"]
    before = _state(sub)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(world["editor"])
    url = f"/b/sbench/submissions/{sub.pk}/flag/"
    assert strict.get(url).status_code == 405
    assert strict.post(url, ACTIONS["flag"]).status_code == 403
    assert _state(sub) == before


def test_the_editor_and_the_submitting_organization_act(client, world):
    sub = world["sub"]
    client.force_login(world["editor"])
    client.post(f"/b/sbench/submissions/{sub.pk}/flag/", ACTIONS["flag"])
    assert _state(sub)[1] == "flagged"
    client.force_login(world["vendor"])
    client.post(f"/b/sbench/submissions/{sub.pk}/withdraw/", ACTIONS["withdraw"])
    assert _state(sub)[0] == "withdrawn"
    assert list(SubmissionEvent.objects.filter(submission=sub).values_list("kind", flat=True).order_by("id")) == [
        "submitted",
        "flagged",
        "withdrawn",
    ]


def test_the_page_shows_the_forms_only_to_whom_may_use_them(client, world):
    sub = world["sub"]
    url = f"/b/sbench/submissions/{sub.pk}/"
    seen = {}
    for who in ("anonymous", "plain", "rival", "vendor", "editor"):
        if who != "anonymous":
            client.force_login(world[who])
        html = client.get(url).content.decode()
        seen[who] = ("/verify/" in html, "/withdraw/" in html)
        client.logout()
    assert seen == {
        "anonymous": (False, False),
        "plain": (False, False),
        "rival": (False, False),
        "vendor": (False, True),
        "editor": (True, True),
    }


def test_an_unpublished_rounds_submission_is_not_found_to_the_public(client, world):
    sub = world["sub"]
    type(sub.round).objects.filter(pk=sub.round_id).update(status=RoundStatus.DRAFT)
    url = f"/b/sbench/submissions/{sub.pk}/"
    assert client.get(url).status_code == 404
    client.force_login(world["rival"])
    assert client.get(url).status_code == 404
    client.force_login(world["vendor"])
    assert client.get(url).status_code == 200
    assert client.get("/b/sbench/submissions/999999/").status_code == 404
    assert client.get(f"/b/otherbench/submissions/{sub.pk}/").status_code == 404


def test_the_upload_form_is_for_members_and_offers_only_their_own_agents(client, world):
    assert client.get("/b/sbench/submit/").status_code == 403  # a page saying to sign in (test_refusal_pages.py)
    client.force_login(world["plain"])
    assert client.get("/b/sbench/submit/").status_code == 403
    client.force_login(world["rival"])
    html = client.get("/b/sbench/submit/").content.decode()
    assert 'value="under"' in html and 'value="full"' not in html and 'value="solo"' not in html
    client.force_login(world["vendor"])
    html = client.get("/b/sbench/submit/").content.decode()
    assert 'value="full"' in html and 'value="under"' not in html


def test_a_member_cannot_submit_for_another_organizations_agent(client, world):
    client.force_login(world["rival"])
    count = Submission.objects.count()
    upload = _file(b"{}", "bundle.json")
    response = client.post("/b/sbench/submit/", {"agent": "full", "format": "bundle", "file": upload})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    # A new agent named like another organization's agent is refused too.
    upload = _file(b"{}", "bundle.json")
    response = client.post(
        "/b/sbench/submit/", {"agent": "__new__", "new_agent_name": "Full", "format": "bundle", "file": upload}
    )
    assert response.status_code == 400 and "belongs to another organization" in response.content.decode()
    assert Submission.objects.count() == count


def _file(data: bytes, name: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data, content_type="application/octet-stream")
