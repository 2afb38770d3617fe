"""The vote POST is protected by Django's CSRF check."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from voting.models import Matchup, Vote

pytestmark = pytest.mark.django_db


def test_a_vote_without_the_csrf_token_is_refused(voter, world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(voter)
    client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    response = client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    assert response.status_code == 403
    assert not Vote.objects.exists()


def test_a_vote_with_the_token_from_the_page_is_recorded(voter, world):
    client = Client(enforce_csrf_checks=True)
    client.force_login(voter)
    client.get(reverse("vote"))
    token = client.cookies["csrftoken"].value
    matchup = Matchup.objects.get()
    response = client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a", "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Vote.objects.count() == 1


def test_a_vote_by_get_is_not_allowed(voter_client, world):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.get()
    assert voter_client.get(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}).status_code == 405
    assert not Vote.objects.exists()
