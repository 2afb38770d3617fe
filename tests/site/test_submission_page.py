"""A submission's page as its readers see it (checks with reasons, claimed beside recomputed with differences
marked and "not verifiable" shown as such, its runs through the run pages and the search, its history), and the
editors' actions on it (verify, flag, unflag, withdraw), each an event that sets the tier on the board again.
The submission rows here are made by hand on a scored round, as the submission service leaves them."""

from __future__ import annotations

import re

import pytest

from leaderboard.models import Entry
from runs.models import Run
from submissions.models import Submission, SubmissionEvent
from tests.builders.review import make_user
from tests.builders.site_submissions import DIFFER, FAILED, hand_made_submission
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db


def _board_agents(client, query: str = "") -> list[str]:
    return re.findall(r'<tr data-agent="([^"]+)"', client.get(f"/b/sbench/{query}").content.decode())


def test_the_page_shows_each_check_with_its_reason_and_claimed_beside_recomputed(load, client):
    sub = hand_made_submission(checks=FAILED, figures=DIFFER, tier="flagged")
    html = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    check = html[html.index('data-check="task_versions_current"') :]
    check = check[: check.index("</tr>")]
    assert '<span class="pill bad">failed</span>' in check
    assert "code: 2 of 3 tasks differ from the current version 1.0: t1, t2" in check
    assert "1 of 3 checks failed" in html
    # Claimed 100.0 (1 decimal), recomputed 66.666...: shown to 3 decimals, the difference marked.
    at = html.index('data-figure="code pass^1"')
    row = html[at : html.index("</tr>", at)]
    assert html[at : at + 50].startswith('data-figure="code pass^1" class="differs"')
    assert ">100.0<" in row and ">66.667<" in row and "<strong>-33.333</strong>" in row and ">differs<" in row
    other = html[html.index('data-figure="other pass^1"') :]
    other = other[: other.index("</tr>")]
    assert ">not verifiable<" in other and ">agrees<" not in other and ">–<" in other
    assert '<span class="pill bad"' in html[html.index("<h1>") : html.index("</h1>")]


def test_the_page_never_shows_the_contact_address(load, client):
    sub = hand_made_submission()
    html = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    assert "ann@acme.example" not in html
    assert "model_name" in html and "Full 1" in html


def test_the_page_lists_its_runs_through_the_run_pages_and_the_search(load, client):
    sub = hand_made_submission()
    html = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    # Full ran t1, t2, t3 once each (scored_bundle): three runs, each linking to its run page.
    for key in (f"s{sub.pk}-full-t1-1", f"s{sub.pk}-full-t2-1", f"s{sub.pk}-full-t3-1"):
        assert f'href="/b/sbench/r/r1/runs/{key}/"' in html
    assert "3 runs" in html
    assert 'href="/b/sbench/search/?agent=full"' in html
    assert client.get(f"/b/sbench/r/r1/runs/s{sub.pk}-full-t1-1/").status_code == 200


def test_an_editor_verifies_with_a_note_and_a_link_and_the_board_says_verified(load, client):
    sub = hand_made_submission()
    editor = make_user("edna", "Editors")
    client.force_login(editor)
    html = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    assert "Verify (reproduced or audited)" in html
    url = f"/b/sbench/submissions/{sub.pk}/verify/"
    # Without a link: refused, nothing changes.
    client.post(url, {"note": "Re-ran airline", "link": ""})
    assert Submission.objects.get(pk=sub.pk).tier == "self-reported"
    client.post(url, {"note": "Re-ran all three tasks", "link": "https://example.org/audit"})
    sub.refresh_from_db()
    assert sub.tier == "verified" and Entry.objects.get(agent__slug="full").tier == "verified"
    compute_all()
    client.logout()
    page = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    assert "Re-ran all three tasks" in page and 'href="https://example.org/audit"' in page
    assert 'data-event="verified"' in page
    board = client.get("/b/sbench/").content.decode()
    row = board[board.index('<tr data-agent="full"') :]
    assert ">verified<" in row[: row.index("</tr>")]
    assert f'href="/b/sbench/submissions/{sub.pk}/"' in row[: row.index("</tr>")]


def test_verifying_is_refused_while_a_check_fails(load, client):
    sub = hand_made_submission(checks=FAILED, tier="flagged")
    client.force_login(make_user("edna", "Editors"))
    response = client.post(
        f"/b/sbench/submissions/{sub.pk}/verify/", {"note": "ok", "link": "https://example.org/a"}, follow=True
    )
    assert (
        "cannot verify while these stand: task_versions_current: code: 2 of 3 tasks differ" in response.content.decode()
    )
    assert Submission.objects.get(pk=sub.pk).tier == "flagged"


def test_an_editor_flags_then_unflags_and_the_row_leaves_then_rejoins_the_default_view(load, client):
    sub = hand_made_submission()
    client.force_login(make_user("edna", "Editors"))
    assert "full" in _board_agents(client)
    client.post(
        f"/b/sbench/submissions/{sub.pk}/flag/",
        {"reason": "Same trajectories as run 7", "link": "https://example.org/x"},
    )
    assert Submission.objects.get(pk=sub.pk).tier == "flagged"
    compute_all()
    assert "full" not in _board_agents(client) and "full" in _board_agents(client, "?tier=flagged")
    client.post(f"/b/sbench/submissions/{sub.pk}/unflag/", {"note": "Explained"})
    assert Submission.objects.get(pk=sub.pk).tier == "self-reported"
    compute_all()
    assert "full" in _board_agents(client)
    kinds = list(SubmissionEvent.objects.filter(submission=sub).order_by("id").values_list("kind", flat=True))
    assert kinds == ["submitted", "flagged", "unflagged"]


def test_the_submitting_organization_withdraws_and_its_runs_leave_the_board(load, client):
    sub = hand_made_submission()
    member = make_user("ann")
    from leaderboard.models import Membership

    Membership.objects.create(user=member, organization=sub.organization)
    client.force_login(member)
    html = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    assert "Withdraw" in html and "Verify (reproduced or audited)" not in html
    client.post(f"/b/sbench/submissions/{sub.pk}/withdraw/", {"note": "Wrong model"})
    sub.refresh_from_db()
    assert sub.status == "withdrawn"
    assert not Run.objects.filter(entry__agent__slug="full").exists()
    compute_all()
    assert "full" not in _board_agents(client, "?tier=all")
    page = client.get(f"/b/sbench/submissions/{sub.pk}/").content.decode()
    assert "withdrawn" in page and 'data-event="withdrawn"' in page and "Wrong model" in page


def test_an_agents_page_links_its_tier_to_its_submission(client):
    sub = hand_made_submission(checks=FAILED, tier="flagged")
    html = client.get("/agents/full/").content.decode()
    assert f'<a class="pill bad" href="/b/sbench/submissions/{sub.pk}/">flagged</a>' in html
