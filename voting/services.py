"""Writes of the voting app: drawing matchups, recording votes, rate limits, the counting rules and flagging.

The counting rules, in the order they are applied when a vote is cast (`vote_standing`):

1. a voter with an active flag: stored, held "flagged" (counts once an editor clears the flag);
2. the voter already has VOTE_DAILY_CAP votes today (UTC) that count or will count: stored, held "daily-cap"
   for good;
3. an account younger than VOTE_NEW_ACCOUNT_DELAY_HOURS: stored, held "new-account" until `counts_from`
   (sign-up + the delay); `votes_mature` turns it into a counting vote then;
4. otherwise it counts.

`Vote.counts` is true exactly when `held` is blank for site votes, so `recount` (which reads `counts` from the
download) agrees with the site.

What one account can do (tested in tests/voting/test_counting.py): at most VOTE_RATE_LIMIT votes per
VOTE_RATE_WINDOW_SECONDS get through at all (per account and per address; a fixed window, so a burst across a
window edge can reach twice that), and at most VOTE_DAILY_CAP of a day's votes ever count. A new account adds
nothing for VOTE_NEW_ACCOUNT_DELAY_HOURS, and the hourly agreement check (`voters_flag`, against a fit of
everyone else's votes) flags a voter who keeps picking the crowd's loser; a flagged voter's votes stop counting
at once, so the push is undone at the next refit. A voter who pushes only where the crowd is split (pairs
rated about equal) is not caught by the check; the cap is the bound there.

Matchups: an open matchup is shown again when the page is reloaded (no rerolling for a wanted pair), new pairs
are limited to VOTE_DRAW_RATE_LIMIT per window, a vote on a pair whose round was withdrawn while it was on
screen is refused, the vote key works once (row lock plus a conditional update
on `used_at`), and the preview aliases serve only the issuing voter until VOTE_ALIAS_TTL_SECONDS have passed
(after the vote too, so the revealed pair keeps its pictures; by then the names are on the screen anyway).
"""

from __future__ import annotations

import hashlib
import math
import secrets
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from random import Random
from typing import Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from leaderboard import ratelimit
from leaderboard.clients import client_address  # noqa: F401 - the voting views' import of it
from leaderboard.models import Agent
from leaderboard.ratelimit import window_hits
from runs.selectors import user_is_editor
from scoring.bradley_terry import fit_cells
from snapshots.stale import snapshots_mark_stale

from . import queries
from .cells import VOTE_CELL_FIELDS, cell_of, cells_apply, votes_lock
from .draw import pair_pick
from .drawable import drawable_run_ids
from .models import Held, Matchup, Outcome, Vote, VoteCell, VoterFlag, Winner
from .pool import VotePool, vote_pool
from .selectors import (
    VoterStatus,
    account_counts_from,
    day_start,
    is_token,
    pool_runs,
    scope_tasks,
)

# System randomness for draws and tokens: a voter must not be able to predict the next pair.
_system_random = secrets.SystemRandom()


class MatchupRefused(Exception):
    """A vote or preview on a matchup that cannot be used: forged, another voter's, used or expired."""

    def __init__(self, reason: str, status: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.status = status
        self.message = message


def _refuse_forged() -> MatchupRefused:
    # The same answer for an unknown token and for another voter's: it tells a forger nothing.
    return MatchupRefused("forged", 400, "This pair was not issued to you. Load a new pair to vote.")


class _Usable(Protocol):
    @property
    def voter_id(self) -> int: ...
    @property
    def used_at(self) -> datetime | None: ...
    @property
    def expires_at(self) -> datetime: ...


def matchup_check[U: _Usable](matchup: U | None, *, voter_id: int, now: datetime, for_vote: bool) -> U:
    """Raise MatchupRefused unless this voter may use the matchup now (to vote: only once)."""
    if matchup is None or matchup.voter_id != voter_id:
        raise _refuse_forged()
    if for_vote and matchup.used_at is not None:
        raise MatchupRefused("used", 410, "You already voted on this pair. Each pair takes one vote.")
    if matchup.expires_at <= now:
        raise MatchupRefused("expired", 410, "This pair has expired. Load a new pair to vote.")
    return matchup


# --- drawing ------------------------------------------------------------------------------------------------


def _token() -> str:
    return secrets.token_urlsafe(18)


def matchup_draw(
    *,
    voter,
    scope: str = "",
    now: datetime | None = None,
    rng: Random | None = None,
    pool: VotePool | None = None,
    after: Matchup | queries.ClaimTarget | None = None,
) -> Matchup | None:
    """Draw a pair of runs of one task for `voter`, or None when the scope has no two agents to compare.

    Rules: only runs of published rounds (completed, not superseded by a re-run), under the task's current
    major version, with something to show (an app build, an opaque preview address or a stored screenshot:
    `drawable.drawable` and `drawable.run_is_drawable`); never an agent of the voter's own organization;
    tasks ranked by votes (invent, startup) first: their pairs the voter has not voted on, then to-spec pairs
    (`draw.first_pairs`); two different agents; pairs with fewer votes are favoured (weight
    1 / (1 + counted votes on that pair in that task)^2, read from the vote cells); the pair the voter last
    saw in that task is not drawn again straight away when there is another. A and B are assigned at random
    and each agent's run is picked at random among its runs of the task.

    The runs come from the shared vote pool (`voting.pool`); the two picked are checked against the database
    (`drawable.drawable_run_ids`) before the matchup is made, and a failed check draws again from a pool
    worked out afresh (`pool.vote_pool_last` then gives the screen that pool, not the one found stale).

    `after` is the pair the voter has just voted on, when the next pair is drawn with the vote: it is then the
    pair last seen, and is not read again.
    """
    rng = rng or _system_random
    now = now or timezone.now()
    for attempt in range(2):
        pool = vote_pool(fresh=True) if attempt else (pool or vote_pool())
        runs_by_task: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for run_id, task_id, agent_id in pool_runs(voter=voter, task_ids=scope_tasks(scope, pool), pool=pool):
            runs_by_task[task_id][agent_id].append(run_id)
        picked = pair_pick(voter, runs_by_task, pool, rng, after)
        if picked is None:
            return None
        task_id, run_a_id, run_b_id = picked
        # The pool may be a moment old: the two runs are checked against the database before they are shown.
        if len(drawable_run_ids(voter=voter, task_id=task_id, run_ids=[run_a_id, run_b_id])) == 2:
            break
    else:
        return None
    matchup = Matchup(
        key=_token(),
        alias_a=_token(),
        alias_b=_token(),
        voter=voter,
        task_id=task_id,
        run_a_id=run_a_id,
        run_b_id=run_b_id,
        scope=scope,
        created_at=now,
        expires_at=now + timedelta(seconds=settings.VOTE_ALIAS_TTL_SECONDS),
    )
    return queries.insert(matchup)


# --- rate limits --------------------------------------------------------------------------------------------


def rate_limit_hit(
    *, bucket: str, idents: list[str], limit: int, window: int, at: float | None = None, voter=None
) -> int:
    """Count one request against each identity (an account, an address) in a fixed window on the cache.
    Returns 0 when within `limit` for all of them, else the seconds until the window ends.

    A fixed window lets a burst straddling two windows reach twice the limit; that bound is what the
    documentation states. Counters live in the Django cache (Redis in production, shared by all workers).
    When the cache is down, votes are still limited per account from the database (the votes the account
    cast in the last window); the per-address limit needs the cache and is skipped until it is back."""
    return rate_limits_hit(limits={bucket: limit}, idents=idents, window=window, at=at, voter=voter)[bucket]


def rate_limits_hit(
    *, limits: dict[str, int], idents: list[str], window: int, at: float | None = None, voter=None
) -> dict[str, int]:
    """`rate_limit_hit` for several buckets at once ({bucket: limit}), in one round trip to the cache (a vote
    that also draws the next pair counts against "vote" and "draw" together). Returns {bucket: seconds to
    wait, 0 when within its limit}."""
    at = ratelimit.clock() if at is None else at
    slot = int(at // window)
    keys = [
        (
            bucket,
            f"vote-rate:{bucket}:{hashlib.sha256(f'{settings.SECRET_KEY}:{ident}'.encode()).hexdigest()[:24]}:{slot}",
        )
        for bucket in limits
        for ident in idents
    ]
    over = dict.fromkeys(limits, False)
    cache_down = False
    for (bucket, _), count in zip(keys, window_hits([key for _, key in keys], window), strict=True):
        if count is None:
            cache_down = True
            continue
        over[bucket] |= count > limits[bucket]
    if cache_down and voter is not None and "vote" in limits:
        since = datetime.fromtimestamp(at - window, tz=UTC)
        over["vote"] |= Vote.objects.filter(voter=voter, cast_at__gte=since).count() >= limits["vote"]
    wait = max(1, math.ceil((slot + 1) * window - at))
    return {bucket: wait if over[bucket] else 0 for bucket in limits}


# --- votes --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    held: str
    counts_from: datetime | None
    today: int = 0  # the voter's votes cast today (UTC) before this one that count or will count
    flagged: bool = False  # the voter has an active flag

    @property
    def counts(self) -> bool:
        return self.held == Held.NONE


def vote_standing(*, voter, now: datetime) -> Standing:
    """Whether a vote cast now by `voter` counts, and if not why (the rules in the module docstring)."""
    counts_from = account_counts_from(voter)
    today, flagged = queries.voter_day(voter_id=voter.pk, since=day_start(now))
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


def vote_cast(*, key: str, voter, winner: str, now: datetime | None = None) -> Cast:
    """`vote_record`, also returning the voter's standing after the vote, read in the same transaction (so the
    screen that answers the vote needs no second read of it)."""
    if winner not in Winner.values:
        raise ValueError(f"unknown winner {winner!r}")
    if not is_token(key):
        raise _refuse_forged()
    now = now or timezone.now()
    with transaction.atomic():
        # Locking the voter's row serialises one voter's concurrent votes, so two requests cannot both pass
        # the daily cap at cap - 1.
        queries.voter_lock(voter_id=voter.pk)
        # Locking the matchup makes a replayed key wait for the first vote and then see used_at set.
        target = queries.claim_target(key=key)
        matchup_check(target, voter_id=voter.pk, now=now, for_vote=True)
        assert target is not None
        if not target.published:  # withdrawn while the pair was on screen: its runs are no longer shown
            raise MatchupRefused("withdrawn", 410, "This pair is no longer shown. Load a new pair to vote.")
        # The conditional update is the claim: only one request can turn used_at from NULL.
        if not queries.matchup_use(matchup_id=target.pk, now=now):
            raise MatchupRefused("used", 410, "You already voted on this pair. Each pair takes one vote.")
        standing = vote_standing(voter=voter, now=now)
        vote = Vote(
            task_id=target.task_id,
            agent_a_id=target.agent_a_id,
            agent_b_id=target.agent_b_id,
            run_a_id=target.run_a_id,
            run_b_id=target.run_b_id,
            winner=winner,
            voter=voter,
            cast_at=now,
            counts=standing.counts,
            held=standing.held,
            counts_from=standing.counts_from,
            matchup_id=target.pk,
        )
        queries.insert(vote)
        if standing.counts:
            cells_apply(added=[(vote.task_id, vote.agent_a_id, vote.agent_b_id, vote.winner)])
            snapshots_mark_stale(benchmark_ids=[target.benchmark_id])  # its ratings
    counts_from = account_counts_from(voter)
    after = VoterStatus(
        counts_from=counts_from if counts_from > now else None,
        flagged=standing.flagged,
        counted_today=standing.today + (standing.held != Held.DAILY_CAP),
        daily_cap=settings.VOTE_DAILY_CAP,
    )
    target.reveal.matchup.used_at = now
    return Cast(vote, after, target.reveal)


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
        _update_ids([i for i, _ in rows], held=Held.NONE, counts=True)
        cells_apply(added=[key for _, key in rows])
        if rows:
            snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})
    return len(rows)


def _update_ids(ids: list[int], **values) -> None:
    """Update the votes `ids` (already locked) in batches a database's parameter limit allows."""
    for start in range(0, len(ids), 1000):
        Vote.objects.filter(pk__in=ids[start : start + 1000]).update(**values)


def matchups_prune(*, now: datetime | None = None, keep_days: int = 2) -> int:
    """Delete matchups that expired unused more than `keep_days` ago (used ones stay with their vote)."""
    now = now or timezone.now()
    deleted, _ = Matchup.objects.filter(used_at__isnull=True, expires_at__lt=now - timedelta(days=keep_days)).delete()
    return deleted


# --- flagging -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    voter_id: int
    decided: int
    agreed: int
    p_value: float


def voter_agreement(*, benchmark_id: int, min_votes: int = 1) -> list[Agreement]:
    """For each site voter of the benchmark with at least `min_votes` non-tie votes: of those votes on pairs
    the fit can order, how many picked the agent with the higher fitted rating in that task, and the
    one-sided binomial p-value of agreeing that rarely if each vote agreed with probability 1/2.

    The fit is Bradley-Terry on the task's counted votes of everyone *but* this voter (point estimate), so a
    voter who casts many votes cannot bend the fit towards their own choices and then agree with it. An
    honest voter agrees with probability >= 1/2 on every pair (the fit's favourite is, by the fit, at least
    as likely to win), so testing against 1/2 is conservative: a low p-value means choices opposed to
    everyone else's far beyond chance, not merely noisy ones.

    It reads tallies, never the votes one by one: each voter's votes grouped by (task, pair, winner, counts)
    in one query, and the task's vote cells; everyone else's votes are the cells minus the voter's own."""
    from scipy.stats import binomtest

    tallies: dict[int, list[tuple[int, int, int, str, bool, int]]] = defaultdict(list)
    for voter_id, *rest in (
        Vote.objects.filter(task__benchmark_id=benchmark_id, voter__isnull=False)
        .values_list("voter_id", *VOTE_CELL_FIELDS, "counts")
        .annotate(n=Count("id"))
        .order_by()
    ):
        tallies[voter_id].append(tuple(rest))  # type: ignore[arg-type]
    cells: dict[int, Counter] = defaultdict(Counter)
    for task_id, lo, hi, outcome, n in VoteCell.objects.filter(task__benchmark_id=benchmark_id, n__gt=0).values_list(
        "task_id", "agent_lo_id", "agent_hi_id", "outcome", "n"
    ):
        cells[task_id][(lo, hi, outcome)] += n
    agent_ids = {x for own in tallies.values() for _, a, b, *_ in own for x in (a, b)}
    agent_ids |= {x for task_cells in cells.values() for lo, hi, _ in task_cells for x in (lo, hi)}
    slug = dict(Agent.objects.filter(id__in=agent_ids).values_list("id", "slug"))
    rows = []
    for voter_id in sorted(tallies):
        own = tallies[voter_id]
        if sum(n for *_, winner, _, n in own if winner != Winner.TIE) < min_votes:
            continue
        others: dict[int, Counter] = {task_id: Counter(cells[task_id]) for task_id, *_ in own}
        for task_id, a, b, winner, counts, n in own:
            if counts:
                others[task_id][cell_of(task_id, a, b, winner)[1:]] -= n
        rating = {task_id: _point_ratings(left, slug) for task_id, left in others.items()}
        n_decided = k = 0
        for task_id, a, b, winner, _, n in own:
            ra, rb = rating[task_id].get(slug[a]), rating[task_id].get(slug[b])
            if winner == Winner.TIE or ra is None or rb is None or ra == rb:
                continue
            n_decided += n
            k += n if winner == (Winner.A if ra > rb else Winner.B) else 0
        if n_decided:
            p = float(binomtest(k, n_decided, 0.5, alternative="less").pvalue)
            rows.append(Agreement(voter_id, n_decided, k, p))
    return rows


def _point_ratings(cells: Counter, slug: dict[int, str]) -> dict[str, float]:
    """The point ratings of one task's cells ({(lo id, hi id, outcome): n}), by agent slug."""
    winner = {Outcome.LO: "a", Outcome.HI: "b", Outcome.TIE: "tie"}
    fitted = fit_cells(
        ((slug[lo], slug[hi], winner[Outcome(o)], n) for (lo, hi, o), n in cells.items()), bootstrap_rounds=1
    )
    return {r["agent"]: r["rating"] for r in fitted}


def voters_flag(*, benchmark_id: int, now: datetime | None = None) -> list[VoterFlag]:
    """Flag the voters of a benchmark with at least VOTE_FLAG_MIN_VOTES decided votes whose agreement with
    the fit has p < VOTE_FLAG_P_VALUE; their votes stop counting. A voter already flagged is skipped; a
    voter an editor cleared is judged again on the evidence as it stands now."""
    now = now or timezone.now()
    flags = []
    for row in voter_agreement(benchmark_id=benchmark_id, min_votes=settings.VOTE_FLAG_MIN_VOTES):
        if row.decided < settings.VOTE_FLAG_MIN_VOTES or row.p_value >= settings.VOTE_FLAG_P_VALUE:
            continue
        cleared = (
            VoterFlag.objects.filter(voter_id=row.voter_id, cleared_at__isnull=False).order_by("-cleared_at").first()
        )
        if cleared and not Vote.objects.filter(voter_id=row.voter_id, cast_at__gt=cleared.cleared_at).exists():
            continue  # an editor cleared this voter and nothing new has been cast since
        with transaction.atomic():
            get_user_model().objects.select_for_update().filter(pk=row.voter_id).first()
            if VoterFlag.objects.active().filter(voter_id=row.voter_id).exists():
                continue
            flags.append(
                VoterFlag.objects.create(
                    voter_id=row.voter_id,
                    benchmark_id=benchmark_id,
                    decided_votes=row.decided,
                    agreed=row.agreed,
                    p_value=row.p_value,
                    flagged_at=now,
                )
            )
            _hold_flagged(row.voter_id)
    return flags


def _hold_flagged(voter_id: int) -> None:
    rows = votes_lock(Vote.objects.filter(voter_id=voter_id, held=Held.NONE, counts=True))
    _update_ids([i for i, _ in rows], held=Held.FLAGGED, counts=False)
    cells_apply(removed=[key for _, key in rows])
    if rows:
        snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})


def voter_flag_clear(*, flag: VoterFlag, by, now: datetime | None = None) -> int:
    """An editor clears a flag: the voter's held-for-flag votes count again (those cast while the account
    was new wait for their `counts_from`). Returns how many votes count again."""
    now = now or timezone.now()
    with transaction.atomic():
        if VoterFlag.objects.filter(pk=flag.pk, cleared_at__isnull=True).update(cleared_at=now, cleared_by=by) != 1:
            return 0
        held = Vote.objects.filter(voter_id=flag.voter_id, held=Held.FLAGGED)
        held.filter(counts_from__gt=now).update(held=Held.NEW_ACCOUNT)
        rows = votes_lock(held.filter(Q(counts_from__isnull=True) | Q(counts_from__lte=now)))
        _update_ids([i for i, _ in rows], held=Held.NONE, counts=True, counts_from=None)
        cells_apply(added=[key for _, key in rows])
        if rows:
            snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})
    return len(rows)


def vote_change(*, vote: Vote, by, changes: dict | None = None, delete: bool = False) -> None:
    """An editor corrects or removes a vote from the admin: the ratings of its benchmark are refit."""
    if not user_is_editor(by):
        raise PermissionDenied("Only editors may change votes.")
    with transaction.atomic():
        # The stored row, locked: its cell is uncounted from what it was, not from what the form holds.
        before = Vote.objects.select_for_update().filter(pk=vote.pk).values_list("counts", *VOTE_CELL_FIELDS).first()
        if before is not None and before[0]:
            cells_apply(removed=[before[1:]])
        if delete:
            Vote.objects.filter(pk=vote.pk).delete()
        else:
            for name, value in (changes or {}).items():
                setattr(vote, name, value)
            vote.save()
            if vote.counts:
                cells_apply(added=[(vote.task_id, vote.agent_a_id, vote.agent_b_id, vote.winner)])
        snapshots_mark_stale(rating_task_ids={before[1] if before else vote.task_id, vote.task_id})
