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


# Look-alikes of a taken address that are other strings: Cyrillic "а" (U+0430) in the domain, "ł" (U+0142, a
# Latin l with a stroke: UTS #39 maps it to l and a combining overlay, and the mark is dropped too), a Greek
# omicron in the top-level domain, and "rn" for "m". The punycode of the Cyrillic domain is that same mailbox.
LOOKALIKES = {
    "cyrillic a": "editor@exаmple.org",
    "l with a stroke": "editor@exampłe.org",
    "greek omicron": "editor@example.οrg",
    "rn for m": "editor@exarnple.org",
}


@pytest.mark.parametrize("typed", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_it_refuses_a_confusable_of_a_taken_address(typed):
    make_user("editor@example.org", password=PASSWORD)
    response = sign_up(Client(raise_request_exception=False), typed)
    assert response.status_code == 200
    assert "already exists" in response.content.decode()
    assert get_user_model().objects.count() == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [("editor@exаmple.org", "editor@xn--exmple-4nf.org"), ("editor@xn--exmple-4nf.org", "editor@exаmple.org")],
)
def test_an_international_domain_and_its_punycode_are_one_address(first, second):
    client = Client(raise_request_exception=False)
    assert sign_up(client, first).status_code == 302
    client.logout()
    response = sign_up(Client(raise_request_exception=False), second)
    assert response.status_code == 200 and "already exists" in response.content.decode()
    assert get_user_model().objects.count() == 1
    # either spelling signs in to the one account
    for typed in (first, second):
        assert Client().post("/signin/", {"username": typed, "password": PASSWORD}).status_code == 302, typed


def test_an_address_that_only_shares_letters_is_not_a_lookalike():
    make_user("editor@example.org", password=PASSWORD)
    assert sign_up(Client(raise_request_exception=False), "editors@example.org").status_code == 302
