"""The editors' actions on submissions in the admin (verify, flag, unflag, withdraw: each asks for its note,
reason or link on a page of its own, then is one event), and who reaches them: an editor does; a tester (staff,
not an editor), a vendor and an anonymous visitor do not. The contact address is never shown there either."""

from __future__ import annotations

import pytest

from submissions.models import Submission, SubmissionEvent
from tests.builders.review import make_user
from tests.builders.site_submissions import FAILED, hand_made_submission

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/submissions/submission/"


def _act(client, sub: Submission, action: str, **fields: str):
    data = {"action": action, "_selected_action": [str(sub.pk)], **fields}
    return client.post(CHANGELIST, data)


def test_an_editor_flags_in_the_admin_giving_a_reason_and_a_link(client):
    sub = hand_made_submission()
    client.force_login(make_user("edna", "Editors"))
    asked = _act(client, sub, "flag")
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert Submission.objects.get(pk=sub.pk).tier == "self-reported"  # asking changes nothing
    done = _act(client, sub, "flag", apply="1", reason="Runs copied from another team", link="https://example.org/c")
    assert done.status_code == 302
    sub.refresh_from_db()
    assert sub.tier == "flagged" and sub.flag_reason == "Runs copied from another team"
    assert SubmissionEvent.objects.filter(submission=sub, kind="flagged", link="https://example.org/c").exists()
    _act(client, sub, "unflag", apply="1", note="")
    assert Submission.objects.get(pk=sub.pk).tier == "self-reported"


def test_verifying_in_the_admin_is_refused_while_a_check_fails(client):
    sub = hand_made_submission(checks=FAILED, tier="flagged")
    client.force_login(make_user("edna", "Editors"))
    response = _act(client, sub, "verify", apply="1", note="Audited", link="https://example.org/a")
    assert response.status_code == 302
    followed = client.get(response["Location"]).content.decode()
    assert "cannot verify while these stand: task_versions_current" in followed
    assert Submission.objects.get(pk=sub.pk).tier == "flagged"


def test_an_editor_withdraws_in_the_admin(client):
    sub = hand_made_submission()
    client.force_login(make_user("edna", "Editors"))
    _act(client, sub, "withdraw", apply="1", note="Asked by the team")
    assert Submission.objects.get(pk=sub.pk).status == "withdrawn"


def test_the_admin_never_shows_the_contact_address(client):
    sub = hand_made_submission()
    client.force_login(make_user("edna", "Editors"))
    html = client.get(f"{CHANGELIST}{sub.pk}/change/").content.decode()
    assert "Full 1" in html and "ann@acme.example" not in html


def test_no_one_else_reaches_the_admin_actions(client):
    sub = hand_made_submission()
    before = Submission.objects.get(pk=sub.pk).tier
    assert _act(client, sub, "flag", apply="1", reason="x", link="https://example.org/x").status_code == 302  # login
    tester = make_user("tess", "Testers")
    client.force_login(tester)
    assert _act(client, sub, "flag", apply="1", reason="x", link="https://example.org/x").status_code == 403
    client.force_login(make_user("vera", "Vendors", org=None))
    response = _act(client, sub, "flag", apply="1", reason="x", link="https://example.org/x")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert Submission.objects.get(pk=sub.pk).tier == before
    assert not SubmissionEvent.objects.filter(submission=sub, kind="flagged").exists()
