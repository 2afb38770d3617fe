"""Every refusal on the way to submitting is a page of the site (its header, the reason, what to do next), never
a bare "403 Forbidden": the upload form to an anonymous visitor, to an account of no organization and while its
track is closed; an action on a submission refused to an outsider; a form sent without its CSRF token. And the
way in is linked: "Submit results" on each benchmark with an open track (its board, its methodology page, its
card on the home page), nowhere else. `import_submission` names or makes the organization as the join requests
do."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from leaderboard.models import Membership, Organization
from submissions.models import Submission, SubmissionTrack
from tests.builders.review import make_user
from tests.builders.site_submissions import hand_made_submission
from tests.builders.tau2 import TAU2, TOOLORCHESTRA

pytestmark = pytest.mark.django_db


@pytest.fixture
def track():
    sub = hand_made_submission()  # Acme's agent "full" on benchmark sbench, round r1
    return SubmissionTrack.objects.create(round=sub.round)


def _framed(response, status: int = 403) -> str:
    assert response.status_code == status
    html = response.content.decode()
    assert 'class="site-header"' in html and "<footer" in html, html[:300]
    return html


def test_an_anonymous_visitor_is_told_to_sign_in_then_ask_to_join(track, client):
    html = _framed(client.get("/b/sbench/submit/"))
    assert "signed in as a member of" in html
    assert 'href="/signin/?next=/b/sbench/submit/"' in html and 'href="/signup/?next=/join/"' in html
    assert 'href="/join/"' in html and 'href="/b/sbench/methodology/#submissions"' in html


def test_an_account_of_no_organization_is_told_to_ask_to_join(track, client):
    client.force_login(make_user("pat"))
    html = _framed(client.get("/b/sbench/submit/"))
    assert "member of no organization" in html and 'href="/join/"' in html
    assert _framed(client.post("/b/sbench/submit/", {"agent": "__new__"}))  # a POST is refused the same way
    assert not Submission.objects.filter(organization__isnull=True).exists()


def test_a_closed_track_says_so_to_everyone(track, client):
    SubmissionTrack.objects.filter(pk=track.pk).update(is_open=False)
    for who in (None, make_user("pat"), make_user("vera", org="Acme")):
        if who is not None:
            client.force_login(who)
        html = _framed(client.get("/b/sbench/submit/"))
        assert "takes no submissions now" in html and 'href="/b/sbench/"' in html
        assert "/signin/" not in html.split('<main id="main"')[1]  # no sign-in asked for a closed track


def test_a_refused_action_on_a_submission_is_a_page_saying_why(track, client):
    sub = Submission.objects.get()
    html = _framed(client.post(f"/b/sbench/submissions/{sub.pk}/flag/", {"reason": "x", "link": "https://e.org"}))
    assert f'href="/signin/?next=/b/sbench/submissions/{sub.pk}/' in html
    client.force_login(make_user("pat"))
    html = _framed(client.post(f"/b/sbench/submissions/{sub.pk}/flag/", {"reason": "x", "link": "https://e.org"}))
    assert "Only editors" in html and f'href="/b/sbench/submissions/{sub.pk}/"' in html


def test_a_form_sent_without_its_csrf_token_is_a_page_saying_why(track):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(make_user("vera", org="Acme"))
    html = _framed(strict.post("/b/sbench/submit/", {"agent": "full"}))
    assert "security token" in html and "reload" in html


def test_submit_results_is_linked_where_a_track_is_open(track, client, django_capture_on_commit_callbacks):
    board = client.get("/b/sbench/").content.decode()
    methodology = client.get("/b/sbench/methodology/").content.decode()
    home = client.get("/").content.decode()
    link = '<a href="/b/sbench/submit/">Submit results</a>'
    assert link in board and link in methodology and 'href="/b/sbench/submit/"' in home
    # An editor closes the track in the admin: the pages (cached for visitors) drop the link at once.
    editor = Client()
    editor.force_login(make_user("edna", "Editors"))
    url = f"/admin/submissions/submissiontrack/{track.pk}/change/"
    form = {
        "round": track.round_id,
        "opened_at_0": "2026-01-01",
        "opened_at_1": "00:00:00",
        "trials_min": "1",
        "limits": "{}",
        "protocol": "[]",
        "families_required": "[]",
        "formats": '["tau2"]',
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert editor.post(url, form).status_code == 302
    assert not SubmissionTrack.objects.get(pk=track.pk).is_open
    assert "Submit results" not in client.get("/b/sbench/").content.decode()
    assert "/b/sbench/submit/" not in client.get("/").content.decode()


def test_a_default_view_that_hides_every_row_says_so_and_links_the_others(track, client):
    from leaderboard.models import Entry
    from leaderboard.stale import snapshots_mark_stale
    from tests.site.conftest import compute_all

    # Every agent of the round flagged: the default view (team, verified, self-reported) holds no row.
    Entry.objects.filter(round=track.round).update(tier="flagged")
    snapshots_mark_stale(round_ids=[track.round_id])
    compute_all()
    html = client.get("/b/sbench/").content.decode()
    assert "No agents on this board yet" not in html
    assert "3 agents on this round are flagged" in html
    assert 'href="?tab=overall&amp;tier=flagged"' in html and 'href="?tab=overall&amp;tier=all"' in html


def test_import_submission_names_or_makes_the_organization(run_command):
    for domain in ("airline", "retail"):
        call_command("import_tau2_tasks", str(TAU2 / "tasks" / f"{domain}.json"), benchmark="tau2", domain=domain)
    call_command("open_submission_track", benchmark="tau2", stdout=StringIO())
    # No organization yet: the command makes "NVIDIA" (slug nvidia), as an approved join request would.
    assert run_command("import_submission", str(TOOLORCHESTRA), "--benchmark", "tau2", "--organization", "NVIDIA") == 0
    org = Organization.objects.get()
    assert (org.slug, org.name) == ("nvidia", "NVIDIA")
    assert Submission.objects.get().organization == org
    # Named again however it is written (its slug, another case): the same organization, no second one.
    for named in ("nvidia", "Nvidia"):
        run_command("import_submission", str(TOOLORCHESTRA), "--benchmark", "tau2", "--organization", named)
    assert Organization.objects.count() == 1 and Submission.objects.filter(organization=org).count() == 3
    assert not Membership.objects.exists()
