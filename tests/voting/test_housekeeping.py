"""The scheduled voting jobs: pruning old matchups, maturing new accounts' votes, flagging voters."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.builders.voting import cast, make_user, matchup_for
from voting.draw.matchups import matchups_prune
from voting.models import Held, Matchup, Vote, VoterFlag
from voting.tasks import voters_flag_all, votes_housekeeping

pytestmark = pytest.mark.django_db


def test_only_matchups_that_expired_unused_more_than_two_days_ago_are_pruned(voter, world):
    now = timezone.now()
    a, b = world.runs[0], world.runs[2]
    old_unused = matchup_for(voter, a, b, now=now - timedelta(days=3))  # expired 3 days - 30 min ago
    recent_unused = matchup_for(voter, a, b, now=now - timedelta(days=1))  # expired a day ago: kept
    old_used = matchup_for(voter, a, b, now=now - timedelta(days=3))
    Matchup.objects.filter(pk=old_used.pk).update(used_at=now - timedelta(days=3))
    assert matchups_prune(now=now) == 1
    assert set(Matchup.objects.values_list("pk", flat=True)) == {recent_unused.pk, old_used.pk}
    assert not Matchup.objects.filter(pk=old_unused.pk).exists()


def test_the_housekeeping_task_lets_a_day_old_accounts_votes_count_and_prunes(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    newcomer = make_user("new@example.com", age_hours=1)
    now = timezone.now()
    vote = cast(newcomer, world.runs[0], world.runs[4], "a", now=now)  # two agents, one task
    vote.refresh_from_db()
    assert (vote.counts, vote.held) == (False, Held.NEW_ACCOUNT)
    Vote.objects.filter(pk=vote.pk).update(counts_from=now - timedelta(seconds=1))  # the day has passed
    assert votes_housekeeping.apply().get() == 1
    vote.refresh_from_db()
    assert (vote.counts, vote.held) == (True, Held.NONE)


def test_the_flagging_task_flags_a_voter_who_always_picks_the_crowds_loser(world, settings):
    # 40 voters agree that zephyrbot beats marlinide on every pair they see; one voter says the opposite
    # 40 times. Against everyone else's fit that voter agrees 0 of 40 times: p = 0.5^40, far below 0.001.
    settings.VOTE_FLAG_MIN_VOTES = 30
    settings.VOTE_FLAG_P_VALUE = 0.001
    settings.VOTE_DAILY_CAP = 1000
    zb = [r for r in world.runs if r.entry.agent.slug == "zephyrbot" and r.task_id == world.tasks[0].id][0]
    ml = [r for r in world.runs if r.entry.agent.slug == "marlinide" and r.task_id == world.tasks[0].id][0]
    now = timezone.now()
    for i in range(40):
        cast(make_user(f"crowd{i}@example.com"), zb, ml, "a", now=now)
    contrarian = make_user("contrarian@example.com")
    for _ in range(40):
        cast(contrarian, zb, ml, "b", now=now)
    assert voters_flag_all.apply().get() == 1
    flag = VoterFlag.objects.get()
    assert flag.voter == contrarian and (flag.decided_votes, flag.agreed) == (40, 0)
    assert not Vote.objects.filter(voter=contrarian, counts=True).exists()
