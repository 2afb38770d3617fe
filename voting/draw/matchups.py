"""Matchups: drawing a pair for a voter (`matchup_draw`, and which pair it picks: `pair_pick`), checking that a
voter may use a matchup, pruning expired ones. Which runs may be drawn at all is `voting.draw.rules`.

An open matchup is shown again when the page is reloaded (no rerolling for a wanted pair), new pairs are
limited to VOTE_DRAW_RATE_LIMIT per window (`limits`), a vote on a pair whose round was withdrawn while it was
on screen is refused (`counting.vote_cast`), the vote key works once (row lock plus a conditional update on
`used_at`), and the preview aliases serve only the issuing voter until VOTE_ALIAS_TTL_SECONDS have passed
(after the vote too, so the revealed pair keeps its pictures; by then the names are on the screen anyway).
"""

from __future__ import annotations

import secrets
from collections import defaultdict
from datetime import datetime, timedelta
from random import Random
from types import EllipsisType
from typing import Protocol

from django.conf import settings
from django.utils import timezone

from leaderboard.roles import user_organization_id

from .. import queries
from ..models import Matchup
from ..pool import VotePool, recent, vote_pool
from ..screens import voter_screens_retire
from ..selectors import pool_runs, scope_tasks
from .rules import drawable_run_ids

# System randomness for draws and tokens: a voter must not be able to predict the next pair.
_system_random = secrets.SystemRandom()


class MatchupRefused(Exception):
    """A vote or preview on a matchup that cannot be used: forged, another voter's, used or expired."""

    def __init__(self, reason: str, status: int, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.status = status
        self.message = message


def refuse_forged() -> MatchupRefused:
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
        raise refuse_forged()
    if for_vote and matchup.used_at is not None:
        raise MatchupRefused("used", 410, "You already voted on this pair. Each pair takes one vote.")
    if matchup.expires_at <= now:
        raise MatchupRefused("expired", 410, "This pair has expired. Load a new pair to vote.")
    return matchup


def _token() -> str:
    return secrets.token_urlsafe(18)


def matchup_draw(
    *,
    voter,
    scope: str = "",
    now: datetime | None = None,
    rng: Random | None = None,
    pool: VotePool | None = None,
    after: Matchup | None = None,
    organization_id: int | None | EllipsisType = ...,
) -> Matchup | None:
    """Draw a pair of runs of one task for `voter`, or None when the scope has no two agents to compare.

    Rules: only runs of published rounds (completed, not superseded by a re-run), under the task's current
    major version, with something to show (an app build, an opaque preview address or a stored screenshot:
    `rules.drawable` and `rules.run_is_drawable`); never an agent of the voter's own organization;
    tasks ranked by votes (invent, startup) first: their pairs the voter has not voted on, then to-spec pairs
    (`first_pairs`); two different agents; pairs with fewer votes are favoured (weight
    1 / (1 + counted votes on that pair in that task)^2, read from the vote cells at most a second ago); the
    pair the voter last saw in that task is not drawn again straight away when there is another. A and B are
    assigned at random and each agent's run is picked at random among its runs of the task.

    The runs come from the shared vote pool (`voting.pool`); the two picked are checked against the database
    (`rules.drawable_run_ids`) before the matchup is made, and a failed check draws again from a pool
    worked out afresh (`pool.vote_pool_last` then gives the screen that pool, not the one found stale).

    `after` is the pair the voter has just voted on, when the next pair is drawn with the vote: it is then the
    pair last seen, and is not read again. `organization_id` is the voter's organization when the caller has
    read it with the voter's standing (else it is read here).
    """
    rng = rng or _system_random
    now = now or timezone.now()
    org = user_organization_id(voter) if organization_id is ... else organization_id
    for attempt in range(2):
        pool = vote_pool(fresh=True) if attempt else (pool or vote_pool())
        runs_by_task: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        tasks = scope_tasks(scope, pool)
        for run_id, task_id, agent_id in pool_runs(voter=voter, task_ids=tasks, pool=pool, organization_id=org):
            runs_by_task[task_id][agent_id].append(run_id)
        picked = pair_pick(voter, runs_by_task, pool, rng, after)
        if picked is None:
            return None
        task_id, run_a_id, run_b_id = picked
        # The pool may be a moment old: the two runs are checked against the database before they are shown.
        task = pool.task(task_id)
        checked = drawable_run_ids(
            voter=voter,
            task_id=task_id,
            run_ids=[run_a_id, run_b_id],
            organization_id=org,
            methodology=task.methodology if task else None,
        )
        if len(checked) == 2:
            break
    else:
        return None
    return _matchup_store(voter, scope, now, task_id, run_a_id, run_b_id)


def _matchup_store(voter, scope: str, now: datetime, task_id: int, run_a_id: int, run_b_id: int) -> Matchup:
    """The drawn pair's matchup, stored (one insert, no model signal: `bulk_create`)."""
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
    Matchup.objects.bulk_create([matchup])
    voter_screens_retire([voter.pk])  # a new open pair: the voter's kept screens are of the old ones
    return matchup


# --- which pair ------------------------------------------------------------------------------------------------
def pair_pick(
    voter, runs_by_task: dict[int, dict[int, list[int]]], pool, rng: Random, after=None
) -> tuple[int, int, int] | None:
    """(task id, run A id, run B id) by the rules of `matchup_draw`, or None when there is no
    pair."""
    candidates: list[tuple[int, int, int]] = []
    for task_id, agents in runs_by_task.items():
        ids = sorted(agents)
        candidates += [(task_id, a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
    candidates = first_pairs(voter, candidates, pool)
    if not candidates:
        return None
    # Votes on each pair, from the vote cells (the counted votes, whichever agent was shown as A), as this
    # process read them within the last second (`pool.recent`).
    task_ids = sorted({c[0] for c in candidates})
    seen = recent(("pair-votes", *task_ids), lambda: queries.pair_votes(task_ids=task_ids))
    last = (after.task_id, after.run_a_id, after.run_b_id) if after else queries.last_pair(voter_id=voter.pk)
    if last is not None and len(candidates) > 1:
        agent_of = {
            run_id: agent_id for agents in runs_by_task.values() for agent_id, runs in agents.items() for run_id in runs
        }
        pair = sorted([agent_of.get(last[1], -1), agent_of.get(last[2], -1)])
        candidates = [c for c in candidates if c != (last[0], pair[0], pair[1])]
    weights = [1.0 / (1 + seen.get(c, 0)) ** 2 for c in candidates]
    task_id, a, b = rng.choices(candidates, weights=weights, k=1)[0]
    if rng.random() < 0.5:
        a, b = b, a
    agents = runs_by_task[task_id]
    return task_id, rng.choice(agents[a]), rng.choice(agents[b])


def first_pairs(voter, candidates: list[tuple[int, int, int]], pool) -> list[tuple[int, int, int]]:
    """Invent and startup tasks first (their boards are ranked by votes): their pairs this voter has not voted
    on yet; once the voter has voted on every one of them, the to-spec tasks' pairs; with none of those, the
    invent and startup pairs again."""
    first_tasks = {t for t in {c[0] for c in candidates} if (task := pool.task(t)) and task.ranked_by_votes}
    if not first_tasks:
        return candidates
    first = [c for c in candidates if c[0] in first_tasks]
    voted = queries.voter_pairs(voter_id=voter.pk, task_ids=sorted(first_tasks))
    fresh = [c for c in first if c not in voted]
    return fresh or [c for c in candidates if c[0] not in first_tasks] or first


def matchups_prune(*, now: datetime | None = None, keep_days: int = 2) -> int:
    """Delete matchups that expired unused more than `keep_days` ago (used ones stay with their vote)."""
    now = now or timezone.now()
    deleted, _ = Matchup.objects.filter(used_at__isnull=True, expires_at__lt=now - timedelta(days=keep_days)).delete()
    return deleted
