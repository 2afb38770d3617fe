"""Signing up from outside with an address typed in compatibility characters (fullwidth `ｅｘａｍｐｌｅ`): it is
the same address as its plain form (NFKC, as Django stores a username), so it is refused as a duplicate of an
account that exists, accepted as that plain address otherwise, and never a server error."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.builders.voting import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-2026"
FULLWIDTH = "editor@ｅｘａｍｐｌｅ.org"


def sign_up(client: Client, email: str):
    return client.post("/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD})


@pytest.mark.parametrize("typed", [FULLWIDTH, "EDITOR@ＥＸＡＭＰＬＥ.ORG"])
def test_it_refuses_a_lookalike_of_a_taken_address_as_a_duplicate(typed):
    make_user("editor@example.org", password=PASSWORD)
    response = sign_up(Client(raise_request_exception=False), typed)
    assert response.status_code == 200  # the form again, with its error
    assert "already exists" in response.content.decode()
    assert get_user_model().objects.count() == 1


def test_it_signs_a_new_lookalike_address_up_as_its_plain_form():
    client = Client(raise_request_exception=False)
    response = sign_up(client, FULLWIDTH)
    assert response.status_code == 302
    user = get_user_model().objects.get()
    assert (user.username, user.email) == ("editor@example.org", "editor@example.org")
    client.logout()
    # the same person typing it either way reaches the one account
    for typed in (FULLWIDTH, "editor@example.org"):
        signed_in = Client().post("/signin/", {"username": typed, "password": PASSWORD})
        assert signed_in.status_code == 302, typed


def test_an_address_nfkc_makes_invalid_is_a_form_error():
    # U+FE6B SMALL COMMERCIAL AT is NFKC "@": "a﹫b@example.org" would become two @ signs.
    response = sign_up(Client(raise_request_exception=False), "a﹫b@example.org")
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    assert not get_user_model().objects.exists()
