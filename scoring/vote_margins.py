"""How many votes hold the top place of a vote-ranked board (issue #30, section 4).

A 2025 study flipped LMArena's top place by dropping a tiny share of its votes. This module says how many of
a board's votes the top place rests on: "the top place rests on at most N of M votes".

* **The figure.** N is the number of counted votes whose removal makes the board's #1 no longer first (another
  agent rated as high or higher), found greedily: remove, one at a time, the vote that most narrows the lead,
  refitting the ratings after each removal, until #1 is no longer first. It is a greedy *upper bound*: some
  other set of fewer votes may flip it too (the exact minimum means trying every subset of the votes, which
  only a tiny board allows; the tests do it for 6-vote sets).
* **Adjacent ranks.** Every two agents next to each other in the board's order below the top two (whose
  place the top figure holds), each once: where their 95% intervals do not overlap (the one above has
  ``ci_low`` above the other's ``ci_high``), the same figure, the votes whose removal puts the lower one level
  with or above the upper one; where they overlap, the pair is listed as overlapping, with no figure: the
  votes do not tell the two apart, so there is no order to hold. Every board thus lists the same pairs for the
  same order, whichever of them its intervals separate.
* **Which votes are tried.** The votes work on tallied cells ``(a, b, winner, n)``: removing one vote is taking
  1 from a cell's count, and every vote of one cell has the same effect, so each step tries one removal per
  cell rather than per vote (it scales with the distinct cells, not the votes). The cells tried are those
  with a vote of the agent in front or of its nearest rival at that step (for #1: the agent then rated
  highest after it). A vote between two other agents moves the lead only through the agents they also
  played, and is not tried. Among the tried removals the one leaving the smallest lead is taken (ties: the
  first cell in the canonical order of `scoring.bradley_terry`); every tried removal is refitted, all at once
  (`bradley_terry._ilsr_batch`), warm-started from the current fit.
* **The fit.** The same Bradley-Terry fit as the ratings (`scoring.bradley_terry`: virtual ties, ``alpha``
  0.1), over the board's agents as they were (an agent whose votes are all removed stays, held at the
  average of the others by the virtual ties). "No longer first" is a lead of at most `LEVEL_THETA` (1e-6 on
  the log-odds scale, 4e-4 Elo), so an exact tie after removal counts whatever the rounding.
* **Bound on the work.** On a board of at most `EXACT_UP_TO` (500) votes the search above runs as it is, at
  most `MAX_REMOVED` (100) removals per figure; a place that holds after that has ``flip`` null ("more than
  100 of M votes"). A larger board (an arena's millions) is searched by *steps*: at each step the first-order
  effect of removing one vote of each cell on the lead is read from the fit's information matrix (the
  implicit-function derivative of the Bradley-Terry fit: d theta = H^+ v, where v is what one vote of the
  cell adds to the score equations), the cell that narrows the lead most per vote is taken, and as many of
  its votes as the linear prediction says will close the lead are removed at once, then the ratings are
  refitted exactly. When a step closes the lead, a bisection on that step's count finds the fewest of its
  votes that still do. Every count reported is checked by an exact refit, so it is still a greedy upper
  bound. The work is at most `MAX_FITS` (60) fits per figure; a place still held after that has ``flip``
  null, and ``removed`` says how many votes were removed by then ("more than N of M votes").

Pure: numpy and the fit of `scoring.bradley_terry`, no Django. Deterministic (no randomness at all).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, NotRequired, TypedDict, cast

import numpy as np
from numpy.typing import NDArray

from .bradley_terry import (
    DEFAULT_ALPHA,
    _fit_theta,
    _ilsr_batch,
    _MatrixBuilder,
    _Tally,
    _virtual_ties,
    _with_prior,
    board_tallies,
)
from .types import RatingRow

__all__ = [
    "EXACT_UP_TO",
    "LEVEL_THETA",
    "MAX_FITS",
    "MAX_REMOVED",
    "board_margins",
    "vote_margins",
    "votes_to_flip",
    "with_vote_margins",
]

MAX_REMOVED = 100
LEVEL_THETA = 1e-6
EXACT_UP_TO = 500
MAX_FITS = 60


class _Fitter:
    """The fit of one board's cells with some votes removed: `theta(count)` and a batch of candidates."""

    def __init__(self, tally: _Tally, alpha: float) -> None:
        self.tally = tally
        self.build = _MatrixBuilder(tally)
        self.prior = _virtual_ties(len(tally.agents), alpha)

    def theta(self, count: NDArray[np.int64], initial: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """The fit of `count`; `initial`, a fit of nearly the same votes, only shortens the iteration."""
        return _fit_theta(self.build(count), self.prior, initial)

    def without_one(
        self, count: NDArray[np.int64], cells: NDArray[np.intp], theta: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The fits with one vote of each of `cells` removed, shape ``(len(cells), n_agents)``."""
        mats = []
        for cell in cells:
            less = count.copy()
            less[cell] -= 1
            mats.append(self.build(less))
        return _ilsr_batch(_with_prior(np.stack(mats), self.prior), initial=theta)


def _lead(theta: NDArray[np.float64], front: int, rivals: Sequence[int]) -> tuple[float, int]:
    """How far `front` is ahead of its nearest rival, and that rival (the first of equals)."""
    values = theta[list(rivals)]
    best = int(np.argmax(values))
    return float(theta[front] - values[best]), rivals[best]


def votes_to_flip(
    tally: _Tally, front: int, rivals: Sequence[int], *, alpha: float = DEFAULT_ALPHA, max_removed: int = MAX_REMOVED
) -> int | None:
    """The greedy number of votes whose removal puts one of `rivals` level with or above `front` (agent
    indices into ``tally.agents``): 0 when it already is, None when `max_removed` removals did not do it."""
    fitter = _Fitter(tally, alpha)
    count = tally.count.copy()
    theta = fitter.theta(count)
    lead, rival = _lead(theta, front, rivals)
    removed = 0
    while lead > LEVEL_THETA:
        if removed >= max_removed:
            return None
        touching = (tally.lo == front) | (tally.hi == front) | (tally.lo == rival) | (tally.hi == rival)
        cells = np.flatnonzero(touching & (count > 0))
        if len(cells) == 0:  # cannot happen: with none of their votes left the two are level
            return None
        fits = fitter.without_one(count, cells, theta)
        leads = [_lead(fit, front, rivals)[0] for fit in fits]
        best = int(np.argmin(leads))
        count[cells[best]] -= 1
        theta = fits[best]
        lead, rival = _lead(theta, front, rivals)
        removed += 1
    return removed


def _lead_decrease_per_vote(
    fitter: _Fitter, count: NDArray[np.int64], theta: NDArray[np.float64], front: int, rival: int
) -> NDArray[np.float64]:
    """For every cell, how much removing one of its votes narrows ``theta[front] - theta[rival]``, to first
    order: the fit solves the score equations F(theta, W) = 0 of the win matrix W (votes plus the virtual
    ties), so removing one unit of W[a, b] moves theta by H^+ v with v = (1 - p_ab)(e_a - e_b) and H the
    Hessian of the log-likelihood (H_ij = n_ij p_ij p_ji off the diagonal, rows summing to 0)."""
    mat = _with_prior(fitter.build(count), fitter.prior)
    diff = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-diff))  # p[i, j]: the chance i beats j
    w = (mat + mat.T) * p * (1.0 - p)
    hessian = w - np.diag(w.sum(axis=1))
    target = np.zeros(len(theta))
    target[front], target[rival] = 1.0, -1.0
    u = np.linalg.lstsq(hessian, target, rcond=None)[0]  # H is singular (a shift of theta changes nothing)
    t = fitter.tally
    p_lo = p[t.lo, t.hi]
    # One vote of the cell as v = coef * (e_lo - e_hi): a win of lo, a win of hi, half of each for a tie.
    coef = np.where(t.outcome == 0, 1.0 - p_lo, np.where(t.outcome == 1, -p_lo, 0.5 * (1.0 - 2.0 * p_lo)))
    return -(u[t.lo] - u[t.hi]) * coef


def _flip_by_steps(
    fitter: _Fitter,
    front: int,
    rivals: Sequence[int],
    *,
    max_fits: int = MAX_FITS,
    theta: NDArray[np.float64] | None = None,
) -> tuple[int | None, int]:
    """The stepped search of a large board (module docstring): (votes that flip the order or None, votes
    removed when the work ran out). `theta`, the fit of the whole board when the caller has it, saves a fit."""
    count = fitter.tally.count.copy()
    fits = 0
    if theta is None:
        theta, fits = fitter.theta(count), 1
    lead, rival = _lead(theta, front, rivals)
    removed = 0
    while lead > LEVEL_THETA:
        if fits >= max_fits:
            return None, removed
        plan = _step_plan(_lead_decrease_per_vote(fitter, count, theta, front, rival), count, lead)
        if plan is None:
            return None, removed
        trial = _after(count, plan, int(plan[1][-1]))
        fitted = fitter.theta(trial, theta)
        fits += 1
        new_lead, new_rival = _lead(fitted, front, rivals)
        if new_lead <= LEVEL_THETA:
            closes, fits = _fewest_of_plan(fitter, count, plan, (lead, new_lead), theta, front, rivals, fits, max_fits)
            return removed + closes, removed + closes
        count, theta, lead, rival = trial, fitted, new_lead, new_rival
        removed += int(plan[1][-1])
    return removed, removed


def _step_plan(
    gain: NDArray[np.float64], count: NDArray[np.int64], lead: float
) -> tuple[NDArray[np.intp], NDArray[np.int64]] | None:
    """The votes one step removes: cells in the order of their first-order narrowing of the lead per vote
    (most first, ties in cell order), all the votes of each until the predicted narrowing covers the lead,
    and only as many of the last as it needs. (cells, cumulative votes after each cell); None when no vote
    narrows the lead."""
    usable = np.flatnonzero((count > 0) & (gain > 0))
    if len(usable) == 0:
        return None
    order = usable[np.argsort(-gain[usable], kind="stable")]
    covered = np.cumsum(gain[order] * count[order])
    last = int(np.searchsorted(covered, lead))  # the first cell whose votes cover the lead
    if last >= len(order):
        last = len(order) - 1
    cells = order[: last + 1]
    votes = count[cells].copy()
    before = covered[last - 1] if last > 0 else 0.0
    votes[-1] = min(int(count[cells[-1]]), max(1, math.ceil((lead - before) / gain[cells[-1]])))
    return cells, np.cumsum(votes)


def _after(count: NDArray[np.int64], plan: tuple[NDArray[np.intp], NDArray[np.int64]], j: int) -> NDArray[np.int64]:
    """`count` with the first `j` votes of the plan removed."""
    cells, cumulative = plan
    out = count.copy()
    full = int(np.searchsorted(cumulative, j, side="right"))  # cells wholly removed
    out[cells[:full]] -= np.diff(np.concatenate([[0], cumulative[:full]]))
    if full < len(cells):
        out[cells[full]] -= j - (int(cumulative[full - 1]) if full > 0 else 0)
    return out


def _fewest_of_plan(
    fitter: _Fitter,
    count: NDArray[np.int64],
    plan: tuple[NDArray[np.intp], NDArray[np.int64]],
    leads: tuple[float, float],
    theta: NDArray[np.float64],
    front: int,
    rivals: Sequence[int],
    fits: int,
    max_fits: int,
) -> tuple[int, int]:
    """The fewest votes, taken in the plan's order, whose removal closes the lead: between 0 (open, lead
    `leads[0]`) and the whole plan (closed, `leads[1]`). Each removal only narrows the lead, so the count is
    monotone; the lead is nearly linear in it, so each guess interpolates between the bracket's ends (kept
    strictly inside, and halving after two guesses that land on the same side). Past the work bound it stops
    where it is: the closing end still closes, so the count stays an upper bound, only a looser one."""
    k_keep, k_close = 0, int(plan[1][-1])
    lead_keep, lead_close = leads
    last_side, streak = None, 0
    while k_close - k_keep > 1 and fits < max_fits:
        if streak >= 2:
            guess = (k_keep + k_close) // 2
        else:
            guess = k_keep + math.ceil((k_close - k_keep) * lead_keep / (lead_keep - lead_close))
        guess = min(max(guess, k_keep + 1), k_close - 1)
        lead = _lead(fitter.theta(_after(count, plan, guess), theta), front, rivals)[0]
        fits += 1
        closed = lead <= LEVEL_THETA
        streak = streak + 1 if closed == last_side else 1
        last_side = closed
        if closed:
            k_close, lead_close = guess, lead
        else:
            k_keep, lead_keep = guess, lead
    return k_close, fits


class TopMargin(TypedDict):
    """The top place's figure: how many votes hold `agent` above `runner_up` (and every agent below)."""

    agent: str
    runner_up: str
    flip: int | None  # the fewest votes whose removal takes the top place; None: the search stopped first
    removed: NotRequired[int]  # with a null flip on a stepped search: the votes removed when the work ran out


class PairMargin(TypedDict):
    """Two neighbours down the order after the top two: a figure as `TopMargin`'s, or their intervals overlap."""

    above: str
    below: str
    flip: NotRequired[int | None]
    removed: NotRequired[int]
    overlap: NotRequired[bool]


class BoardMargins(TypedDict):
    votes: int
    search: str  # "one vote at a time" or "steps"
    max_removed: int | None
    top: TopMargin | None
    pairs: list[PairMargin]


def board_margins(
    tally: _Tally, rows: Sequence[RatingRow], *, alpha: float = DEFAULT_ALPHA, max_removed: int = MAX_REMOVED
) -> BoardMargins:
    """The figures of one board whose ratings are `rows` (as `fit_ratings` gives them, highest first):
    ``{"votes", "search", "max_removed", "top", "pairs"}``. ``top`` is ``{"agent", "runner_up", "flip"}`` (null
    with fewer than 2 agents); ``pairs`` has one entry for every two neighbours in the order after the top two
    (#2 and #3, #3 and #4, ...): ``{"above", "below", "flip"}`` where their intervals do not overlap,
    ``{"above", "below", "overlap": true}`` where they do. ``search`` is "one vote at a time" (up to
    `EXACT_UP_TO` votes, ``max_removed`` the bound) or "steps" (``max_removed`` null, `MAX_FITS` fits a figure; a
    null flip then comes with ``removed``, the votes removed when the work ran out)."""
    index = {agent: i for i, agent in enumerate(tally.agents)}
    order = [index[str(row["agent"])] for row in rows]
    stepped = tally.n_votes > EXACT_UP_TO
    fitter = _Fitter(tally, alpha) if stepped else None
    theta = fitter.theta(tally.count) if fitter is not None else None

    def flip(front: int, rivals: list[int]) -> dict[str, Any]:
        if fitter is None:
            return {"flip": votes_to_flip(tally, front, rivals, alpha=alpha, max_removed=max_removed)}
        found, removed = _flip_by_steps(fitter, front, rivals, theta=theta)
        return {"flip": found} if found is not None else {"flip": None, "removed": removed}

    top: TopMargin | None = None
    if len(order) >= 2:
        top = cast(TopMargin, {"agent": rows[0]["agent"], "runner_up": rows[1]["agent"], **flip(order[0], order[1:])})
    pairs: list[PairMargin] = []
    for k, (upper, lower) in enumerate(zip(rows, rows[1:], strict=False)):
        if k == 0:  # #1 and #2: the top figure holds that place
            continue
        if float(upper["ci_low"]) > float(lower["ci_high"]):
            pair = {"above": upper["agent"], "below": lower["agent"], **flip(order[k], [order[k + 1]])}
            pairs.append(cast(PairMargin, pair))
        else:
            pairs.append({"above": upper["agent"], "below": lower["agent"], "overlap": True})
    return {
        "votes": tally.n_votes,
        "search": "steps" if stepped else "one vote at a time",
        "max_removed": None if stepped else max_removed,
        "top": top,
        "pairs": pairs,
    }


def vote_margins(
    cells: Iterable[tuple[str, str, str, str, int]], ratings: dict[str, Any], *, alpha: float = DEFAULT_ALPHA
) -> dict[str, Any]:
    """`board_margins` of every vote-ranked board of a benchmark: ``{"all": MARGINS, "tasks": {TASK: MARGINS}}``
    from the tallies ``(task, a, b, winner, n)`` and the ratings they were fitted to (`ratings_from_cells`)."""
    every, by_task = board_tallies(cells)
    return {
        "all": board_margins(every, ratings["all"], alpha=alpha),
        "tasks": {task: board_margins(tally, ratings["tasks"][task], alpha=alpha) for task, tally in by_task.items()},
    }


def with_vote_margins(cells: Iterable[tuple[str, str, str, str, int]], ratings: dict[str, Any]) -> dict[str, Any]:
    """`ratings` with ``"margins"`` (`vote_margins`) added as their first key, so a printed recount keeps every
    line it printed before and adds these."""
    return {"margins": vote_margins(cells, ratings), **ratings}
