"""Password guessing from one address: every way to sign in with a password (`/signin/`, `/admin/login/`, the
admin's password change) counts against one limit, ACCOUNT_RATE_LIMIT (20) attempts per address per
VOTE_RATE_WINDOW_SECONDS (600 s). Past it every attempt, the right password included, is answered 429 and
signs nobody in until the window has passed. The defaults are used as they are: the limit under test is the
one a deployment gets."""

import pytest
from django.conf import settings

from leaderboard import ratelimit
from tests.builders.review import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "the-right-password-42"
LIMIT = 20  # ACCOUNT_RATE_LIMIT's default


@pytest.fixture
def editor():
    return make_user("edna@example.com", "Editors", password=PASSWORD)


def attempt(client, url: str, password: str, address: str = "203.0.113.7"):
    return client.post(url, {"username": "edna@example.com", "password": password}, REMOTE_ADDR=address)


def signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_the_admin_login_refuses_guesses_past_the_limit_and_then_the_right_password_too(client, editor, monkeypatch):
    assert settings.ACCOUNT_RATE_LIMIT == LIMIT
    statuses = [attempt(client, "/admin/login/", f"guess-{i}").status_code for i in range(LIMIT + 20)]
    assert statuses == [200] * LIMIT + [429] * 20  # the 21st guess and every one after it
    right = attempt(client, "/admin/login/", PASSWORD)
    assert right.status_code == 429 and right["Retry-After"]
    assert not signed_in(client)
    # Another address is not held up by this one's guesses.
    assert attempt(client, "/admin/login/", PASSWORD, address="198.51.100.9").status_code == 302
    client.logout()

    started = ratelimit.clock()
    monkeypatch.setattr(ratelimit, "clock", lambda: started + settings.VOTE_RATE_WINDOW_SECONDS)
    response = attempt(client, "/admin/login/", PASSWORD)
    assert response.status_code == 302 and signed_in(client)  # the window has passed


@pytest.mark.parametrize("first, then", [("/signin/", "/admin/login/"), ("/admin/login/", "/signin/")])
def test_the_limit_is_one_for_the_site_sign_in_and_the_admin_login(client, editor, first, then):
    # 10 guesses on each form make the 20 the address may try; the next attempt on either is refused.
    for url in (first, then):
        assert [attempt(client, url, f"guess-{i}").status_code for i in range(LIMIT // 2)] == [200] * (LIMIT // 2)
    for url in (first, then):
        assert attempt(client, url, PASSWORD).status_code == 429
    assert not signed_in(client)


def test_the_admin_password_change_counts_its_old_password_checks_against_the_same_limit(client, editor):
    client.force_login(editor)
    for i in range(LIMIT):
        response = client.post(
            "/admin/password_change/",
            {"old_password": f"guess-{i}", "new_password1": "n3w-Passw0rd-x", "new_password2": "n3w-Passw0rd-x"},
            REMOTE_ADDR="203.0.113.7",
        )
        assert response.status_code == 200  # the form again: the old password is wrong
    right = client.post(
        "/admin/password_change/",
        {"old_password": PASSWORD, "new_password1": "n3w-Passw0rd-x", "new_password2": "n3w-Passw0rd-x"},
        REMOTE_ADDR="203.0.113.7",
    )
    assert right.status_code == 429
    editor.refresh_from_db()
    assert editor.check_password(PASSWORD)  # unchanged
    assert attempt(client, "/signin/", PASSWORD).status_code == 429  # the same address's limit
