"""The reads and writes every vote screen and every vote make, each one query.

Each of these runs once per vote screen or per vote, so each is a single statement: one queryset, its joins
said with `select_related`-style lookups (`F("run_a__entry__agent__name")`) so the row comes back with what
the screen needs and nothing more. Each function says what it reads; the tests of the draw and of the vote
(tests/voting) exercise them all, and `tests/voting/test_vote_screen.py` counts their statements.

What a queryset cannot say stays SQL elsewhere, with its "Why SQL" note: the vote cells' adding upsert and
their table lock (`voting.cells`).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from django.db.models import F, QuerySet, Sum, Value
from django.db.models.functions import Coalesce, Greatest, Least

from leaderboard.models import RoundStatus

from .models import Matchup, Vote, VoteCell


def matchup_open(*, voter_id: int, scope: str, now: datetime) -> Matchup | None:
    """The voter's latest unused, unexpired matchup for this scope."""
    return Matchup.objects.open(now=now).filter(voter_id=voter_id, scope=scope).order_by("-created_at", "-id").first()


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
    return (
        Matchup.objects.filter(voter_id=voter_id)
        .order_by("-created_at", "-id")
        .values_list("task_id", "run_a_id", "run_b_id")
        .first()
    )


def pair_votes(*, task_ids: list[int]) -> dict[tuple[int, int, int], int]:
    """Counted votes per (task, lower agent id, higher agent id), from the vote cells (every outcome)."""
    if not task_ids:
        return {}
    rows = (
        VoteCell.objects.filter(task_id__in=task_ids)
        .order_by()
        .values_list("task_id", "agent_lo_id", "agent_hi_id")
        .annotate(total=Sum("n"))
    )
    return {(task, lo, hi): int(n) for task, lo, hi, n in rows}


def voter_pairs(*, voter_id: int, task_ids: list[int]) -> set[tuple[int, int, int]]:
    """The pairs the voter has voted on in these tasks, as (task, lower agent id, higher agent id), whichever
    agent was shown as A and whether the vote counts."""
    if not task_ids:
        return set()
    rows = (
        Vote.objects.filter(voter_id=voter_id, task_id__in=task_ids)
        .order_by()
        .values_list("task_id", Least("agent_a_id", "agent_b_id"), Greatest("agent_a_id", "agent_b_id"))
        .distinct()
    )
    return {(task, lo, hi) for task, lo, hi in rows}


class ClaimTarget(NamedTuple):
    """What a vote reads of its matchup: whether it may be used (`draw.matchups.matchup_check`), what the vote
    stores, and what the screen then reveals."""

    pk: int
    voter_id: int
    used_at: datetime | None
    expires_at: datetime
    task_id: int
    run_a_id: int
    run_b_id: int
    agent_a_id: int
    agent_b_id: int
    benchmark_id: int
    published: bool  # both runs' rounds are still published (`Round.is_published`)
    reveal: Reveal  # without the vote (its fields are None)


def claim_target(*, key: str) -> ClaimTarget | None:
    """The matchup `key` with its runs' agents, its task's benchmark and what its reveal shows, the matchup row
    (only it: `of=("self",)`) locked until the transaction ends, in one statement."""
    m = (
        with_reveal(Matchup.objects.select_for_update(of=("self",)).filter(key=key))
        .annotate(
            claim_agent_a_id=F("run_a__entry__agent_id"),
            claim_agent_b_id=F("run_b__entry__agent_id"),
            claim_benchmark_id=F("task__benchmark_id"),
            claim_status_a=F("run_a__round__status"),
            claim_status_b=F("run_b__round__status"),
        )
        .order_by()
        .first()
    )
    if m is None:
        return None
    return ClaimTarget(
        m.pk,
        m.voter_id,
        m.used_at,
        m.expires_at,
        m.task_id,
        m.run_a_id,
        m.run_b_id,
        m.claim_agent_a_id,
        m.claim_agent_b_id,
        m.claim_benchmark_id,
        m.claim_status_a == RoundStatus.PUBLISHED and m.claim_status_b == RoundStatus.PUBLISHED,
        reveal_of(m),
    )


def matchup_use(*, matchup_id: int, now: datetime) -> bool:
    """Mark the matchup used, if no one has. The conditional update is the claim: only one request can turn
    `used_at` from NULL, and it is the one whose update reaches a row."""
    return Matchup.objects.filter(pk=matchup_id, used_at__isnull=True).update(used_at=now) == 1
