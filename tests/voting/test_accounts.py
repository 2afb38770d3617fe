"""Sign up with an email and a password, sign in, sign out."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.builders.voting import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "plum-orchard-77-kite"


def test_it_signs_up_with_email_and_password_and_is_signed_in(client):
    response = client.post(
        reverse("signup"),
        {"email": "New.Person@Example.com", "password1": PASSWORD, "password2": PASSWORD, "next": "/vote/"},
    )
    assert response.status_code == 302 and response["Location"] == "/vote/"
    user = get_user_model().objects.get()
    assert user.email == "new.person@example.com" and user.check_password(PASSWORD)
    assert client.get(reverse("vote")).status_code == 200  # signed in


def test_after_a_sign_up_error_the_form_still_leads_where_the_visitor_was_going(client):
    # Sent to sign up by "Vote": the first try has passwords that differ, the second goes through.
    client.get(reverse("signup") + "?next=/vote/")
    wrong = {"email": "voter@example.com", "password1": PASSWORD, "password2": PASSWORD + "x", "next": "/vote/"}
    again = client.post(reverse("signup"), wrong).content.decode()
    assert "The two passwords differ" in again
    assert '<input type="hidden" name="next" value="/vote/">' in again
    assert "/signin/?next=/vote/" in again.replace("%2F", "/")  # and the way to sign in instead
    right = client.post(reverse("signup"), {**wrong, "password2": PASSWORD})
    assert right.status_code == 302 and right["Location"] == "/vote/"


def test_the_pages_use_the_exact_labels(client):
    assert "<h1>Sign up</h1>" in client.get(reverse("signup")).content.decode()
    assert "<h1>Sign in</h1>" in client.get(reverse("signin")).content.decode()


def test_sign_up_refuses_a_taken_email_weak_or_mismatched_passwords(client):
    make_user("taken@example.com")
    taken = client.post(reverse("signup"), {"email": "TAKEN@example.com", "password1": PASSWORD, "password2": PASSWORD})
    assert "already exists" in taken.content.decode()
    weak = client.post(reverse("signup"), {"email": "a@example.com", "password1": "123", "password2": "123"})
    assert weak.status_code == 200 and "too short" in weak.content.decode()
    differ = client.post(
        reverse("signup"), {"email": "b@example.com", "password1": PASSWORD, "password2": PASSWORD + "x"}
    )
    assert "differ" in differ.content.decode()
    assert get_user_model().objects.count() == 1


def test_it_signs_in_and_out(client):
    make_user("member@example.com", password=PASSWORD)
    bad = client.post(reverse("signin"), {"username": "member@example.com", "password": "wrong"})
    assert "do not match" in bad.content.decode()
    good = client.post(reverse("signin"), {"username": "Member@Example.com", "password": PASSWORD, "next": "/vote/"})
    assert good.status_code == 302 and good["Location"] == "/vote/"
    assert "Sign out" in client.get(reverse("signout")).content.decode()
    out = client.post(reverse("signout"))
    assert out.status_code == 302
    assert client.get(reverse("vote")).status_code == 302  # signed out: back to sign in


def test_sign_in_ignores_an_offsite_next(client):
    make_user("member2@example.com", password=PASSWORD)
    response = client.post(
        reverse("signin"),
        {"username": "member2@example.com", "password": PASSWORD, "next": "https://evil.example.net/"},
    )
    assert response.status_code == 302 and "evil" not in response["Location"]


def test_sign_in_and_sign_up_attempts_are_rate_limited_per_address(client, settings):
    settings.ACCOUNT_RATE_LIMIT = 2
    make_user("guessed@example.com", password="the-right-password-42")
    attempts = [{"username": "guessed@example.com", "password": f"wrong-{i}"} for i in range(3)]
    statuses = [client.post(reverse("signin"), data).status_code for data in attempts]
    assert statuses == [200, 200, 429]
    # Even the right password waits: the limit is on attempts, not on failures.
    response = client.post(reverse("signin"), {"username": "guessed@example.com", "password": "the-right-password-42"})
    assert response.status_code == 429 and "Too many sign-in attempts" in response.content.decode()
    assert "_auth_user_id" not in client.session
    statuses = [client.post(reverse("signup"), {"email": f"new{i}@example.com"}).status_code for i in range(3)]
    assert statuses == [200, 200, 429]


def test_a_session_signed_in_before_the_backend_changed_stays_signed_in(client, voter):
    # Sessions name the backend that signed them in; leaderboard/migrations/0013 moves those of the former
    # leaderboard.auth.ModelBackend back to Django's own ModelBackend, so the change signs no one out.
    import importlib

    from django.apps import apps
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    def stored_session() -> str:
        store = SessionStore()
        store[SESSION_KEY] = str(voter.pk)
        store[BACKEND_SESSION_KEY] = "leaderboard.auth.ModelBackend"
        store[HASH_SESSION_KEY] = voter.get_session_auth_hash()
        store.create()
        return store.session_key

    # Two sessions as the database held them: the migration runs before the site serves any request, so the
    # cache has no copy of either (the first is read once here, which keeps a copy of it in the cache).
    unmigrated, migrated = stored_session(), stored_session()
    client.cookies["sessionid"] = unmigrated
    assert client.get(reverse("vote")).status_code == 302  # that backend is no longer listed: signed out
    importlib.import_module("leaderboard.migrations.0013_sessions_backend_django").forwards(apps, None)
    client.cookies["sessionid"] = migrated
    response = client.get(reverse("vote"))
    assert response.status_code == 200 and response.wsgi_request.user == voter


def test_a_signed_in_account_stays_signed_in_when_the_cache_loses_its_session(client, voter):
    # Sessions are Django's cached_db: read from the cache, kept in the database, so an emptied cache (a
    # Redis restart) signs no one out.
    from django.core.cache import cache

    client.force_login(voter)
    assert client.get(reverse("vote")).wsgi_request.user == voter
    cache.clear()
    response = client.get(reverse("vote"))
    assert response.status_code == 200 and response.wsgi_request.user == voter


def test_a_signed_in_request_reads_its_session_from_the_cache(client, voter):
    # The session comes from the cache (Django's cached_db); the database is asked only for the account.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(voter)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(reverse("signin")).wsgi_request.user == voter
    tables = " ".join(q["sql"] for q in ctx.captured_queries)
    assert "auth_user" in tables and "django_session" not in tables


def test_an_account_made_inactive_is_signed_out(client, voter):
    client.force_login(voter)
    assert client.get(reverse("vote")).status_code == 200
    voter.is_active = False
    voter.save()
    assert client.get(reverse("vote")).status_code == 302


def test_it_says_what_voting_is_and_offers_sign_up_when_vote_sends_a_signed_out_reader(client):
    response = client.get("/vote/", follow=True)
    html = response.content.decode()
    assert response.redirect_chain and "/signin/" in response.redirect_chain[-1][0]
    assert "Vote on agents&#x27; apps" in html or "Vote on agents' apps" in html
    assert "An account is needed so that each person" in html
    assert 'href="/signup/?next=/vote/"' in html or 'href="/signup/?next=%2Fvote%2F"' in html
    # A plain sign-in (from the header) stays a plain form.
    plain = client.get("/signin/").content.decode()
    assert "Vote on agents" not in plain and "<h1>Sign in</h1>" in plain
