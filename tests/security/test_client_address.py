"""One rule for who a request comes from, used by the vote, sign-in and API rate limits alike."""

import pytest
from django.test import RequestFactory, override_settings

from api import client_id
from leaderboard.clients import client_address

FORWARDED = {"REMOTE_ADDR": "10.0.0.2", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 203.0.113.7"}


def test_without_a_proxy_the_forwarded_header_is_ignored():
    request = RequestFactory().get("/", **FORWARDED)
    assert client_address(request) == "10.0.0.2"


@override_settings(BEHIND_PROXY=True)
def test_behind_the_proxy_the_hop_it_appended_is_the_client_and_earlier_hops_are_not_believed():
    request = RequestFactory().get("/", **FORWARDED)
    assert client_address(request) == "203.0.113.7"  # not the 6.6.6.6 the client wrote itself


@pytest.mark.django_db
@override_settings(BEHIND_PROXY=True)
def test_the_api_counts_each_client_behind_the_proxy_in_its_own_bucket():
    from django.contrib.auth.models import AnonymousUser

    first = RequestFactory().get("/api/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.1")
    second = RequestFactory().get("/api/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.2")
    for r in (first, second):
        r.user = AnonymousUser()
    assert client_id(first) == "ip:198.51.100.1" and client_id(second) == "ip:198.51.100.2"


@pytest.mark.django_db
@override_settings(BEHIND_PROXY=True, API_RATE_LIMIT=2)
def test_one_api_client_at_its_limit_does_not_stop_another_behind_the_same_proxy(client):
    def get(addr):
        return client.get("/api/benchmarks", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=addr).status_code

    assert [get("198.51.100.1") for _ in range(3)] == [200, 200, 429]
    assert get("198.51.100.2") == 200
