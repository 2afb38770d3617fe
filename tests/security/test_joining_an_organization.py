"""The way into an organization, from outside: a new account asks to join from the site, an editor approves in
the admin (or invites an address, and the account holding it accepts), and only then does it submit. Nobody
joins without an editor's yes and a confirmed address; no one but an editor approves; an account learns nothing
of which organizations exist by asking; the admin's Accounts page lets an editor set an account's organization
and nothing else of it."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from leaderboard.models import JoinRequest, Membership, Organization
from tests.builders.review import make_user
from tests.builders.site_submissions import hand_made_submission
from voting.models import AccountAddress

pytestmark = pytest.mark.django_db
PASSWORD = "quince-harbour-42-lamp"


@pytest.fixture
def world():
    sub = hand_made_submission()  # Acme's agent "full" on benchmark sbench
    from submissions.models import SubmissionTrack

    SubmissionTrack.objects.create(round=sub.round)
    Organization.objects.create(slug="nvidia", name="NVIDIA")
    return {"sub": sub, "editor": make_user("edna", "Editors")}


def _sign_up(client: Client, email: str) -> object:
    """A new account through the site's sign-up, its address confirmed by the link mailed to it."""
    response = client.post("/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302, response.content.decode()[-1500:]
    link = re.search(r"https?://\S+/signup/confirm/\S+/", mail.outbox[-1].body).group(0)
    assert client.get(link).status_code == 200
    return get_user_model().objects.get(username=email)


def _approve(editor: Client, join: JoinRequest):
    return editor.post(
        "/admin/leaderboard/joinrequest/",
        {"action": "approve", "_selected_action": [join.pk], "index": 0},
        follow=True,
    )


def test_a_new_account_asks_to_join_an_editor_approves_and_it_submits(world, client):
    user = _sign_up(client, "shizhe@nvidia.example")
    # The upload form tells a signed-in account of no organization to ask to join, in the site's frame.
    refused = client.get("/b/sbench/submit/")
    assert refused.status_code == 403
    html = refused.content.decode()
    assert 'class="site-header"' in html and 'href="/join/' in html and "member of no organization" in html
    page = client.get("/join/")
    assert page.status_code == 200 and "Ask to join" in page.content.decode()
    asked = client.post("/join/", {"organization_name": "Nvidia", "message": "I run our τ² evaluations."})
    assert asked.status_code == 302
    join = JoinRequest.objects.get()
    # Matched to the organization the name looks like (case folded), never said to the person who asked.
    assert (join.user, join.organization, join.status) == (user, Organization.objects.get(slug="nvidia"), "pending")
    waiting = client.get("/b/sbench/submit/")
    assert waiting.status_code == 403 and "waits for an editor" in waiting.content.decode()
    assert not Membership.objects.filter(user=user).exists()

    editor = Client()
    editor.force_login(world["editor"])
    listed = editor.get("/admin/leaderboard/joinrequest/?status__exact=pending").content.decode()
    assert "shizhe@nvidia.example" in listed and "NVIDIA" in listed and "I run our τ² evaluations." in listed
    done = _approve(editor, join)
    assert "approved" in done.content.decode().lower()
    assert Membership.objects.get(user=user).organization.slug == "nvidia"
    assert mail.outbox[-1].to == ["shizhe@nvidia.example"] and "member of NVIDIA" in mail.outbox[-1].subject
    form = client.get("/b/sbench/submit/")
    assert form.status_code == 200 and 'name="file"' in form.content.decode()


def test_a_new_organization_is_made_when_its_request_is_approved(world, client):
    user = _sign_up(client, "ann@orbit.example")
    client.post("/join/", {"organization_name": "  Orbit   Robotics ", "message": ""})
    join = JoinRequest.objects.get()
    assert join.organization is None and join.organization_name == "Orbit Robotics"
    editor = Client()
    editor.force_login(world["editor"])
    assert "new: Orbit Robotics" in editor.get("/admin/leaderboard/joinrequest/").content.decode()
    _approve(editor, join)
    org = Membership.objects.get(user=user).organization
    assert (org.slug, org.name) == ("orbit-robotics", "Orbit Robotics")


def test_asking_tells_nothing_of_which_organizations_exist(world, client):
    _sign_up(client, "eve@example.org")
    answers = []
    for name in ("NVIDIA", "Nobody Inc"):
        JoinRequest.objects.all().delete()
        response = client.post("/join/", {"organization_name": name, "message": ""}, follow=True)
        page = re.sub(r'(CSRFToken": "|csrfmiddlewaretoken" value=")[^"]+', "", response.content.decode())
        answers.append(re.sub(r"/join/withdraw/\d+/", "", page))
        answers[-1] = answers[-1].replace(name, "NAME")
    assert answers[0] == answers[1]
    assert "Acme" not in client.get("/join/").content.decode()  # no list of organizations to pick from


def test_no_one_but_an_editor_approves(world, client):
    user = _sign_up(client, "mallory@example.org")
    client.post("/join/", {"organization_name": "Acme", "message": ""})
    join = JoinRequest.objects.get()
    # The person who asked, a reviewer (staff) and an anonymous visitor cannot approve it.
    for who in (user, make_user("sam", "Reviewers"), None):
        other = Client()
        if who is not None:
            other.force_login(who)
        response = _approve(other, join)
        assert response.redirect_chain or response.status_code == 403
        assert not Membership.objects.filter(user=user).exists()
    join.refresh_from_db()
    assert join.status == "pending"


def test_an_unconfirmed_address_is_not_approved(world, client):
    client.post("/signup/", {"email": "bob@acme.example", "password1": PASSWORD, "password2": PASSWORD})
    user = get_user_model().objects.get(username="bob@acme.example")
    client.post("/join/", {"organization_name": "Acme", "message": ""})
    editor = Client()
    editor.force_login(world["editor"])
    response = _approve(editor, JoinRequest.objects.get())
    assert "has not confirmed the address" in response.content.decode()
    assert not Membership.objects.filter(user=user).exists()
    assert JoinRequest.objects.get().status == "pending"


def test_an_editor_declines_with_a_reason(world, client):
    _sign_up(client, "carl@example.org")
    client.post("/join/", {"organization_name": "Acme", "message": ""})
    join = JoinRequest.objects.get()
    editor = Client()
    editor.force_login(world["editor"])
    form = editor.post(
        "/admin/leaderboard/joinrequest/", {"action": "decline", "_selected_action": [join.pk], "index": 0}
    )
    assert form.status_code == 200 and 'name="note"' in form.content.decode()
    editor.post(
        "/admin/leaderboard/joinrequest/",
        {
            "action": "decline",
            "_selected_action": [join.pk],
            "index": 0,
            "apply": "1",
            "note": "Not on our list",
        },
    )
    join.refresh_from_db()
    assert (join.status, join.note) == ("declined", "Not on our list")
    assert "Not on our list" in client.get("/join/").content.decode()


def test_an_editor_invites_an_address_and_only_that_account_accepts(world, client):
    editor = Client()
    editor.force_login(world["editor"])
    acme = Organization.objects.get(slug="acme")
    added = editor.post("/admin/leaderboard/joinrequest/add/", {"email": "Dana@Acme.example", "organization": acme.pk})
    assert added.status_code == 302, added.content.decode()[-1500:]
    invitation = JoinRequest.objects.get()
    assert (invitation.kind, invitation.email, invitation.organization) == ("invitation", "dana@acme.example", acme)
    assert mail.outbox[-1].to == ["dana@acme.example"] and "/join/" in mail.outbox[-1].body

    intruder = Client()
    _sign_up(intruder, "eve@example.org")
    assert "Acme" not in intruder.get("/join/").content.decode()
    assert intruder.post(f"/join/accept/{invitation.pk}/").status_code == 403

    dana = _sign_up(client, "dana@acme.example")
    assert "Acme invited" in client.get("/join/").content.decode()
    response = client.post(f"/join/accept/{invitation.pk}/")
    assert response.status_code == 302
    assert Membership.objects.get(user=dana).organization == acme
    assert not Membership.objects.filter(user__username="eve@example.org").exists()


def test_an_invitation_waits_for_the_address_to_be_confirmed(world, client):
    acme = Organization.objects.get(slug="acme")
    editor = Client()
    editor.force_login(world["editor"])
    editor.post("/admin/leaderboard/joinrequest/add/", {"email": "dana@acme.example", "organization": acme.pk})
    client.post("/signup/", {"email": "dana@acme.example", "password1": PASSWORD, "password2": PASSWORD})
    dana = get_user_model().objects.get(username="dana@acme.example")
    assert AccountAddress.objects.get(user=dana).confirmed_at is None
    response = client.post(f"/join/accept/{JoinRequest.objects.get().pk}/", follow=True)
    assert "has not confirmed the address" in response.content.decode()
    assert not Membership.objects.filter(user=dana).exists()


def test_a_member_does_not_ask_again(world, client):
    vera = make_user("vera", org="Acme")
    client.force_login(vera)
    page = client.get("/join/").content.decode()
    assert "You are a member of Acme" in page and 'href="/b/sbench/submit/"' in page
    client.post("/join/", {"organization_name": "NVIDIA", "message": ""})
    assert not JoinRequest.objects.exists()
    assert Membership.objects.get(user=vera).organization.slug == "acme"


def test_the_join_page_asks_an_anonymous_visitor_to_sign_in_first(world, client):
    response = client.get("/join/")
    assert response.status_code == 403
    html = response.content.decode()
    assert 'class="site-header"' in html and 'href="/signin/?next=/join/"' in html and 'href="/signup/' in html
    assert client.post("/join/", {"organization_name": "Acme"}).status_code == 403
    assert not JoinRequest.objects.exists()
    # The sign-up it leads to says what the account is for.
    assert "first step to submitting your organization" in client.get("/signup/?next=/join/").content.decode()


def test_the_admin_index_names_each_page_once(world):
    """The editor's Accounts page (organizations) and Django's full Users page (a superuser's) are two pages;
    a superuser's sidebar names them apart, and an editor sees only the Accounts page."""
    names = lambda page: [m["name"] for app in page.context["app_list"] for m in app["models"]]  # noqa: E731
    root = Client()
    root.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "pw-not-used-1"))
    listed = names(root.get("/admin/"))
    assert len(listed) == len(set(listed)), listed
    assert "Accounts" in listed and "Users" in listed
    editor = Client()
    editor.force_login(world["editor"])
    listed = names(editor.get("/admin/"))
    assert "Accounts" in listed and "Users" not in listed, listed


def test_the_admins_accounts_page_sets_an_accounts_organization_and_nothing_else(world):
    pat = make_user("pat")
    editor = Client()
    editor.force_login(world["editor"])
    listed = editor.get("/admin/leaderboard/account/?q=pat").content.decode()
    assert "pat@example.com" in listed
    change = editor.get(f"/admin/leaderboard/account/{pat.pk}/change/").content.decode()
    assert 'name="membership-0-organization"' in change or 'name="membership-TOTAL_FORMS"' in change
    assert 'name="is_superuser"' not in change and 'name="groups"' not in change and 'name="password"' not in change
    acme = Organization.objects.get(slug="acme")
    response = editor.post(
        f"/admin/leaderboard/account/{pat.pk}/change/",
        {
            "membership-TOTAL_FORMS": "1",
            "membership-INITIAL_FORMS": "0",
            "membership-MIN_NUM_FORMS": "0",
            "membership-MAX_NUM_FORMS": "1",
            "membership-0-organization": acme.pk,
            "membership-0-user": pat.pk,
            "is_superuser": "on",
            "is_staff": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    pat.refresh_from_db()
    assert Membership.objects.get(user=pat).organization == acme
    assert not pat.is_superuser and not pat.is_staff
    # A reviewer (staff, not an editor) has no Accounts page.
    reviewer = Client()
    reviewer.force_login(make_user("sam", "Reviewers"))
    assert reviewer.get("/admin/leaderboard/account/").status_code == 403
