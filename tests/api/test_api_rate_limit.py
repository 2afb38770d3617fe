"""The API is rate-limited per client (the signed-in user, else the IP address) with a counter in the cache."""

from __future__ import annotations

import pytest

URL = "/api/benchmarks"


@pytest.fixture
def limit_3(settings):
    settings.API_RATE_LIMIT = 3
    settings.API_RATE_WINDOW_SECONDS = 60


def test_it_answers_429_with_retry_after_past_the_limit(db, client, limit_3):
    assert [client.get(URL).status_code for _ in range(3)] == [200, 200, 200]
    r = client.get(URL)
    assert r.status_code == 429
    seconds = int(r["Retry-After"])
    assert 1 <= seconds <= 60
    assert r.json() == {"detail": f"rate limit exceeded, retry in {seconds} s"}


def test_each_address_has_its_own_allowance(db, client, limit_3):
    for _ in range(3):
        client.get(URL, REMOTE_ADDR="10.0.0.1")
    assert client.get(URL, REMOTE_ADDR="10.0.0.1").status_code == 429
    assert client.get(URL, REMOTE_ADDR="10.0.0.2").status_code == 200


def test_a_forged_forwarded_for_header_does_not_reset_the_allowance(db, client, limit_3):
    for i in range(3):
        client.get(URL, HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")
    assert client.get(URL, HTTP_X_FORWARDED_FOR="192.0.2.99").status_code == 429


def test_a_signed_in_user_is_counted_as_the_user(db, client, django_user_model, limit_3):
    user = django_user_model.objects.create_user("poller", password="pw-for-tests-only")
    for _ in range(3):
        client.get(URL, REMOTE_ADDR="10.0.0.1")
    assert client.get(URL, REMOTE_ADDR="10.0.0.1").status_code == 429
    client.force_login(user)
    assert client.get(URL, REMOTE_ADDR="10.0.0.1").status_code == 200


def test_errors_count_too(db, client, limit_3):
    for _ in range(3):
        assert client.get("/api/benchmarks/nope").status_code == 404
    assert client.get("/api/benchmarks/nope").status_code == 429


def test_the_allowance_comes_back_as_the_window_slides(db, client, limit_3, monkeypatch):
    import api as api_module

    # Three requests at 0, 10 and 20 s use the allowance of a 60 s window. At 30 s a fourth waits until the
    # first leaves the window, at 60 s (Retry-After 30); at 60 s one passes, and the next waits for the one at 10.
    start = 60 * 16_667 + 20.0
    now = [start]
    monkeypatch.setattr(api_module.ClientRateThrottle, "timer", staticmethod(lambda: now[0]))
    for offset in (0, 10, 20):
        now[0] = start + offset
        assert client.get(URL).status_code == 200
    now[0] = start + 30
    r = client.get(URL)
    assert r.status_code == 429
    assert r["Retry-After"] == "30"
    now[0] = start + 60.5
    assert client.get(URL).status_code == 200
    r = client.get(URL)
    assert r.status_code == 429 and r["Retry-After"] == "10"


def test_a_limit_of_zero_turns_it_off(db, client, settings):
    settings.API_RATE_LIMIT = 0
    assert all(client.get(URL).status_code == 200 for _ in range(20))
