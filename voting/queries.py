"""The reads and writes every vote screen and every vote make, each one query.

Each of these runs once per vote screen or per vote, so each is a single statement: one queryset, its joins
said with `select_related`-style lookups (`F("run_a__entry__agent__name")`) so the row comes back with what
the screen needs and nothing more. Each function says what it reads; the tests of the draw and of the vote
(tests/voting) exercise them all, and `tests/voting/test_vote_screen.py` counts their statements.

What a queryset cannot say stays SQL elsewhere, with its "Why SQL" note: the vote cells' adding upsert and
their table lock (`voting.cells`).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import NamedTuple

from django.db.models import F, QuerySet, Value
from django.db.models.functions import Coalesce

from leaderboard.models import RoundStatus
from leaderboard.stale import ratings_stale_of

from .models import Matchup, Vote, VoteCell
from .standing import STANDING_OF_VOTER

# The voter's matchups, latest first: built once, filtered by each read.
_latest = Matchup.objects.order_by("-created_at", "-id")
_latest_with_standing = _latest.annotate(**STANDING_OF_VOTER)


def matchup_open(*, voter_id: int, scope: str, now: datetime) -> Matchup | None:
    """The voter's latest unused, unexpired matchup for this scope, read with its voter's standing (the
    values of `standing.STANDING_OF_VOTER`, as attributes of the matchup: a reload reads both in one statement)."""
    return next(iter(_latest_with_standing.open(now=now).filter(voter_id=voter_id, scope=scope)[:1]), None)


class RevealedRun(NamedTuple):
    """What the screen shows of a side once the vote is cast: who made it, and where its run page is."""

    run_id: int
    run_key: str
    round_key: str
    agent_name: str
    organization_name: str  # "" for an agent without an organization
    model: str


class Reveal(NamedTuple):
    """A matchup with what its reveal shows: the benchmark, the two sides' makers and the vote cast on it."""

    matchup: Matchup
    benchmark_slug: str
    side_a: RevealedRun
    side_b: RevealedRun
    vote_winner: str | None  # None: no vote on this matchup
    vote_held: str
    vote_counts_from: datetime | None


_SIDE_FIELDS = ("run_key", "round_key", "agent_name", "organization_name", "model")


def with_reveal(matchups: QuerySet[Matchup]) -> QuerySet[Matchup]:
    """Matchups read with what their reveal shows (`reveal_of`): the benchmark's slug and, for each side, its
    run's key, round key, agent, organization and model, joined in the same statement."""
    names: dict[str, object] = {"reveal_benchmark_slug": F("task__benchmark__slug")}
    for x in ("a", "b"):
        run = f"run_{x}__"
        names |= {
            f"reveal_{x}_run_key": F(run + "key"),
            f"reveal_{x}_round_key": F(run + "round__key"),
            f"reveal_{x}_agent_name": F(run + "entry__agent__name"),
            f"reveal_{x}_organization_name": Coalesce(F(run + "entry__agent__organization__name"), Value("")),
            f"reveal_{x}_model": F(run + "entry__model"),
        }
    return matchups.annotate(**names)


def reveal_of(matchup: Matchup, vote: tuple = (None, "", None)) -> Reveal:
    """The `Reveal` of a matchup read through `with_reveal`, with `vote` (winner, held, counts_from): the
    reveal after a vote (`services.counting.vote_cast`) and on reload (`selectors.matchup_reveal`)."""

    def side(x: str) -> RevealedRun:
        fields = (getattr(matchup, f"reveal_{x}_{name}") for name in _SIDE_FIELDS)
        return RevealedRun(getattr(matchup, f"run_{x}_id"), *fields)

    winner, held, counts_from = vote
    return Reveal(matchup, matchup.reveal_benchmark_slug, side("a"), side("b"), winner, held or "", counts_from)


def last_pair(*, voter_id: int) -> tuple[int, int, int] | None:
    """(task id, run A id, run B id) of the voter's latest matchup, used or not."""
    return next(iter(_latest.filter(voter_id=voter_id).values_list("task_id", "run_a_id", "run_b_id")[:1]), None)


def pair_votes(*, task_ids: list[int]) -> dict[tuple[int, int, int], int]:
    """Counted votes per (task, lower agent id, higher agent id), from the vote cells (every outcome)."""
    if not task_ids:
        return {}
    totals: Counter[tuple[int, int, int]] = Counter()
    for task, lo, hi, n in _cells.filter(task_id__in=task_ids):  # at most three cells (outcomes) a pair
        totals[task, lo, hi] += n
    return dict(totals)


_cells = VoteCell.objects.order_by().values_list("task_id", "agent_lo_id", "agent_hi_id", "n")  # built once


def voter_pairs(*, voter_id: int, task_ids: list[int]) -> set[tuple[int, int, int]]:
    """The pairs the voter has voted on in these tasks, as (task, lower agent id, higher agent id), whichever
    agent was shown as A and whether the vote counts."""
    if not task_ids:
        return set()
    rows = _voter_pairs.filter(voter_id=voter_id, task_id__in=task_ids)  # each pair at most twice: (a, b), (b, a)
    return {(task, min(a, b), max(a, b)) for task, a, b in rows}


_voter_pairs = Vote.objects.order_by().values_list("task_id", "agent_a_id", "agent_b_id").distinct()  # built once


class Claim(NamedTuple):
    """What a vote reads of its matchup: the matchup (whether it may be used: `draw.matchups.matchup_check`),
    the agents of its two runs (what the vote stores), whether both runs' rounds are still published, and its
    voter's standing (`standing.STANDING_OF_VOTER`)."""

    matchup: Matchup
    agent_a_id: int
    agent_b_id: int
    published: bool  # both runs' rounds are still published (`Round.is_published`)
    standing: tuple  # the values of `standing.STANDING_OF_VOTER`
    ratings_stale: bool | None  # the task's benchmark's ratings are stale already (None: no ratings yet)


# Built once: each claim filters a copy by its key. What the reveal shows comes from the vote pool
# (`selectors.reveal_from_pool`).
_claims = Matchup.objects.annotate(
    claim_agent_a_id=F("run_a__entry__agent_id"),
    claim_agent_b_id=F("run_b__entry__agent_id"),
    claim_status_a=F("run_a__round__status"),
    claim_status_b=F("run_b__round__status"),
    claim_ratings_stale=ratings_stale_of("task__benchmark_id"),
    **STANDING_OF_VOTER,
).order_by()


def claim_target(*, key: str) -> Claim | None:
    """The matchup `key` with its runs' agents, their rounds' status, its voter's standing and whether its
    benchmark's ratings are stale already (`leaderboard.stale.ratings_stale_of`), in one statement. It takes no
    lock: the vote has locked its voter's standing already (`standing.standing_take`), so a matchup, which only
    its voter may use, is claimed by one request at a time, and the conditional update (`matchup_use`) is the
    claim itself."""
    m = next(iter(_claims.filter(key=key)), None)
    if m is None:
        return None
    published = m.claim_status_a == RoundStatus.PUBLISHED and m.claim_status_b == RoundStatus.PUBLISHED
    standing = tuple(getattr(m, name) for name in STANDING_OF_VOTER)
    return Claim(m, m.claim_agent_a_id, m.claim_agent_b_id, published, standing, m.claim_ratings_stale)


def reveal_read(*, matchup: Matchup) -> tuple[Reveal, int]:
    """The matchup's reveal (without its vote) and its benchmark's id, read in one statement: when the vote
    pool no longer has one of its runs (`selectors.reveal_from_pool`)."""
    m = with_reveal(Matchup.objects.filter(pk=matchup.pk)).annotate(reveal_benchmark_id=F("task__benchmark_id")).get()
    return reveal_of(m)._replace(matchup=matchup), m.reveal_benchmark_id


def matchup_use(*, matchup_id: int, now: datetime) -> bool:
    """Mark the matchup used, if no one has. The conditional update is the claim: only one request can turn
    `used_at` from NULL, and it is the one whose update reaches a row."""
    return _unused.filter(pk=matchup_id).update(used_at=now) == 1


_unused = Matchup.objects.filter(used_at__isnull=True)  # built once
