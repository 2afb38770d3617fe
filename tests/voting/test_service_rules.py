"""Rules of voting/services/ that mutation testing found no test of: what a cast vote stores and reports,
the rate limits with the cache down and at a window's end, maturing one voter's votes, and the agreement
check's edge cases (`make mutate`, docs/testing.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from snapshots.models import BoardSnapshot
from tests.builders.voting import cast, make_user, matchup_for
from voting.cells import votes_add
from voting.draw.matchups import MatchupRefused
from voting.models import Vote, VoterFlag
from voting.services.counting import vote_cast, vote_record, votes_mature
from voting.services.flagging import voter_agreement, voter_flag_clear, voters_flag
from voting.services.limits import rate_limit_hit
from voting.standing import standings_retire

pytestmark = pytest.mark.django_db


def _run(world, slug, task=0):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[task].id)


# --- a cast vote ----------------------------------------------------------------------------------------------


def test_a_cast_vote_stores_its_pair_its_runs_its_voter_and_its_matchup(world, voter):
    run_a, run_b = _run(world, "zephyrbot"), _run(world, "marlinide")
    matchup = matchup_for(voter, run_a, run_b)
    vote_record(key=matchup.key, voter=voter, winner="b")
    stored = Vote.objects.get()
    assert (stored.run_a_id, stored.run_b_id) == (run_a.pk, run_b.pk)
    assert (stored.agent_a_id, stored.agent_b_id) == (run_a.entry.agent_id, run_b.entry.agent_id)
    assert (stored.voter_id, stored.matchup_id, stored.winner, stored.task_id) == (
        voter.pk,
        matchup.pk,
        "b",
        run_a.task_id,
    )


def test_an_unknown_winner_is_refused_by_name(world, voter):
    matchup = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"))
    with pytest.raises(ValueError, match="unknown winner 'both'"):
        vote_record(key=matchup.key, voter=voter, winner="both")
    assert not Vote.objects.exists()


def test_a_used_pair_is_refused_as_used_even_once_it_has_expired(world, voter):
    # "used" is checked before "expired": a second vote on a pair voted on an hour ago (its aliases have lived
    # their 30 minutes since) is told it already voted, not that the pair expired.
    now = timezone.now()
    matchup = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=now)
    vote_record(key=matchup.key, voter=voter, winner="a", now=now)
    with pytest.raises(MatchupRefused) as refused:
        vote_record(key=matchup.key, voter=voter, winner="a", now=now + timedelta(hours=1))
    assert (refused.value.reason, refused.value.status) == ("used", 410)
    assert refused.value.message == "You already voted on this pair. Each pair takes one vote."


def test_the_standing_after_a_vote_counts_it_and_keeps_the_flag(world, settings):
    # The screen's notice after a vote comes from the standing read in the vote: today's votes that count or
    # will count (this one included), the flag, and the new-account date while it is in the future.
    settings.VOTE_DAILY_CAP = 3
    voter = make_user("standing@example.com")
    now = timezone.now().replace(hour=12)
    statuses = []
    for i in range(4):
        matchup = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=now)
        statuses.append(vote_cast(key=matchup.key, voter=voter, winner="a", now=now + timedelta(minutes=i)).voter)
    # 1, 2, 3 counted; the 4th is over the cap (held "daily-cap") and not counted in the day's total.
    assert [s.counted_today for s in statuses] == [1, 2, 3, 3]
    assert [s.over_cap for s in statuses] == [False, False, True, True]
    assert not any(s.flagged for s in statuses) and statuses[0].counts_from is None
    # A flag written here rather than by `voters_flag`, which also retires the voter's stored standing.
    standings_retire([voter.pk])
    VoterFlag.objects.create(voter=voter, decided_votes=30, agreed=0, p_value=1e-9)
    matchup = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=now)
    after = vote_cast(key=matchup.key, voter=voter, winner="a", now=now + timedelta(minutes=9))
    assert after.voter.flagged is True and after.vote.held == "flagged"


def test_a_new_account_counts_from_exactly_a_day_after_sign_up(world, settings):
    # Sign-up + 24 h is the first instant its votes count: a vote cast then counts, and the notice no longer
    # says the account is new; a vote cast a second earlier waits.
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    voter = make_user("exact@example.com", age_hours=1)
    starts = voter.date_joined + timedelta(hours=24)
    early = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=starts - timedelta(seconds=5))
    before = vote_cast(key=early.key, voter=voter, winner="a", now=starts - timedelta(seconds=1))
    assert (before.vote.held, before.voter.counts_from) == ("new-account", starts)
    on_time = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=starts - timedelta(seconds=5))
    at = vote_cast(key=on_time.key, voter=voter, winner="a", now=starts)
    assert (at.vote.held, at.vote.counts, at.voter.counts_from) == ("", True, None)


# --- rate limits ----------------------------------------------------------------------------------------------


def _cache_down(settings):
    """The cache pointed at a port where nothing listens (a Redis outage, as the fault tests make it)."""
    settings.CACHES = {
        "default": {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:9/0", "OPTIONS": {}},
    }


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a naive datetime in the fallback's query would warn
def test_with_the_cache_down_votes_are_limited_per_account_from_the_database(world, settings):
    # Limit 3 per 600 s. The account cast 3 votes in the last 10 minutes: a 4th is over. Another account with 2
    # votes is not. A request counted per address only (no account) is let through: that limit needs the cache.
    if "redis" not in settings.CACHES["default"]["BACKEND"].lower():
        pytest.skip("the fallback is for a Redis cache that is down; the memory cache cannot be")
    now = timezone.now()
    busy, calm = make_user("busy-down@example.com"), make_user("calm-down@example.com")
    for i in range(3):
        cast(busy, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now - timedelta(minutes=9 - i))
    for i in range(2):
        cast(calm, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now - timedelta(minutes=5 - i))
    cast(calm, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now - timedelta(minutes=11))  # older
    _cache_down(settings)
    at = now.timestamp()
    hit = dict(bucket="vote", limit=3, window=600, at=at)
    assert rate_limit_hit(idents=["user:busy"], voter=busy, **hit) > 0
    assert rate_limit_hit(idents=["user:calm"], voter=calm, **hit) == 0
    assert rate_limit_hit(idents=["addr:203.0.113.1"], voter=None, **hit) == 0


def test_with_the_cache_up_only_the_counters_decide(world, settings):
    # The database fallback is for an outage only: an account with 5 votes in the last window starts a fresh
    # counter in a new window and is within a limit of 3.
    busy = make_user("busy-up@example.com")
    now = timezone.now()
    for i in range(5):
        cast(busy, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now - timedelta(minutes=5 - i))
    assert rate_limit_hit(bucket="vote", idents=["user:busy-up"], limit=3, window=600, voter=busy) == 0


def test_the_wait_runs_until_the_oldest_request_leaves_the_window_and_is_at_least_a_second():
    # A sliding window of 600 s and a limit of 2: requests at 3000 and 3100 pass. One at 3200 is refused until
    # the one at 3000 leaves the window, at 3600: a wait of 400 s. At 3599.5 the wait is 0.5 s, rounded up to 1,
    # never 0 (0 would mean "within the limit"); at 3600.5 it passes.
    ident = [f"user:wait-{datetime.now(UTC).timestamp()}"]
    assert [rate_limit_hit(bucket="vote", idents=ident, limit=2, window=600, at=t) for t in (3000.0, 3100.0)] == [0, 0]
    assert rate_limit_hit(bucket="vote", idents=ident, limit=2, window=600, at=3200.0) == 400
    assert rate_limit_hit(bucket="vote", idents=ident, limit=2, window=600, at=3599.5) == 1
    assert rate_limit_hit(bucket="vote", idents=ident, limit=2, window=600, at=3600.5) == 0


# --- maturing and flagging ------------------------------------------------------------------------------------


def test_maturing_one_voter_leaves_the_others_waiting(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    first, second = make_user("m1@example.com", age_hours=1), make_user("m2@example.com", age_hours=1)
    for voter in (first, second, second):
        cast(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    later = timezone.now() + timedelta(days=2)
    assert votes_mature(now=later, voter_id=first.pk) == 1
    assert Vote.objects.filter(voter=first, counts=True).count() == 1
    assert Vote.objects.filter(voter=second, held="new-account").count() == 2


def test_flagging_holds_every_counted_vote_of_the_voter_however_many(world, settings):
    # The votes are held in batches of 1,000 (a database's parameter limit): 2,100 counted votes, all held.
    settings.VOTE_FLAG_MIN_VOTES = 20
    pusher = make_user("many@example.com")
    a, b = world.agents["thistledev"], world.agents["zephyrbot"]
    crowd = [Vote(task=world.tasks[0], agent_a=b, agent_b=a, winner="a", voter_label=f"c{n}") for n in range(30)]
    mine = [Vote(task=world.tasks[0], agent_a=a, agent_b=b, winner="a", voter=pusher) for _ in range(2100)]
    votes_add(crowd + mine)
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert flag.voter == pusher and flag.decided_votes == 2100
    assert not Vote.objects.filter(voter=pusher, counts=True).exists()
    assert Vote.objects.filter(voter=pusher, held="flagged").count() == 2100


def test_a_flag_is_dated_when_the_check_ran(world, settings):
    settings.VOTE_FLAG_MIN_VOTES = 20
    a, b = world.agents["thistledev"], world.agents["zephyrbot"]
    pusher = make_user("dated@example.com")
    votes_add(
        [Vote(task=world.tasks[0], agent_a=b, agent_b=a, winner="a", voter_label=f"c{n}") for n in range(10)]
        + [Vote(task=world.tasks[0], agent_a=a, agent_b=b, winner="a", voter=pusher) for _ in range(25)]
    )
    when = timezone.now() - timedelta(hours=3)
    (flag,) = voters_flag(benchmark_id=world.benchmark.id, now=when)
    assert flag.flagged_at == when


def test_clearing_a_flag_restores_only_the_votes_held_for_it_and_refits(world, settings, admin_user):
    # A flagged voter's votes over the daily cap stay held for the cap when the flag is cleared; only the ones
    # held for the flag count again, and the benchmark's ratings are marked for a refit.
    settings.VOTE_FLAG_MIN_VOTES = 20
    settings.VOTE_DAILY_CAP = 25
    a, b = world.agents["thistledev"], world.agents["zephyrbot"]
    votes_add([Vote(task=world.tasks[0], agent_a=b, agent_b=a, winner="a", voter_label=f"c{n}") for n in range(10)])
    pusher = make_user("capped@example.com")
    now = timezone.now().replace(hour=1)
    for i in range(27):  # 25 count, 2 are over the cap
        cast(pusher, _run(world, "thistledev"), _run(world, "zephyrbot"), "a", now=now + timedelta(minutes=i))
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    BoardSnapshot.objects.update_or_create(
        benchmark=world.benchmark, round=None, kind="ratings", defaults={"stale": False, "data": {}}
    )
    assert voter_flag_clear(flag=flag, by=admin_user) == 25
    assert Vote.objects.filter(voter=pusher, held="daily-cap").count() == 2
    assert BoardSnapshot.objects.get(benchmark=world.benchmark, round=None, kind="ratings").stale is True


def test_the_agreement_check_reads_single_vote_cells_and_leaves_ties_out(world, settings):
    """Everyone else on the first task: one vote in each cell, zephyrbot over marlinide, marlinide over
    thistledev and a tie of zephyrbot and thistledev, so the fit orders zephyrbot > marlinide > thistledev. A
    first voter casts 1 vote, on the other task (below the minimum of 3: skipped, without stopping the check
    of the voters after it); the second casts 2 ties and 3 decided votes on zephyrbot vs thistledev, 2 for
    zephyrbot (agreeing) and 1 against: decided 3 (ties are not decided), agreed 2, and p = P(X <= 2) for
    X ~ Binomial(3, 1/2) = 1 - 1/8 = 7/8."""
    z, m, t = (world.agents[s] for s in ("zephyrbot", "marlinide", "thistledev"))
    task = world.tasks[0]
    votes_add(
        [
            Vote(task=task, agent_a=z, agent_b=m, winner="a", voter_label="c1"),
            Vote(task=task, agent_a=m, agent_b=t, winner="a", voter_label="c2"),
            Vote(task=task, agent_a=t, agent_b=z, winner="tie", voter_label="c3"),
        ]
    )
    quiet, judged = make_user("quiet@example.com"), make_user("judged@example.com")
    assert quiet.pk < judged.pk
    cast(quiet, _run(world, "zephyrbot", task=1), _run(world, "thistledev", task=1), "b")
    for winner in ("tie", "tie", "a", "a", "b"):
        cast(judged, _run(world, "zephyrbot"), _run(world, "thistledev"), winner)
    (row,) = voter_agreement(benchmark_id=world.benchmark.id, min_votes=3)
    assert (row.voter_id, row.decided, row.agreed) == (judged.pk, 3, 2)
    assert row.p_value == pytest.approx(7 / 8)


def test_an_expired_pair_is_refused_with_its_message(world, voter):
    now = timezone.now()
    matchup = matchup_for(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), now=now)
    with pytest.raises(MatchupRefused) as refused:
        vote_record(key=matchup.key, voter=voter, winner="a", now=now + timedelta(hours=1))
    assert (refused.value.reason, refused.value.status) == ("expired", 410)
    assert refused.value.message == "This pair has expired. Load a new pair to vote."


def test_votes_that_mature_mark_their_benchmark_s_ratings_for_a_refit(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    voter = make_user("ripe@example.com", age_hours=1)
    cast(voter, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    BoardSnapshot.objects.update_or_create(
        benchmark=world.benchmark, round=None, kind="ratings", defaults={"stale": False, "data": {}}
    )
    assert votes_mature(now=timezone.now() + timedelta(days=2)) == 1
    assert BoardSnapshot.objects.get(benchmark=world.benchmark, round=None, kind="ratings").stale is True


def test_a_cleared_flag_cleared_again_changes_nothing(world, settings, admin_user):
    settings.VOTE_FLAG_MIN_VOTES = 20
    a, b = world.agents["thistledev"], world.agents["zephyrbot"]
    pusher = make_user("twice@example.com")
    votes_add(
        [Vote(task=world.tasks[0], agent_a=b, agent_b=a, winner="a", voter_label=f"c{n}") for n in range(10)]
        + [Vote(task=world.tasks[0], agent_a=a, agent_b=b, winner="a", voter=pusher) for _ in range(25)]
    )
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert voter_flag_clear(flag=flag, by=admin_user) == 25
    first = VoterFlag.objects.get().cleared_at
    assert voter_flag_clear(flag=flag, by=admin_user) == 0
    assert VoterFlag.objects.get().cleared_at == first


def test_votes_restored_by_clearing_a_flag_count_with_no_pending_date(world, settings, admin_user):
    # A counting vote carries no "counts from" date (as a vote that counted when cast): a new account's votes
    # that matured while the voter was flagged lose theirs when the flag is cleared.
    settings.VOTE_FLAG_MIN_VOTES = 20
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    a, b = world.agents["thistledev"], world.agents["zephyrbot"]
    votes_add([Vote(task=world.tasks[0], agent_a=b, agent_b=a, winner="a", voter_label=f"c{n}") for n in range(10)])
    sock = make_user("dated-sock@example.com", age_hours=1)
    for _ in range(25):
        cast(sock, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    later = timezone.now() + timedelta(days=2)
    votes_mature(now=later)  # due, but the voter is flagged: held "flagged", still dated
    assert Vote.objects.filter(voter=sock, held="flagged", counts_from__isnull=False).count() == 25
    assert voter_flag_clear(flag=flag, by=admin_user, now=later) == 25
    assert Vote.objects.filter(voter=sock, counts=True, counts_from__isnull=True).count() == 25
