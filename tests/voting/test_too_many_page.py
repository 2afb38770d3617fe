"""Every limit a person hits on the site's pages answers the same 429 page (voting/too_many.py): a sign-up
limit and a vote limit alike come with status 429, a Retry-After header and the 429.html template."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse

from voting.models import Matchup
from voting.too_many import too_many_page

pytestmark = pytest.mark.django_db


def _shape(response) -> tuple[int, bool, list[str]]:
    templates = sorted({t.name for t in response.templates if t.name and not t.name.startswith("django/")})
    wait = response.get("Retry-After")
    return response.status_code, wait is not None and int(wait) > 0, templates


def _sign_up_refused(client, settings):
    settings.ACCOUNT_RATE_LIMIT = 1
    client.post(reverse("signup"), {"email": "first@example.com"})
    return client.post(reverse("signup"), {"email": "second@example.com"})


def _vote_refused(client, voter, settings):
    settings.VOTE_RATE_LIMIT = 1
    client.force_login(voter)
    for _ in range(2):
        client.get(reverse("vote"))
        matchup = Matchup.objects.filter(voter=voter, used_at__isnull=True).latest("id")
        response = client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    return response


def test_a_sign_up_limit_and_a_vote_limit_answer_the_same_page(client, voter, world, settings):
    settings.VOTE_RATE_WINDOW_SECONDS = 600
    sign_up = _sign_up_refused(client, settings)
    vote = _vote_refused(client, voter, settings)
    assert _shape(sign_up) == _shape(vote)
    assert _shape(vote)[0] == 429 and _shape(vote)[1] and "429.html" in _shape(vote)[2]
    assert 0 < int(sign_up["Retry-After"]) <= 600 and 0 < int(vote["Retry-After"]) <= 600
    assert "Too many sign-up attempts for now" in sign_up.content.decode()
    assert "Too many votes for now" in vote.content.decode()


def test_the_page_sends_retry_after_only_when_there_is_a_wait():
    request = RequestFactory().get("/")
    waited = too_many_page(request, what="votes", limit=3, window=600, wait=90)
    assert waited.status_code == 429 and waited["Retry-After"] == "90"
    assert "3 votes every 10 minutes" in waited.content.decode() and "about 2 minutes" in waited.content.decode()
    unknown = too_many_page(request, what="votes", limit=3, window=600, wait=0)
    assert unknown.status_code == 429 and "Retry-After" not in unknown
