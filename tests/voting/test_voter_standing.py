"""Where a voter stands is stored (voting/standing.py): a vote reads the row instead of counting the day's votes,
and every write that changes what the row sums keeps it in step, so the counting rules (tests/voting/
test_counting.py) hold whichever way the voter's day changed."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.builders.voting import make_user, matchup_for
from voting.cells import votes_add
from voting.models import Vote, VoterStanding
from voting.services.counting import Cast, vote_cast
from voting.services.editing import vote_change
from voting.services.flagging import voter_flag_clear, voters_flag

pytestmark = pytest.mark.django_db


def _vote(world, voter, now, winner="a") -> Cast:
    run_a, run_b = (
        next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[0].id)
        for slug in ("zephyrbot", "marlinide")
    )
    return vote_cast(key=matchup_for(voter, run_a, run_b, now=now).key, voter=voter, winner=winner, now=now)


def _noon():
    return timezone.now().replace(hour=12, minute=0, second=0, microsecond=0)


def test_a_vote_an_editor_removes_frees_its_place_in_the_day(world, settings):
    # Cap 2: two counted votes fill the day and the third is held "daily-cap". An editor removes the first:
    # the day holds 1 (the second; a vote held for the cap does not fill it), so the next vote counts (2 = the
    # cap) and the one after is held again.
    settings.VOTE_DAILY_CAP = 2
    voter, editor = make_user("day@example.com"), make_user("editor@example.com")
    editor.is_superuser = True
    editor.save()
    now = _noon()
    first, _second = _vote(world, voter, now), _vote(world, voter, now + timedelta(minutes=1))
    assert _vote(world, voter, now + timedelta(minutes=2)).vote.held == "daily-cap"
    vote_change(vote=first.vote, by=editor, delete=True)
    freed = _vote(world, voter, now + timedelta(minutes=3))
    assert (freed.vote.held, freed.voter.counted_today) == ("", 2)
    assert _vote(world, voter, now + timedelta(minutes=4)).vote.held == "daily-cap"


def test_a_flag_raised_then_cleared_reaches_the_voter_s_next_vote(world, settings):
    # The crowd (3 imported votes) rates zephyrbot over marlinide; the voter picks marlinide, a decided vote
    # against everyone else's fit, and every such voter is flagged here (p < 1.01): the vote after the flag is
    # held "flagged", and once an editor clears the flag the next vote counts again.
    settings.VOTE_FLAG_MIN_VOTES = 1
    settings.VOTE_FLAG_P_VALUE = 1.01
    z, m = world.agents["zephyrbot"], world.agents["marlinide"]
    votes_add([Vote(task=world.tasks[0], agent_a=z, agent_b=m, winner="a", voter_label=f"c{n}") for n in range(3)])
    voter, editor = make_user("flagged@example.com"), make_user("clears@example.com")
    now = _noon()
    assert _vote(world, voter, now, winner="b").vote.held == ""
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    held = _vote(world, voter, now + timedelta(minutes=1))
    assert (held.vote.held, held.voter.flagged) == ("flagged", True)
    voter_flag_clear(flag=flag, by=editor)
    again = _vote(world, voter, now + timedelta(minutes=2))
    assert (again.vote.held, again.voter.flagged) == ("", False)


def test_votes_stored_in_bulk_for_a_site_voter_fill_their_day(world, settings):
    # Cap 2: one vote cast, one stored by `votes_add` the same day (as an import or a fixture does): the day is
    # full, so the next vote is held.
    settings.VOTE_DAILY_CAP = 2
    voter = make_user("bulk@example.com")
    now = _noon()
    cast = _vote(world, voter, now)
    votes_add([Vote(task=cast.vote.task, agent_a=cast.vote.agent_a, agent_b=cast.vote.agent_b, winner="b",
                    voter=voter, cast_at=now + timedelta(minutes=1))])  # fmt: skip
    assert _vote(world, voter, now + timedelta(minutes=2)).vote.held == "daily-cap"


def test_yesterday_s_votes_leave_today_empty(world, settings):
    # Cap 1 (UTC days): a vote at 23:59 fills yesterday; the vote at 00:00 is the first of today and counts.
    settings.VOTE_DAILY_CAP = 1
    voter = make_user("midnight@example.com")
    midnight = _noon().replace(hour=0)
    assert _vote(world, voter, midnight - timedelta(minutes=1)).vote.held == ""
    today = _vote(world, voter, midnight)
    assert (today.vote.held, today.voter.counted_today) == ("", 1)
    assert _vote(world, voter, midnight + timedelta(minutes=1)).vote.held == "daily-cap"


def test_a_standing_changed_behind_the_site_s_back_is_found_and_counted_afresh(world, settings):
    # A new account's vote (held until the account is a day old, but it fills the day) deleted by a queryset
    # (no service) leaves the stored day at 1: the check names the voter and the two figures, the command
    # retires the row, and the next vote's day is counted afresh (0 + this one = 1).
    voter = make_user("shell@example.com", age_hours=1)
    now = _noon()
    _vote(world, voter, now)
    Vote.objects.filter(voter=voter).delete()
    out = StringIO()
    with pytest.raises(CommandError, match="1 standing"):
        call_command("voter_standings", "--check", stdout=out)
    assert f"voter {voter.pk} on {now.date()}: stored (today, flagged, unconfirmed) (1, False, False), " in (
        out.getvalue()
    )
    assert "counted (0, False, False)" in out.getvalue()
    call_command("voter_standings", stdout=StringIO())
    assert not VoterStanding.objects.filter(voter=voter).exists()
    call_command("voter_standings", "--check", stdout=StringIO())
    assert _vote(world, voter, now + timedelta(minutes=1)).voter.counted_today == 1
