"""Rate limits per account and per address, answered with a clear 429 page."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.builders.voting import make_user
from voting.models import Matchup, Vote

pytestmark = pytest.mark.django_db


def _vote_once(client, user, **extra):
    client.force_login(user)
    client.get(reverse("vote"), **extra)
    matchup = Matchup.objects.filter(voter=user, used_at__isnull=True).latest("id")
    return client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}, **extra)


def test_an_account_over_the_limit_gets_a_429_page(client, voter, world, settings):
    settings.VOTE_RATE_LIMIT = 3
    settings.VOTE_RATE_WINDOW_SECONDS = 600
    statuses = [_vote_once(client, voter).status_code for _ in range(3)]
    assert statuses == [302, 302, 302]
    response = _vote_once(client, voter)
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many votes for now" in html and "3 votes every 10 minutes" in html
    assert 0 < int(response["Retry-After"]) <= 600
    assert Vote.objects.count() == 3
    # The refused pair was not used up: it can be voted on once the window has passed.
    assert Matchup.objects.filter(used_at__isnull=True).count() == 1


def test_the_limit_is_per_address_too(client, world, settings):
    settings.VOTE_RATE_LIMIT = 2
    same_address = {"REMOTE_ADDR": "203.0.113.7"}
    users = [make_user(f"u{i}@example.com") for i in range(3)]
    assert _vote_once(client, users[0], **same_address).status_code == 302
    assert _vote_once(client, users[1], **same_address).status_code == 302
    assert _vote_once(client, users[2], **same_address).status_code == 429
    assert _vote_once(client, users[2], REMOTE_ADDR="198.51.100.9").status_code == 302


def test_the_429_comes_as_the_stage_over_htmx(client, voter, world, settings):
    settings.VOTE_RATE_LIMIT = 1
    _vote_once(client, voter)
    response = _vote_once(client, voter, HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    assert response.content.decode().lstrip().startswith('<section id="vote-stage"')


def test_drawing_new_pairs_is_limited_too(client, voter, world, settings):
    settings.VOTE_DRAW_RATE_LIMIT = 2
    client.force_login(voter)
    for _ in range(2):
        assert client.get(reverse("vote")).status_code == 200
        Matchup.objects.update(used_at=Matchup.objects.latest("id").created_at)
    response = client.get(reverse("vote"))
    assert response.status_code == 429
    assert "Too many new pairs for now" in response.content.decode()
