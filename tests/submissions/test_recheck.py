"""Stored submissions checked again (`manage.py recheck_submissions`, submissions/recheck.py): ToolOrchestra as it
was stored before `graded_as_filed` existed, and verified by an editor who acknowledged its disclosure, is flagged
once checked again, and says so in its history and its round's changelog; Button, whose runs are graded as filed,
is unchanged; a dry run changes nothing; an upload that was not kept is reported and left alone."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import ChangelogEntry, Entry
from submissions.models import Submission, SubmissionEvent
from submissions.services import tier_set
from tests.builders.tau2 import BUTTON, TOOLORCHESTRA

pytestmark = pytest.mark.django_db


def _import(path, org, **agent) -> Submission:
    call_command("import_submission", str(path), benchmark="tau2", organization=org, stdout=StringIO(), **agent)
    return Submission.objects.latest("id")


def _stored_before_the_check(sub: Submission) -> Submission:
    """Its record as taken before `graded_as_filed` existed, then verified by an editor past its disclosure."""
    sub.checks = [c for c in sub.checks if c["name"] != "graded_as_filed"]
    sub.verified_note, sub.verified_link = "Audited", "https://example.org/audit"
    sub.disclosure_note = "Ran gpt-4.1-mini, as its files say"
    tier_set(sub)
    assert sub.tier == "verified"
    return sub


def _recheck(*args) -> str:
    out = StringIO()
    call_command("recheck_submissions", *args, stdout=out)
    return out.getvalue()


def test_a_submission_verified_before_a_check_existed_is_flagged_when_checked_again(tau2_releases):
    orchestra = _stored_before_the_check(_import(TOOLORCHESTRA, "nvidia"))
    button = _import(BUTTON, "distyl-ai")
    events = SubmissionEvent.objects.filter(submission=orchestra).count()

    said = _recheck("--dry-run")
    assert (
        f"submission {orchestra.pk} (NVIDIA, nemotron-orchestrator-8b): graded_as_filed (new): fails: airline: "
        "43 of 50 runs were graded as another task (task 0 as task 27, " in said
    )
    assert f"submission {button.pk} (Distyl AI, " in said and said.count(": unchanged") == 1
    assert said.endswith("2 submission(s) checked again, 1 would change\n")
    orchestra.refresh_from_db()
    assert orchestra.tier == "verified" and "graded_as_filed" not in {c["name"] for c in orchestra.checks}

    said = _recheck("--benchmark", "tau2")
    assert "; tier verified -> flagged" in said and said.endswith("1 changed\n")
    orchestra.refresh_from_db()
    graded = next(c for c in orchestra.checks if c["name"] == "graded_as_filed")
    assert graded["passed"] is False and graded["detail"].startswith("airline: 43 of 50 runs were graded as another")
    # A protocol check fails: no editor's verdict stands past it, on the submission and on its boards' entry.
    assert orchestra.tier == "flagged"
    assert Entry.objects.get(round=orchestra.round, agent=orchestra.agent).tier == "flagged"
    event = SubmissionEvent.objects.filter(submission=orchestra).latest("id")
    assert SubmissionEvent.objects.filter(submission=orchestra).count() == events + 1
    assert event.kind == "flagged" and event.note.startswith("Checked again: graded_as_filed (new): fails: airline")
    change = ChangelogEntry.objects.filter(round=orchestra.round).latest("id")
    assert change.what.startswith(f"Submission {orchestra.pk} by NVIDIA checked again: graded_as_filed (new)")
    button.refresh_from_db()
    assert button.tier == "self-reported"

    assert _recheck().endswith("2 submission(s) checked again, 0 changed\n")  # checked again: nothing new


def test_a_submission_without_a_kept_upload_is_reported_and_left_alone(tau2_releases):
    sub = _import(BUTTON, "distyl-ai")
    sub.archive = ""
    sub.save(update_fields=["archive"])
    said = _recheck("--submission", str(sub.pk))
    assert said == (
        f"submission {sub.pk} (Distyl AI, {sub.agent.slug}): not checked again: no upload was kept (sent as loose "
        "files)\n1 submission(s) checked again, 0 changed\n"
    )


def test_unknown_benchmark_or_submission_is_a_clear_error(tau2_releases):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no benchmark 'nope'"):
        _recheck("--benchmark", "nope")
    with pytest.raises(CommandError, match="no submission 999"):
        _recheck("--submission", "999")


def test_an_editor_checks_again_from_the_admin(tau2_releases, client):
    from django.contrib.auth import get_user_model

    orchestra = _stored_before_the_check(_import(TOOLORCHESTRA, "nvidia"))
    editor = get_user_model().objects.create_superuser("editor", password="x")
    client.force_login(editor)
    response = client.post(
        "/admin/submissions/submission/",
        {"action": "recheck", "_selected_action": [orchestra.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "graded_as_filed (new): fails: airline: 43 of 50" in response.content.decode()
    orchestra.refresh_from_db()
    assert orchestra.tier == "flagged"
    assert SubmissionEvent.objects.filter(submission=orchestra).latest("id").by == editor


def test_only_an_editor_checks_again(tau2_releases, client):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    orchestra = _stored_before_the_check(_import(TOOLORCHESTRA, "nvidia"))
    staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)  # in no group
    client.force_login(staff)
    response = client.post("/admin/submissions/submission/", {"action": "recheck", "_selected_action": [orchestra.pk]})
    assert response.status_code == 403
    # Given the permission to change submissions by hand, still not an editor: refused as the other verdicts are.
    staff.user_permissions.add(*Permission.objects.filter(codename__in=["view_submission", "change_submission"]))
    response = client.post("/admin/submissions/submission/", {"action": "recheck", "_selected_action": [orchestra.pk]})
    assert response.status_code == 403
    client.logout()
    response = client.post("/admin/submissions/submission/", {"action": "recheck", "_selected_action": [orchestra.pk]})
    assert response.status_code == 302 and "/login/" in response["Location"]
    orchestra.refresh_from_db()
    assert orchestra.tier == "verified"


def test_a_superseded_submission_takes_its_checks_and_leaves_the_live_one_s_entry_alone(tau2_releases):
    old = _stored_before_the_check(_import(TOOLORCHESTRA, "nvidia"))
    new = _import(BUTTON, "nvidia", agent=old.agent.slug)  # the same agent again: the first one is superseded
    old.refresh_from_db()
    assert old.status == "superseded" and new.status == "live" and new.round_id == old.round_id
    entry = Entry.objects.get(round=new.round, agent=new.agent)
    shown = (entry.model, entry.tier)
    changelog = ChangelogEntry.objects.filter(round=old.round).count()
    said = _recheck("--submission", str(old.pk))
    assert "graded_as_filed (new): fails: airline: 43 of 50" in said
    old.refresh_from_db()
    assert next(c for c in old.checks if c["name"] == "graded_as_filed")["passed"] is False
    assert old.status == "superseded" and old.tier == "verified"  # its tier as it left the boards
    assert SubmissionEvent.objects.filter(submission=old).latest("id").note.startswith("Checked again: graded_as")
    # The boards' entry is the live submission's: its model (the one Button ran) and tier are untouched, and the
    # round's changelog says nothing of a submission no longer on it.
    entry.refresh_from_db()
    assert (entry.model, entry.tier) == shown and entry.model != "gpt-4.1-mini-2025-04-14"
    assert ChangelogEntry.objects.filter(round=old.round).count() == changelog


def test_an_organization_named_with_a_colon_reads_whole_in_the_history(tau2_releases):
    from leaderboard.models import Organization

    Organization.objects.filter(slug="nvidia").update(name="NVIDIA: Research")
    orchestra = _stored_before_the_check(_import(TOOLORCHESTRA, "nvidia"))
    _recheck()
    event = SubmissionEvent.objects.filter(submission=orchestra).latest("id")
    assert event.note.startswith("Checked again: graded_as_filed (new): fails: airline: 43 of 50")
    change = ChangelogEntry.objects.filter(round=orchestra.round).latest("id")
    assert change.what.startswith(f"Submission {orchestra.pk} by NVIDIA: Research checked again: graded_as_filed")
