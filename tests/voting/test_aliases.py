"""One-time aliases: a pair takes one vote, from the voter it was issued to, before it expires."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from tests.builders.voting import build_world, make_user
from voting.draw.matchups import MatchupRefused, matchup_draw
from voting.models import Matchup, Vote
from voting.services.counting import vote_record

pytestmark = pytest.mark.django_db


def _draw(client, user):
    client.force_login(user)
    client.get(reverse("vote"))
    return Matchup.objects.filter(voter=user).latest("id")


def test_a_replayed_alias_is_refused(voter_client, voter, world):
    matchup = _draw(voter_client, voter)
    url = reverse("vote_cast", args=[matchup.key])
    assert voter_client.post(url, {"winner": "a"}).status_code == 302
    replay = voter_client.post(url, {"winner": "b"})
    assert replay.status_code == 410
    assert "You already voted on this pair" in replay.content.decode()
    assert Vote.objects.count() == 1 and Vote.objects.get().winner == "a"


def test_a_replayed_alias_over_htmx_shows_the_message(voter_client, voter, world):
    matchup = _draw(voter_client, voter)
    url = reverse("vote_cast", args=[matchup.key])
    voter_client.post(url, {"winner": "a"}, HTTP_HX_REQUEST="true")
    replay = voter_client.post(url, {"winner": "a"}, HTTP_HX_REQUEST="true")
    assert replay.status_code == 410
    assert replay.content.decode().lstrip().startswith('<section id="vote-stage"')
    assert Vote.objects.count() == 1


def test_another_users_alias_is_refused(client, voter, world):
    matchup = _draw(client, voter)
    other = make_user("other@example.com")
    client.force_login(other)
    response = client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    assert response.status_code == 400
    assert "not issued to you" in response.content.decode()
    assert not Vote.objects.exists()
    # Nor may they see its previews.
    assert client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0])).status_code == 400
    assert client.get(reverse("vote_preview_live", args=[matchup.alias_b])).status_code == 400


def test_a_forged_alias_is_refused(voter_client, world):
    response = voter_client.post(reverse("vote_cast", args=["not-a-real-alias"]), {"winner": "a"})
    assert response.status_code == 400
    assert "not issued to you" in response.content.decode()
    assert voter_client.get(reverse("vote_preview_shot", args=["forged", 0])).status_code == 400


def test_an_expired_alias_is_refused(voter_client, voter, world):
    matchup = _draw(voter_client, voter)
    Matchup.objects.filter(pk=matchup.pk).update(
        created_at=timezone.now() - timedelta(hours=2), expires_at=timezone.now() - timedelta(seconds=1)
    )
    response = voter_client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"})
    assert response.status_code == 410
    assert "expired" in response.content.decode()
    assert not Vote.objects.exists()
    assert voter_client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0])).status_code == 410


def test_an_alias_expires_after_the_configured_time(voter, world, settings):
    settings.VOTE_ALIAS_TTL_SECONDS = 60
    matchup = matchup_draw(voter=voter)
    with pytest.raises(MatchupRefused) as refused:
        vote_record(key=matchup.key, voter=voter, winner="a", now=matchup.created_at + timedelta(seconds=61))
    assert refused.value.reason == "expired"
    vote_record(key=matchup.key, voter=voter, winner="a", now=matchup.created_at + timedelta(seconds=59))


@pytest.mark.django_db(transaction=True)
def test_a_replay_racing_the_first_vote_records_exactly_one():
    build_world(tasks=("race-app",), trials=1)
    voter = make_user("racer@example.com")
    matchup = matchup_draw(voter=voter)
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def cast():
        try:
            barrier.wait()
            vote_record(key=matchup.key, voter=voter, winner="a")
            outcomes.append("ok")
        except MatchupRefused as refused:
            outcomes.append(refused.reason)
        finally:
            connection.close()

    threads = [threading.Thread(target=cast) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["used"] * 5
    assert Vote.objects.filter(matchup=matchup).count() == 1


def test_a_nul_byte_in_an_alias_or_scope_is_refused_before_any_view(voter_client, world):
    # config.middleware.RejectNulMiddleware: PostgreSQL refuses NUL in text, so nothing passes it on.
    assert voter_client.post("/vote/m/%00/", {"winner": "a"}).status_code == 404
    assert voter_client.get("/vote/p/%00/0/").status_code == 404
    assert voter_client.get(reverse("vote"), {"scope": "\x00"}).status_code == 400


@pytest.mark.parametrize("junk", ["' OR 1=1 --", "x" * 300])
def test_malformed_aliases_and_scopes_are_refused_not_errors(voter_client, world, junk):
    assert voter_client.post(reverse("vote_cast", args=[junk]), {"winner": "a"}).status_code == 400
    assert voter_client.get(reverse("vote_reveal", args=[junk])).status_code == 400
    assert voter_client.get(reverse("vote_preview_shot", args=[junk, 0])).status_code == 400
    assert voter_client.get(reverse("vote_preview_live", args=[junk])).status_code == 400
    page = voter_client.get(reverse("vote"), {"scope": junk})
    assert page.status_code == 200 and "No pair to show" in page.content.decode()


def test_another_voters_key_and_an_unknown_key_get_the_same_answer(voter, world):
    import secrets

    # "it tells a forger nothing": the same reason, status and words for a key issued to someone else and for
    # one never issued.
    matchup = matchup_draw(voter=voter)
    other = make_user("forger@example.com")
    for key in (matchup.key, secrets.token_urlsafe(18)):
        with pytest.raises(MatchupRefused) as refused:
            vote_record(key=key, voter=other, winner="a")
        assert (refused.value.reason, refused.value.status, refused.value.message) == (
            "forged",
            400,
            "This pair was not issued to you. Load a new pair to vote.",
        )
        assert str(refused.value) == refused.value.message
    assert not Vote.objects.exists()
