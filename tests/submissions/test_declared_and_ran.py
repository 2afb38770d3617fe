"""The two real τ²-bench submissions before an editor, from outside (the submission page's forms, the admin's
action, the API): a failed protocol check (task versions, trials, limits, a differing figure) blocks verifying;
a failed disclosure check (a declared model or user simulator other than the ones run) does not, but verifying
asks for a note acknowledging it, and the verified result shows what ran with the declared beside it, marked, on
the board row, the submission page, its run pages and the API.

ToolOrchestra declares Nemotron-Orchestrator-8B with a gpt-5 user simulator; its trajectories ran
gpt-4.1-mini-2025-04-14 against a gpt-4.1-2025-04-14 simulator (their `info.agent_info.llm`,
`info.user_info.llm`). Both submissions ran τ²-bench's 2025-06-10 task set: against it every protocol check
passes but one: its runs are filed under other tasks' ids (`graded_as_filed`, tests/submissions/
test_real_submissions.py), so the tests of verifying it take its folder re-filed as its runs were graded
(`tests.builders.tau2.refiled`: the same runs, every protocol check passed); against today's alone
`task_versions` fails."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import Entry
from runs.models import Run
from submissions.models import Submission, SubmissionEvent
from tests.builders.review import make_user
from tests.builders.tau2 import BUTTON, TOOLORCHESTRA, refiled
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

LINK = "https://example.org/audit"
NOTE = "Re-ran ten airline tasks from the trajectories' seeds: same rewards."
ACK = "The runs used gpt-4.1-mini against a gpt-4.1 simulator, not the declared models: shown as run."
RAN = "ran model gpt-4.1-mini-2025-04-14, user simulator gpt-4.1-2025-04-14"
DECLARED = "declared model Nemotron-Orchestrator-8B, user simulator gpt-5"
CHANGELIST = "/admin/submissions/submission/"


def _import(path, org: str) -> Submission:
    call_command("import_submission", str(path), benchmark="tau2", organization=org, stdout=StringIO())
    return Submission.objects.latest("id")


def _verify_on_the_page(client, sub: Submission, **fields: str):
    return client.post(f"/b/tau2/submissions/{sub.pk}/verify/", fields, follow=True)


def _verify_in_the_admin(client, sub: Submission, **fields: str):
    data = {"action": "verify", "_selected_action": [str(sub.pk)], "apply": "1", **fields}
    return client.post(CHANGELIST, data)


def _tier(sub: Submission) -> str:
    return Submission.objects.get(pk=sub.pk).tier


def _agent_cell(html: str, slug: str) -> str:
    at = html.index(f'<tr data-agent="{slug}"')
    return html[at : html.index("</th>", at)]


def test_toolorchestra_on_the_task_set_it_ran_is_verified_on_its_page_only_with_a_note_acknowledging_its_models(
    tau2_releases, client, tmp_path
):
    sub = _import(refiled(TOOLORCHESTRA, tmp_path), "nvidia")
    assert [c["name"] for c in sub.checks if not c["passed"]] == ["declared_models"]
    assert sub.tier == "flagged"
    # Whoever is not an editor cannot verify it: the submitting organization's member, a tester, anyone signed out.
    member = make_user("nia", "Vendors", org="NVIDIA")
    for who in (member, make_user("tess", "Testers"), None):
        client.logout()
        if who is not None:
            client.force_login(who)
        asked = {"note": NOTE, "link": LINK, "disclosure_note": ACK}
        answer = client.post(f"/b/tau2/submissions/{sub.pk}/verify/", asked)
        assert answer.status_code == 403 and _tier(sub) == "flagged"
    # An editor sees that verifying asks for the acknowledgment, and what it is of.
    client.force_login(make_user("edna", "Editors"))
    page = client.get(f"/b/tau2/submissions/{sub.pk}/").content.decode()
    assert 'name="disclosure_note" rows="3" required' in page
    assert "Required: a note acknowledging what differs from what was declared: declared_models: declared " in page
    assert "Verifying is refused while" not in page
    # Without it: refused, saying why, and nothing changes.
    refused = _verify_on_the_page(client, sub, note=NOTE, link=LINK).content.decode()
    assert "Not done (verify): verifying needs a note acknowledging what differs from what was declared" in refused
    assert _tier(sub) == "flagged" and not SubmissionEvent.objects.filter(submission=sub, kind="verified").exists()
    # With it: verified, the note kept and shown.
    _verify_on_the_page(client, sub, note=NOTE, link=LINK, disclosure_note=ACK)
    sub.refresh_from_db()
    assert (sub.tier, sub.disclosure_note) == ("verified", ACK)
    entry = Entry.objects.get(round=sub.round, agent=sub.agent)
    assert entry.tier == "verified" and entry.model == "gpt-4.1-mini-2025-04-14"
    compute_all()
    client.logout()

    # The board's default view: the verified row shows what ran, the declared beside it, marked.
    board = client.get(f"/b/tau2/r/{sub.round.key}/").content.decode()
    cell = _agent_cell(board, sub.agent.slug)
    assert f"by NVIDIA · {RAN} · {DECLARED}" in cell
    assert '<span class="badge warn">not as declared</span>' in cell
    row = board[board.index(f'<tr data-agent="{sub.agent.slug}"') :]
    assert ">verified<" in row[: row.index("</tr>")]

    # The submission page: what ran beside what was declared, the acknowledgment, the check failed as a disclosure.
    page = client.get(f"/b/tau2/submissions/{sub.pk}/").content.decode()
    ran = page[page.index("data-as-ran") : page.index("</section>", page.index("data-as-ran"))]
    assert re.search(r'data-ran="model">.*<strong>gpt-4\.1-mini-2025-04-14</strong>.*Nemotron-Orchestrator-8B', ran)
    assert re.search(r'data-ran="user simulator">.*<strong>gpt-4\.1-2025-04-14</strong>.*gpt-5', ran)
    assert "Acknowledged by the verifying editor:</strong> The runs used gpt-4.1-mini" in ran
    # Nine checks: attempts_declared (every attempt within num_trials, none left out as a platform failure) passes.
    assert (
        "1 of 10 checks failed, a disclosure only: what the submission declares is not what its runs ran. An "
        "editor verified it, acknowledging that" in page
    )

    # A run page: the model and user simulator that ran, each with the declared one beside it, marked.
    run = Run.objects.filter(round=sub.round, entry__agent=sub.agent).order_by("key").first()
    html = client.get(f"/b/tau2/r/{sub.round.key}/runs/{run.key}/").content.decode()
    assert re.search(
        r'data-ran="model"><dt>Model</dt><dd><strong>gpt-4\.1-mini-2025-04-14</strong> <span class="muted">'
        r'\(declared Nemotron-Orchestrator-8B\)</span> <span class="badge warn">not as declared</span>',
        html,
    )
    assert '<strong>gpt-4.1-2025-04-14</strong> <span class="muted">(declared gpt-5)</span>' in html
    assert f'<a href="/b/tau2/submissions/{sub.pk}/">its submission</a>' in html

    # The API: the same, with each check's kind.
    (listed,) = client.get("/api/benchmarks/tau2/submissions").json()
    assert listed["tier"] == "verified" and listed["acknowledged"] == ACK
    assert listed["as_ran"] == [
        {"what": "model", "ran": "gpt-4.1-mini-2025-04-14", "declared": "Nemotron-Orchestrator-8B"},
        {"what": "user simulator", "ran": "gpt-4.1-2025-04-14", "declared": "gpt-5"},
    ]
    kinds = {c["name"]: c["kind"] for c in listed["checks"]}
    assert kinds["declared_models"] == "disclosure" and kinds["task_versions"] == "protocol"
    detail = client.get(f"/api/benchmarks/tau2/runs/{sub.round.key}/{run.key}").json()
    assert detail["as_ran"] == listed["as_ran"]


def test_toolorchestra_on_the_task_set_it_ran_is_verified_in_the_admin_only_with_a_note_acknowledging_its_models(
    tau2_releases, client, tmp_path
):
    sub = _import(refiled(TOOLORCHESTRA, tmp_path), "nvidia")
    client.force_login(make_user("tess", "Testers"))  # staff, not an editor
    assert _verify_in_the_admin(client, sub, note=NOTE, link=LINK, disclosure_note=ACK).status_code == 403
    client.force_login(make_user("edna", "Editors"))
    asked = client.post(CHANGELIST, {"action": "verify", "_selected_action": [str(sub.pk)]}).content.decode()
    assert 'name="disclosure_note"' in asked and "Required: a note acknowledging" in asked
    # Without the note: the form again, its error on the field; nothing changes.
    answer = _verify_in_the_admin(client, sub, note=NOTE, link=LINK)
    assert answer.status_code == 200 and "This field is required." in answer.content.decode()
    assert _tier(sub) == "flagged"
    answer = _verify_in_the_admin(client, sub, note=NOTE, link=LINK, disclosure_note=ACK)
    assert answer.status_code == 302
    sub.refresh_from_db()
    assert (sub.tier, sub.disclosure_note) == ("verified", ACK)
    event = SubmissionEvent.objects.get(submission=sub, kind="verified")
    assert event.note == f"{NOTE} (acknowledged: {ACK})"
    # Flagged again later, the acknowledgment goes with the verification.
    client.post(
        CHANGELIST,
        {"action": "flag", "_selected_action": [str(sub.pk)], "apply": "1", "reason": "Reran: 41", "link": LINK},
    )
    sub.refresh_from_db()
    assert (sub.tier, sub.verified_note, sub.disclosure_note) == ("flagged", "", "")


def test_against_todays_task_set_alone_toolorchestra_stays_flagged_and_no_note_lets_it_be_verified(tau2, client):
    sub = _import(TOOLORCHESTRA, "nvidia")
    failed = {c["name"] for c in sub.checks if not c["passed"]}
    assert {"task_versions", "declared_models"} <= failed and sub.tier == "flagged"
    client.force_login(make_user("edna", "Editors"))
    page = client.get(f"/b/tau2/submissions/{sub.pk}/").content.decode()
    assert "cannot be verified while a protocol check fails" in page
    refused = _verify_on_the_page(client, sub, note=NOTE, link=LINK, disclosure_note=ACK).content.decode()
    assert "Not done (verify): cannot verify while these stand: tasks_covered: " in refused
    assert "task_versions: task set 1.0" in refused
    assert _tier(sub) == "flagged"
    answer = _verify_in_the_admin(client, sub, note=NOTE, link=LINK, disclosure_note=ACK)
    followed = client.get(answer["Location"]).content.decode()
    assert "cannot verify while these stand: tasks_covered" in followed
    assert _tier(sub) == "flagged" and not SubmissionEvent.objects.filter(submission=sub, kind="verified").exists()


def test_button_on_the_task_set_it_ran_is_verified_on_its_page_with_no_acknowledgment_asked(tau2_releases, client):
    sub = _import(BUTTON, "distyl-ai")
    assert sub.tier == "self-reported"
    client.force_login(make_user("edna", "Editors"))
    page = client.get(f"/b/tau2/submissions/{sub.pk}/").content.decode()
    assert 'name="disclosure_note"' not in page and "data-as-ran" not in page
    _verify_on_the_page(client, sub, note=NOTE, link=LINK)
    sub.refresh_from_db()
    assert (sub.tier, sub.disclosure_note) == ("verified", "")
    # What it declared is what ran: its entry keeps the declared model, and the API lists nothing as run instead.
    assert Entry.objects.get(round=sub.round, agent=sub.agent).model == "Button (Claude Opus 4.6)"
    (listed,) = client.get("/api/benchmarks/tau2/submissions").json()
    assert listed["as_ran"] == [] and listed["acknowledged"] == ""
