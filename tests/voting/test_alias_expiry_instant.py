"""A pair's one-time aliases (its vote key and its two preview aliases) live until `expires_at` and not a tick
longer: at the instant of expiry the pair has expired (003: "screenshots and previews go by one-time aliases"; the
matchup's `expires_at` is the first moment it no longer opens anything). One microsecond, the clock's tick, either
side of it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from voting.draw.matchups import MatchupRefused, matchup_draw
from voting.models import Matchup, Vote
from voting.services.counting import vote_record

pytestmark = pytest.mark.django_db

TICK = timedelta(microseconds=1)


def _refused_at(matchup, voter, now) -> str | None:
    try:
        vote_record(key=matchup.key, voter=voter, winner="a", now=now)
    except MatchupRefused as refused:
        return refused.reason
    return None


def test_a_vote_at_the_instant_of_expiry_or_a_tick_after_is_refused(voter, world):
    matchup = matchup_draw(voter=voter)
    assert _refused_at(matchup, voter, matchup.expires_at) == "expired"
    assert _refused_at(matchup, voter, matchup.expires_at + TICK) == "expired"
    assert not Vote.objects.exists()


def test_a_vote_a_tick_before_expiry_counts(voter, world):
    matchup = matchup_draw(voter=voter)
    assert _refused_at(matchup, voter, matchup.expires_at - TICK) is None
    assert Vote.objects.filter(matchup=matchup).count() == 1


def test_a_preview_alias_at_the_instant_of_expiry_is_refused(voter_client, voter, world, monkeypatch):
    voter_client.get(reverse("vote"))
    matchup = Matchup.objects.filter(voter=voter).latest("id")
    shot = reverse("vote_preview_shot", args=[matchup.alias_a, 0])
    expires = matchup.expires_at
    monkeypatch.setattr(timezone, "now", lambda: expires - TICK)
    assert voter_client.get(shot).status_code == 200
    for now in (expires, expires + TICK):
        monkeypatch.setattr(timezone, "now", lambda now=now: now)
        response = voter_client.get(shot)
        assert response.status_code == 410, now
        assert b"expired" in response.content
