"""Blind-vote ratings: Bradley-Terry fitted to all counted votes at once, on Elo's scale.

The rule (DESIGN, "Blind voting"): an agent's rating in a task is fitted to all the votes at once with the
Bradley-Terry model, as LMArena does, so the order of the votes does not matter. 1000 is an average agent and
+400 is ten times the odds of winning. The rating comes with its 95% interval, and under 30 votes it is marked
"few votes". It is shown next to the score and does not change it.

How each part of that rule is implemented here:

* **Votes.** A vote is ``(a, b, winner)`` with winner ``"a"``, ``"b"`` or ``"tie"``. Only counted votes are
  fitted (`VoteInput.counts`; who may vote and when a vote counts is the voting app's business). A tie is
  half a win for each side. Votes are first aggregated into a win matrix ``W`` (``W[i, j]`` = wins of agent
  ``i`` over agent ``j``, a tie adding 0.5 to both ``W[i, j]`` and ``W[j, i]``); the fit only sees ``W``,
  which is why the order of the votes cannot matter.
* **Fit.** ``choix.ilsr_pairwise_dense`` (iterative Luce spectral ranking, which converges to the
  maximum-likelihood Bradley-Terry strengths) on ``W``: the plain maximum-likelihood fit, as LMArena fits it,
  whenever it exists (`_beat_by_chain`: every agent beat every other one through a chain of wins, and so lost
  to it through another; 10 wins to 1 is then exactly 400 points). Only when it does not exist (an undefeated
  or winless agent, groups never compared) is the fit made on ``W`` plus a prior of virtual ties: every agent also tied
  ``alpha`` votes, spread evenly over all the others (``c = alpha / (n - 1)`` ties per pair, so ``c / 2`` is
  added to every off-diagonal entry). With ``s(x) = log(sigmoid(x))`` that maximises::

      sum_(i, j) W[i, j] * s(theta_i - theta_j)  +  (c / 2) * sum_(i != j) s(theta_i - theta_j)

  The default ``alpha = 0.1`` (a tenth of a vote per agent, whatever the number of agents) keeps the fit
  finite when an agent is undefeated (the plain maximum-likelihood rating would be +infinity) and unique when
  the comparison graph is disconnected. Each bootstrap resample, and each refit of the vote margins, follows
  the same rule on its own votes.
  choix's own ``alpha`` argument is not used (it is passed 0): it acts as extra *wins* for every agent in an
  all-agent draw, so mirror-image votes (every win turned into a loss) would not give mirror-image ratings;
  with virtual ties they do.
* **Scale.** ``rating = 1000 + 400 * log10(e) * (theta - mean(theta))``, so the rated agents average 1000.
* **Interval.** Percentile bootstrap, 95%: the votes are resampled with replacement by drawing the counts of
  the distinct ``(pair, outcome)`` cells from a multinomial with the observed proportions (total = number of
  votes), each resample is refitted (warm-started from the point estimate) and re-centred the same way, and
  ``ci_low`` / ``ci_high`` are the 2.5th / 97.5th percentiles. The generator is seeded with a constant, so the
  same votes always give the same numbers. A percentile interval can miss the point estimate when the
  bootstrap distribution is skewed (typically for an agent with very few votes); it is then widened to
  include the estimate, so ``ci_low <= rating <= ci_high`` always holds.
* **Few votes.** ``few_votes`` is true when an agent took part in fewer than ``few_votes_under`` (30) counted
  votes.
* **Rank.** ``rank_ub`` = 1 + the number of agents whose ``ci_low`` is above this agent's ``ci_high`` (the
  upper-bound rank LMArena shows): agents whose intervals overlap share a rank.

Edge cases, chosen and documented:

* An agent with no counted vote is not rated: it has no row. No counted votes at all gives ``[]``.
* An agent that only ever tied is rated from its ties (they are half wins and half losses).
* An undefeated (or winless) agent gets a finite rating, held in place only by ``alpha``; with the default
  it sits several hundred points above (below) the agents it beat (lost to). Its bootstrap interval is then
  narrow, because every resample keeps it undefeated: the bootstrap cannot see the uncertainty of a perfect
  record. ``few_votes`` is the honest signal there.
* Disconnected comparison graph (two groups of agents never compared with each other): the fit is still unique
  because of ``alpha``, and each group is pulled towards the common average, so ratings across groups are not
  comparable and their intervals do not show it.
* A vote with ``a == b`` or an unknown winner raises `ValueError`: the voting app must never record one.

Nothing here touches the ORM, settings or the clock: plain data in, JSON-ready dicts out (floats unrounded;
rounding is presentation).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import choix
import numpy as np
from numpy.typing import NDArray

from .types import WINNERS, RatingRow, VoteInput

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_SEED",
    "ELO_PER_NAT",
    "ROW_KEYS",
    "board_tallies",
    "fit_cells",
    "fit_ratings",
    "ratings_from_cells",
    "ratings_from_votes",
    "win_matrix",
]

DEFAULT_ALPHA = 0.1
DEFAULT_SEED = 20240501
# 400 Elo points are a factor of ten in the odds: 400 * log10(e) Elo per unit of theta (a factor e).
ELO_PER_NAT = 400.0 * math.log10(math.e)
ELO_BASE = 1000.0
ROW_KEYS = ("agent", "rating", "ci_low", "ci_high", "votes", "wins", "losses", "ties", "few_votes", "rank_ub")

# ILSR stops when successive centred estimates differ by less than TOL per agent (in theta, L1);
# 1e-8 theta is about 2e-6 Elo. MAX_ITER is far above what it needs with alpha > 0 (tens of iterations).
_TOL = 1e-8
_MAX_ITER = 10_000

Comparison = tuple[str, str, str] | VoteInput


@dataclass(frozen=True)
class _Tally:
    """Counted votes aggregated by distinct (pair, outcome) cell, agents in sorted order.

    Cell ``k`` is agent ``lo[k]`` against agent ``hi[k]`` (``lo < hi``) with ``outcome[k]`` 0 (lo won),
    1 (hi won) or 2 (tie), seen ``count[k]`` times. Cells are in a canonical order, so the bootstrap draws
    the same resamples whatever order the votes came in.
    """

    agents: list[str]
    lo: NDArray[np.intp]
    hi: NDArray[np.intp]
    outcome: NDArray[np.intp]
    count: NDArray[np.int64]

    @property
    def n_votes(self) -> int:
        return int(self.count.sum())


def _tally(comparisons: Iterable[Comparison]) -> _Tally:
    """Aggregate counted votes into cells; the vote order is forgotten here."""
    # Counting the raw items first is the one pass over the votes, done in C for tuples.
    return _tally_counted(Counter(comparisons).items())


def _tally_counted(counted: Iterable[tuple[Comparison, int]]) -> _Tally:
    """Aggregate `(vote, how many times)` into cells (a vote seen n times is n votes)."""
    cells: Counter[tuple[str, str, int]] = Counter()
    for vote, n in counted:
        if n <= 0:
            continue
        if isinstance(vote, VoteInput):
            if not vote.counts:
                continue
            a, b, winner = vote.a, vote.b, vote.winner
        else:
            a, b, winner = vote
        if winner not in WINNERS:
            raise ValueError(f"vote {a!r} vs {b!r}: winner {winner!r} is not one of {WINNERS}")
        if a == b:
            raise ValueError(f"vote {a!r} vs itself")
        # Canonical side: the vote (a, b, "a") is the vote (b, a, "b").
        if a < b:
            cells[(a, b, ("a", "b", "tie").index(winner))] += n
        else:
            cells[(b, a, ("b", "a", "tie").index(winner))] += n
    agents = sorted({name for a, b, _ in cells for name in (a, b)})
    index = {name: i for i, name in enumerate(agents)}
    keys = sorted(cells)
    return _Tally(
        agents=agents,
        lo=np.array([index[a] for a, _, _ in keys], dtype=np.intp),
        hi=np.array([index[b] for _, b, _ in keys], dtype=np.intp),
        outcome=np.array([o for _, _, o in keys], dtype=np.intp),
        count=np.array([cells[k] for k in keys], dtype=np.int64),
    )


class _MatrixBuilder:
    """Turns cell counts into a win matrix with one `bincount` (reused for every bootstrap round).

    Each cell adds its count to up to two entries of the flattened matrix: a win adds 1 to the winner's row,
    a tie adds 0.5 to both.
    """

    def __init__(self, tally: _Tally) -> None:
        n = len(tally.agents)
        self.n = n
        won_lo = tally.outcome == 0
        won_hi = tally.outcome == 1
        tie = tally.outcome == 2
        lo_over_hi = tally.lo * n + tally.hi
        hi_over_lo = tally.hi * n + tally.lo
        cell = np.arange(len(tally.count))
        # (flat matrix entry, cell, weight) for every contribution.
        self.entry = np.concatenate([lo_over_hi[won_lo], hi_over_lo[won_hi], lo_over_hi[tie], hi_over_lo[tie]])
        self.cell = np.concatenate([cell[won_lo], cell[won_hi], cell[tie], cell[tie]])
        self.weight = np.concatenate(
            [
                np.ones(int(won_lo.sum()) + int(won_hi.sum())),
                np.full(2 * int(tie.sum()), 0.5),
            ]
        )

    def __call__(self, count: NDArray[np.int64]) -> NDArray[np.float64]:
        flat = np.bincount(self.entry, weights=self.weight * count[self.cell], minlength=self.n * self.n)
        return flat.reshape(self.n, self.n)


def win_matrix(comparisons: Iterable[Comparison]) -> tuple[list[str], NDArray[np.float64]]:
    """Counted votes as ``(agents, W)``: ``W[i, j]`` = wins of ``agents[i]`` over ``agents[j]``.

    A tie adds 0.5 to both ``W[i, j]`` and ``W[j, i]``. Agents are sorted by name; an agent without a counted
    vote is absent. A `VoteInput` with ``counts`` false is skipped.
    """
    tally = _tally(comparisons)
    return tally.agents, _MatrixBuilder(tally)(tally.count)


def _virtual_ties(n: int, alpha: float) -> NDArray[np.float64]:
    """The prior as a win matrix: ``alpha`` tied votes per agent, ``alpha / (n - 1)`` per pair."""
    half = alpha / max(n - 1, 1) / 2
    return np.full((n, n), half) - np.diag(np.full(n, half))


def _beat_by_chain(mats: NDArray[np.float64]) -> NDArray[np.bool_]:
    """For each win matrix of a stack ``(..., n, n)``: whether every agent beat every other one through a
    chain of wins (i beat j, j beat k, ...; a tie is half a win each way) and so also lost to it. This is
    Zermelo's (and Ford's) condition for the plain maximum-likelihood strengths to exist: finite and unique up
    to a shift. It fails when an agent is undefeated or winless, or when some agents were never compared with
    the others."""
    beats = (mats > 0).astype(np.float64)
    n = beats.shape[-1]
    whole = np.ones(beats.shape[:-2], dtype=bool)
    for step in (beats, np.swapaxes(beats, -1, -2)):  # those agent 0 beat by a chain; those that beat it
        seen = np.zeros(beats.shape[:-1], dtype=bool)
        seen[..., 0] = True
        for _ in range(n - 1):
            grown = seen | ((seen[..., None, :].astype(np.float64) @ step)[..., 0, :] > 0)
            if (grown == seen).all():
                break
            seen = grown
        whole &= seen.all(axis=-1)
    return whole


def _with_prior(mats: NDArray[np.float64], prior: NDArray[np.float64]) -> NDArray[np.float64]:
    """The matrices the fit sees: each win matrix as it is when its plain maximum-likelihood fit exists (the
    ratings are then exactly "the Bradley-Terry model fitted to all the votes", as LMArena fits it), else
    with the prior's virtual ties added (an undefeated agent, or groups never compared)."""
    return mats + prior * (~_beat_by_chain(mats))[..., None, None]


def _fit_theta(
    w: NDArray[np.float64], prior: NDArray[np.float64], initial: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """Bradley-Terry strengths (natural log-odds scale, centred) for win matrix ``w``, with ``prior`` added
    only when the plain fit does not exist (`_with_prior`)."""
    mat = _with_prior(w, prior)
    theta = choix.ilsr_pairwise_dense(mat, alpha=0.0, initial_params=initial, max_iter=_MAX_ITER, tol=_TOL)
    return np.asarray(theta - theta.mean(), dtype=np.float64)


def _to_elo(theta: NDArray[np.float64]) -> NDArray[np.float64]:
    """Elo scale: 1000 is the average rated agent, +400 is ten times the odds."""
    return ELO_BASE + ELO_PER_NAT * (theta - theta.mean(axis=-1, keepdims=True))


def _bootstrap_elo(
    tally: _Tally,
    build: _MatrixBuilder,
    theta: NDArray[np.float64],
    prior: NDArray[np.float64],
    *,
    rounds: int,
    seed: int,
) -> NDArray[np.float64]:
    """Ratings of ``rounds`` multinomial resamples of the votes, shape ``(rounds, n_agents)``.

    The resamples are drawn one after another from one seeded generator, then fitted together in batches
    (`_ilsr_batch`), each warm-started from the point estimate."""
    rng = np.random.default_rng(seed)
    p = tally.count / tally.count.sum()
    counts = [rng.multinomial(tally.n_votes, p) for _ in range(rounds)]
    n = len(tally.agents)
    out = np.empty((rounds, n))
    step = max(1, _BATCH_ENTRIES // (n * n))
    for start in range(0, rounds, step):
        mats = _with_prior(np.stack([build(count) for count in counts[start : start + step]]), prior)
        out[start : start + step] = _to_elo(_ilsr_batch(mats, initial=theta))
    return out


# Bootstrap fits are batched so that one batch's matrices hold at most this many entries (8 MB of float64).
_BATCH_ENTRIES = 1_000_000


def _ilsr_batch(mats: NDArray[np.float64], *, initial: NDArray[np.float64]) -> NDArray[np.float64]:
    """``choix.ilsr_pairwise_dense`` on a stack of win matrices at once: the same iteration (a Luce spectral
    ranking step: the Markov chain whose rate from j to i is ``W[i, j] / (w_i + w_j)``, then its stationary
    distribution), the same stopping rule (successive centred estimates within ``_TOL``, L1) applied to each
    matrix on its own, the same result up to rounding. The stationary distribution solves ``G^T pi = 0`` with
    ``pi_n = 1`` (one equation of the singular system dropped), as choix's ``statdist`` does through an LU
    factorisation; here one batched solve serves every matrix of the stack."""
    batch, n, _ = mats.shape
    params = np.tile(initial - initial.mean(), (batch, 1))
    prev: NDArray[np.float64] | None = None
    active = np.ones(batch, dtype=bool)
    diag = np.arange(n)
    for _ in range(_MAX_ITER):
        rows = np.flatnonzero(active)
        ws = np.exp(params[rows] - params[rows].mean(axis=1, keepdims=True))
        chain = mats[rows].transpose(0, 2, 1) / (ws[:, :, None] + ws[:, None, :])
        chain[:, diag, diag] = 0.0
        chain[:, diag, diag] = -chain.sum(axis=2)
        gt = chain.transpose(0, 2, 1)
        x = np.linalg.solve(gt[:, :-1, :-1], -gt[:, :-1, -1:])[:, :, 0]
        pi = np.concatenate([x, np.ones((len(rows), 1))], axis=1)
        new = np.log(pi)
        new -= new.mean(axis=1, keepdims=True)
        if prev is not None:
            done = np.abs(new - prev[rows]).sum(axis=1) <= _TOL
            active[rows[done]] = False
        params[rows] = new
        prev = params.copy()
        if not active.any():
            return params
    raise RuntimeError(f"the bootstrap fits did not converge after {_MAX_ITER} iterations")


def _rank_ub(ci_low: NDArray[np.float64], ci_high: NDArray[np.float64]) -> NDArray[np.int64]:
    """1 + the number of agents whose ci_low is above this agent's ci_high (LMArena's upper-bound rank)."""
    return 1 + (ci_low[None, :] > ci_high[:, None]).sum(axis=1)


def _per_agent(
    n: int, *sides: tuple[NDArray[np.intp], NDArray[np.bool_]], count: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Sum of ``count`` over the cells selected by each mask, credited to the agent on that side."""
    total = np.zeros(n, dtype=np.int64)
    for agent, mask in sides:
        np.add.at(total, agent[mask], count[mask])
    return total


def fit_ratings(
    comparisons: Iterable[Comparison],
    *,
    alpha: float = DEFAULT_ALPHA,
    bootstrap_rounds: int = 100,
    seed: int = DEFAULT_SEED,
    few_votes_under: int = 30,
) -> list[RatingRow]:
    """Bradley-Terry ratings with 95% bootstrap intervals, one row per agent with a counted vote.

    ``comparisons`` are ``(a, b, winner)`` triples (winner ``"a"``, ``"b"`` or ``"tie"``) or `VoteInput`
    (those with ``counts`` false are skipped). The rule: all counted votes are fitted at once (their
    order does not matter), a tie is half a win for each side, 1000 is the average agent and +400 is ten
    times the odds, the interval is the 2.5-97.5 percentile range of ``bootstrap_rounds`` resamples (drawn
    from a generator seeded with ``seed``, widened if needed to contain the rating), fewer than
    ``few_votes_under`` votes marks ``few_votes``, and ``rank_ub`` = 1 + the agents whose interval lies
    wholly above this one's.

    Rows are ``{"agent", "rating", "ci_low", "ci_high", "votes", "wins", "losses", "ties", "few_votes",
    "rank_ub"}``, sorted by rating (highest first), then agent. See the module docstring for ``alpha`` and
    the edge cases.
    """
    if alpha <= 0:
        raise ValueError("alpha must be positive: an undefeated agent would have an infinite rating")
    if bootstrap_rounds < 1:
        raise ValueError("bootstrap_rounds must be at least 1")
    return _fit_tally(
        _tally(comparisons), alpha=alpha, bootstrap_rounds=bootstrap_rounds, seed=seed, few_votes_under=few_votes_under
    )


def _fit_tally(
    tally: _Tally, *, alpha: float, bootstrap_rounds: int, seed: int, few_votes_under: int
) -> list[RatingRow]:
    if not tally.agents:
        return []
    build = _MatrixBuilder(tally)
    prior = _virtual_ties(len(tally.agents), alpha)
    theta = _fit_theta(build(tally.count), prior)
    rating = _to_elo(theta)
    boot = _bootstrap_elo(tally, build, theta, prior, rounds=bootstrap_rounds, seed=seed)
    ci_low = np.minimum(np.percentile(boot, 2.5, axis=0), rating)
    ci_high = np.maximum(np.percentile(boot, 97.5, axis=0), rating)
    rank_ub = _rank_ub(ci_low, ci_high)

    rows = _rows(tally, rating, ci_low, ci_high, rank_ub, few_votes_under)
    rows.sort(key=lambda row: (-float(row["rating"]), str(row["agent"])))
    return rows


def _rows(tally: Any, rating: Any, ci_low: Any, ci_high: Any, rank_ub: Any, few_votes_under: int) -> list[RatingRow]:
    """One row per agent: its rating and interval, and its wins, losses and ties counted from the votes."""
    n = len(tally.agents)
    won_lo, won_hi, tie = (tally.outcome == k for k in (0, 1, 2))
    wins = _per_agent(n, (tally.lo, won_lo), (tally.hi, won_hi), count=tally.count)
    losses = _per_agent(n, (tally.hi, won_lo), (tally.lo, won_hi), count=tally.count)
    ties = _per_agent(n, (tally.lo, tie), (tally.hi, tie), count=tally.count)
    rows: list[RatingRow] = []
    for i, agent in enumerate(tally.agents):
        votes = int(wins[i] + losses[i] + ties[i])
        rows.append(
            {
                "agent": agent,
                "rating": float(rating[i]),
                "ci_low": float(ci_low[i]),
                "ci_high": float(ci_high[i]),
                "votes": votes,
                "wins": int(wins[i]),
                "losses": int(losses[i]),
                "ties": int(ties[i]),
                "few_votes": votes < few_votes_under,
                "rank_ub": int(rank_ub[i]),
            }
        )
    return rows


def ratings_from_votes(
    votes: Iterable[VoteInput],
    *,
    alpha: float = DEFAULT_ALPHA,
    bootstrap_rounds: int = 100,
    seed: int = DEFAULT_SEED,
    few_votes_under: int = 30,
) -> dict[str, Any]:
    """Ratings of a benchmark's counted votes: ``{"all": [ROW], "tasks": {TASK: [ROW]}}``.

    Only votes with ``counts`` true are used. ``"all"`` is one fit of every counted vote of the benchmark over
    all its tasks (not an average of the task ratings); ``"tasks"`` has one fit per task, keyed and ordered
    by task key, and a task without a counted vote is absent. Rows are those of `fit_ratings`.
    """
    every: list[tuple[str, str, str]] = []
    by_task: dict[str, list[tuple[str, str, str]]] = {}
    for v in votes:
        if v.counts:
            every.append((v.a, v.b, v.winner))
            by_task.setdefault(v.task, []).append((v.a, v.b, v.winner))
    options: dict[str, Any] = {
        "alpha": alpha,
        "bootstrap_rounds": bootstrap_rounds,
        "seed": seed,
        "few_votes_under": few_votes_under,
    }
    return {
        "all": fit_ratings(every, **options),
        "tasks": {task: fit_ratings(by_task[task], **options) for task in sorted(by_task)},
    }


def board_tallies(cells: Iterable[tuple[str, str, str, str, int]]) -> tuple[_Tally, dict[str, _Tally]]:
    """The tallies of a benchmark's vote-ranked boards from its cells ``(task, a, b, winner, n)``: the overall
    board's (every task's votes together) and each task's, by task key in sorted order (``n <= 0`` adds
    nothing). The ratings (`ratings_from_cells`) and their margins (`scoring.vote_margins`) read the same
    boards from these."""
    every: Counter[tuple[str, str, str]] = Counter()
    by_task: dict[str, Counter[tuple[str, str, str]]] = {}
    for task, a, b, winner, n in cells:
        if n > 0:
            every[(a, b, winner)] += n
            by_task.setdefault(task, Counter())[(a, b, winner)] += n
    return _tally_counted(every.items()), {task: _tally_counted(by_task[task].items()) for task in sorted(by_task)}


def fit_cells(
    cells: Iterable[tuple[str, str, str, int]],
    *,
    alpha: float = DEFAULT_ALPHA,
    bootstrap_rounds: int = 100,
    seed: int = DEFAULT_SEED,
    few_votes_under: int = 30,
) -> list[RatingRow]:
    """`fit_ratings` of tallied votes: ``(a, b, winner, n)`` is ``n`` votes ``(a, b, winner)`` (``n <= 0``
    adds nothing). The same votes give the same rows as `fit_ratings`."""
    if alpha <= 0:
        raise ValueError("alpha must be positive: an undefeated agent would have an infinite rating")
    if bootstrap_rounds < 1:
        raise ValueError("bootstrap_rounds must be at least 1")
    return _fit_tally(
        _tally_counted(((a, b, w), n) for a, b, w, n in cells),
        alpha=alpha,
        bootstrap_rounds=bootstrap_rounds,
        seed=seed,
        few_votes_under=few_votes_under,
    )


def ratings_from_cells(
    cells: Iterable[tuple[str, str, str, str, int]],
    *,
    alpha: float = DEFAULT_ALPHA,
    bootstrap_rounds: int = 100,
    seed: int = DEFAULT_SEED,
    few_votes_under: int = 30,
) -> dict[str, Any]:
    """`ratings_from_votes` of votes given as tallies: ``(task, a, b, winner, n)`` is ``n`` counted votes
    ``(a, b, winner)`` in ``task``. The same votes give the same ratings, to the last bit, in either form
    (the fit only ever sees the tallies), so the site can fit from its stored tallies and a download's
    votes recount to the same numbers."""
    if alpha <= 0:
        raise ValueError("alpha must be positive: an undefeated agent would have an infinite rating")
    if bootstrap_rounds < 1:
        raise ValueError("bootstrap_rounds must be at least 1")
    every, by_task = board_tallies(cells)
    options: dict[str, Any] = {
        "alpha": alpha,
        "bootstrap_rounds": bootstrap_rounds,
        "seed": seed,
        "few_votes_under": few_votes_under,
    }
    return {
        "all": _fit_tally(every, **options),
        "tasks": {task: _fit_tally(tally, **options) for task, tally in by_task.items()},
    }
