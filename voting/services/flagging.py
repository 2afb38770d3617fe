"""Flagging: the hourly agreement check of each voter against a fit of everyone else's votes, flagging a voter
who keeps picking the crowd's loser, and an editor clearing a flag.

A flagged voter's votes stop counting at once, so the push is undone at the next refit. A voter who pushes only
where the crowd is split (pairs rated about equal) is not caught by the check; the daily cap is the bound there
(`counting`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from leaderboard.models import Agent
from leaderboard.stale import snapshots_mark_stale
from scoring.bradley_terry import fit_cells

from ..cells import VOTE_CELL_FIELDS, cell_of, cells_apply, votes_lock
from ..models import Held, Outcome, Vote, VoteCell, VoterFlag, Winner
from ..standing import standings_retire
from .counting import votes_update


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
            # The account's key is left alone (as `standing`'s locks do): a vote's insert checks it.
            get_user_model().objects.select_for_update(no_key=True).filter(pk=row.voter_id).first()
            if VoterFlag.objects.active().filter(voter_id=row.voter_id).exists():
                continue
            standings_retire([row.voter_id])  # before the flag: a vote from now on reads it
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
    votes_update([i for i, _ in rows], held=Held.FLAGGED, counts=False)
    cells_apply(removed=[key for _, key in rows])
    if rows:
        snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})


def voter_flag_clear(*, flag: VoterFlag, by, now: datetime | None = None) -> int:
    """An editor clears a flag: the voter's held-for-flag votes count again (those cast while the account
    was new wait for their `counts_from`). Returns how many votes count again."""
    now = now or timezone.now()
    with transaction.atomic():
        standings_retire([flag.voter_id])
        if VoterFlag.objects.filter(pk=flag.pk, cleared_at__isnull=True).update(cleared_at=now, cleared_by=by) != 1:
            return 0
        held = Vote.objects.filter(voter_id=flag.voter_id, held=Held.FLAGGED)
        held.filter(counts_from__gt=now).update(held=Held.NEW_ACCOUNT)
        rows = votes_lock(held.filter(Q(counts_from__isnull=True) | Q(counts_from__lte=now)))
        votes_update([i for i, _ in rows], held=Held.NONE, counts=True, counts_from=None)
        cells_apply(added=[key for _, key in rows])
        if rows:
            snapshots_mark_stale(rating_task_ids={key[0] for _, key in rows})
    return len(rows)
