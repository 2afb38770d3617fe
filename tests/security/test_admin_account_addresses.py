"""The admin follows the address rule (voting.mailbox) as sign-up does: an account staff make is stored under its
address's canonical form, confirmed, and holds its mailbox; one whose mailbox an account holds is refused, on
the add page and on the change page; the admin's sign-in finds an account however its address is typed."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.builders.admin import AdminForm
from tests.builders.voting import make_user
from voting.mailbox import mailbox_key
from voting.models import AccountAddress

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-2026"


@pytest.fixture
def staff() -> Client:
    admin = get_user_model().objects.create_superuser("root@example.net", "root@example.net", PASSWORD)
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    return client


def add(client: Client, name: str):
    return client.post(
        "/admin/auth/user/add/",
        {"username": name, "usable_password": "true", "password1": PASSWORD, "password2": PASSWORD},
    )


def test_an_account_staff_make_is_stored_canonical_confirmed_and_holds_its_mailbox(staff):
    response = add(staff, '"Voter"@Exam\u200bple.ORG')
    assert response.status_code == 302, response.content.decode()[:2000]
    user = get_user_model().objects.get(username="voter@example.org")
    assert user.email == "voter@example.org"
    row = AccountAddress.objects.get(user=user)
    assert row.skeleton == mailbox_key("voter@example.org") and row.confirmed_at is not None
    # the site's sign-up then refuses that mailbox
    taken = Client().post("/signup/", {"email": "voter+2@example.org", "password1": PASSWORD, "password2": PASSWORD})
    assert "already exists" in taken.content.decode()


@pytest.mark.parametrize("typed", ["editor@exam\u200bple.org", '"editor"@example.org', "editor+x@example.org"])
def test_the_add_page_refuses_a_mailbox_an_account_holds(staff, typed):
    make_user("editor@example.org")
    before = get_user_model().objects.count()
    response = add(staff, typed)
    assert response.status_code == 200
    assert "same mailbox" in response.content.decode()
    assert get_user_model().objects.count() == before


def test_the_change_page_refuses_another_accounts_mailbox_and_keeps_other_edits_free(staff):
    make_user("editor@example.org")
    voter = make_user("voter@example.org")
    page = staff.get(f"/admin/auth/user/{voter.pk}/change/")
    form = AdminForm()
    form.feed(page.content.decode())
    form.data = {k: v for k, v in form.data.items() if k not in ("groups", "user_permissions")}  # none chosen
    response = staff.post(f"/admin/auth/user/{voter.pk}/change/", {**form.data, "username": "EDITOR@example.org"})
    assert response.status_code == 200 and "same mailbox" in response.content.decode()
    voter.refresh_from_db()
    assert voter.username == "voter@example.org"
    # a change of its own address to another spelling of it, and of anything else, is saved
    response = staff.post(
        f"/admin/auth/user/{voter.pk}/change/", {**form.data, "username": "Voter@Example.org", "first_name": "Vo"}
    )
    assert response.status_code == 302
    voter.refresh_from_db()
    assert (voter.username, voter.first_name) == ("voter@example.org", "Vo")


def test_the_admin_sign_in_finds_an_account_however_its_address_is_typed():
    get_user_model().objects.create_superuser("root@example.net", "root@example.net", PASSWORD)
    client = Client()
    response = client.post("/admin/login/", {"username": '"ROOT"@exam\u00adple.net', "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/admin/").status_code == 200
