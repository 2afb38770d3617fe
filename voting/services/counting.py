"""Casting a vote and the counting rules: whether a vote counts now, later or never, and new-account votes
starting to count.

The counting rules, in the order they are applied when a vote is cast (`vote_standing`):

0. an account whose address is not confirmed (the link mailed at sign-up, `addresses`): stored, held
   "unconfirmed" for good (one person cannot hold many voting accounts without as many mailboxes);
1. a voter with an active flag: stored, held "flagged" (counts once an editor clears the flag);
2. the voter already has VOTE_DAILY_CAP votes today (UTC) that count or will count: stored, held "daily-cap"
   for good;
3. an account younger than VOTE_NEW_ACCOUNT_DELAY_HOURS: stored, held "new-account" until `counts_from`
   (sign-up + the delay); `votes_mature` turns it into a counting vote then;
4. otherwise it counts.

`Vote.counts` is true exactly when `held` is blank for site votes, so `recount` (which reads `counts` from the
download) agrees with the site.

What one account can do (tested in tests/voting/test_counting.py): at most VOTE_RATE_LIMIT votes per
VOTE_RATE_WINDOW_SECONDS get through at all (per account and per address, `limits`; a sliding window, so no
burst across a window's edge gets twice that through), and at most VOTE_DAILY_CAP of a day's votes ever count.
A new account adds nothing for VOTE_NEW_ACCOUNT_DELAY_HOURS, and the hourly agreement check
(`flagging.voters_flag`, against a fit of everyone else's votes) flags a voter who keeps picking the crowd's
loser; a flagged voter's votes stop counting at once, so the push is undone at the next refit. A voter who
pushes only where the crowd is split (pairs rated about equal) is not caught by the check; the cap is the bound
there.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.stale import snapshots_mark_stale

from .. import queries
from ..cells import cells_apply, votes_lock
from ..draw.matchups import MatchupRefused, matchup_check, refuse_forged
from ..models import Held, Vote, VoterFlag, Winner
from ..pool import VotePool, vote_pool
from ..screens import voter_screens_retire
from ..selectors import VoterStatus, account_counts_from, is_token, reveal_from_pool
from ..standing import NOT_IN_THE_DAY, StandingRow, standing_give_back, standing_read, standing_take, standing_taken


@dataclass(frozen=True)
class Standing:
    held: str
    counts_from: datetime | None
    today: int = 0  # the voter's votes cast today (UTC) before this one that count or will count
    flagged: bool = False  # the voter has an active flag
    unconfirmed: bool = False  # the account's address is not confirmed

    @property
    def counts(self) -> bool:
        return self.held == Held.NONE


def vote_standing(*, voter, now: datetime, stored: StandingRow | None = None) -> Standing:
    """Whether a vote cast now by `voter` counts, and if not why (the rules in the module docstring), from the
    voter's stored standing (`voting.standing`; `stored` when the caller has read it already)."""
    counts_from = account_counts_from(voter)
    today, flagged, unconfirmed = (stored or standing_read(voter_id=voter.pk, now=now))[:3]
    if unconfirmed:
        return Standing(Held.UNCONFIRMED, None, today, flagged, unconfirmed=True)
    if flagged:
        return Standing(Held.FLAGGED, counts_from if counts_from > now else None, today, flagged)
    if today >= settings.VOTE_DAILY_CAP:
        return Standing(Held.DAILY_CAP, None, today, flagged)
    if counts_from > now:
        return Standing(Held.NEW_ACCOUNT, counts_from, today, flagged)
    return Standing(Held.NONE, None, today, flagged)


@dataclass(frozen=True)
class Cast:
    """A vote just cast, and where its voter stands after it (what the screen's notice says)."""

    vote: Vote
    voter: VoterStatus
    reveal: queries.Reveal  # the pair voted on, with both sides' makers (its vote fields unset: see `vote`)


def vote_record(*, key: str, voter, winner: str, now: datetime | None = None) -> Vote:
    """Cast `voter`'s vote on the matchup `key`: exactly once, by the voter it was issued to, before it
    expires. Marks the task's ratings stale (the refit runs after commit, debounced)."""
    return vote_cast(key=key, voter=voter, winner=winner, now=now).vote


def vote_cast(*, key: str, voter, winner: str, now: datetime | None = None, pool: VotePool | None = None) -> Cast:
    """`vote_record`, also returning the voter's standing after the vote, read in the same transaction (so the
    screen that answers the vote needs no second read of it), and what the reveal shows (from `pool`, the vote
    pool, when it still has both runs)."""
    if winner not in Winner.values:
        raise ValueError(f"unknown winner {winner!r}")
    if not is_token(key):
        raise refuse_forged()
    now = now or timezone.now()
    with transaction.atomic():
        # The vote added to the voter's day first, its row locked: one voter's concurrent votes wait for each
        # other (two cannot both pass the daily cap at cap - 1, and a replayed key waits for the first vote and
        # then sees used_at set); a refusal below rolls the addition back.
        taken = standing_take(voter_id=voter.pk, now=now)
        voter_screens_retire([voter.pk])  # once the vote commits: the kept screen shows a used pair
        claim = queries.claim_target(key=key)
        matchup = matchup_check(claim.matchup if claim else None, voter_id=voter.pk, now=now, for_vote=True)
        assert claim is not None
        stored = standing_taken(claim.standing, taken=taken, voter_id=voter.pk, now=now)
        if not claim.published:  # withdrawn while the pair was on screen: its runs are no longer shown
            raise MatchupRefused("withdrawn", 410, "This pair is no longer shown. Load a new pair to vote.")
        # The conditional update is the claim: only one request can turn used_at from NULL.
        if not queries.matchup_use(matchup_id=matchup.pk, now=now):
            raise MatchupRefused("used", 410, "You already voted on this pair. Each pair takes one vote.")
        standing = vote_standing(voter=voter, now=now, stored=stored)
        vote = Vote(
            task_id=matchup.task_id,
            agent_a_id=claim.agent_a_id,
            agent_b_id=claim.agent_b_id,
            run_a_id=matchup.run_a_id,
            run_b_id=matchup.run_b_id,
            winner=winner,
            voter=voter,
            cast_at=now,
            counts=standing.counts,
            held=standing.held,
            counts_from=standing.counts_from,
            matchup_id=matchup.pk,
        )
        Vote.objects.bulk_create([vote])
        if taken and standing.held in NOT_IN_THE_DAY:
            standing_give_back(voter_id=voter.pk)
        reveal, benchmark_id = _reveal(claim, pool or vote_pool())
        if standing.counts:
            cells_apply(added=[(vote.task_id, vote.agent_a_id, vote.agent_b_id, vote.winner)])
            if not claim.ratings_stale:  # read with the claim: already stale, a refit is on its way
                snapshots_mark_stale(benchmark_ids=[benchmark_id])  # its ratings
    matchup.used_at = now
    return Cast(vote, _status_after(voter, standing, stored, now), reveal)


def _reveal(claim: queries.Claim, pool: VotePool) -> tuple[queries.Reveal, int]:
    """The pair's reveal and its benchmark's id: from the vote pool, else read (a run has left the pool)."""
    task = pool.task(claim.matchup.task_id)
    reveal = reveal_from_pool(claim.matchup, pool=pool, agent_ids=(claim.agent_a_id, claim.agent_b_id))
    if reveal is not None and task is not None:
        return reveal, task.benchmark_id
    return queries.reveal_read(matchup=claim.matchup)


def _status_after(voter, standing: Standing, stored: StandingRow, now: datetime) -> VoterStatus:
    """Where the voter stands after the vote (what the screen's notice says), with the organization read with
    the standing (the next pair, drawn with the vote, leaves its agents out)."""
    counts_from = account_counts_from(voter)
    return VoterStatus(
        counts_from=counts_from if counts_from > now else None,
        flagged=standing.flagged,
        counted_today=standing.today + (standing.held not in NOT_IN_THE_DAY),
        unconfirmed=standing.unconfirmed,
        daily_cap=settings.VOTE_DAILY_CAP,
        organization_id=stored.organization_id,
    )


def votes_mature(*, now: datetime | None = None, voter_id: int | None = None) -> int:
    """New-account votes whose `counts_from` has passed start counting (a flagged voter's become held
    "flagged" instead). Returns how many started counting."""
    now = now or timezone.now()
    with transaction.atomic():
        due = Vote.objects.filter(held=Held.NEW_ACCOUNT, counts_from__lte=now)
        if voter_id is not None:
            due = due.filter(voter_id=voter_id)
        flagged = VoterFlag.objects.active().values("voter_id")
        due.filter(voter_id__in=flagged).update(held=Held.FLAGGED)
        rows = votes_lock(due.exclude(voter_id__in=flagged))
        votes_update([i for i, _ in rows], held=Held.NONE, counts=True)
        cells_apply(added=[key for _, key in rows])
        if rows:
            snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})
    return len(rows)


def votes_update(ids: list[int], **values) -> None:
    """Update the votes `ids` (already locked) in batches a database's parameter limit allows."""
    for start in range(0, len(ids), 1000):
        Vote.objects.filter(pk__in=ids[start : start + 1000]).update(**values)
