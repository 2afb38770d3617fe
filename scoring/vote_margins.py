"""How many votes hold the top place of a vote-ranked board (issue #30, section 4).

A 2025 study flipped LMArena's top place by dropping a tiny share of its votes. This module says how many of
a board's votes the top place rests on: "the top place rests on at most N of M votes".

* **The figure.** N is the number of counted votes whose removal makes the board's #1 no longer first (another
  agent rated as high or higher), found greedily: remove, one at a time, the vote that most narrows the lead,
  refitting the ratings after each removal, until #1 is no longer first. It is a greedy *upper bound*: some
  other set of fewer votes may flip it too (the exact minimum means trying every subset of the votes, which
  only a tiny board allows; the tests do it for 6-vote sets).
* **Adjacent ranks.** The same for every two agents next to each other in the board's order whose 95%
  intervals do not overlap (the one above has ``ci_low`` above the other's ``ci_high``): the votes whose
  removal puts the lower one level with or above the upper one.
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
* **Bound on the work.** At most `MAX_REMOVED` (100) removals are tried per figure; a place that holds after
  that has ``flip`` null ("more than 100 of M votes").

Pure: numpy and the fit of `scoring.bradley_terry`, no Django. Deterministic (no randomness at all).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .bradley_terry import (
    DEFAULT_ALPHA,
    _fit_theta,
    _ilsr_batch,
    _MatrixBuilder,
    _Tally,
    _tally_counted,
    _virtual_ties,
)
from .types import RatingRow

__all__ = ["LEVEL_THETA", "MAX_REMOVED", "board_margins", "vote_margins", "votes_to_flip", "with_vote_margins"]

MAX_REMOVED = 100
LEVEL_THETA = 1e-6


class _Fitter:
    """The fit of one board's cells with some votes removed: `theta(count)` and a batch of candidates."""

    def __init__(self, tally: _Tally, alpha: float) -> None:
        self.tally = tally
        self.build = _MatrixBuilder(tally)
        self.prior = _virtual_ties(len(tally.agents), alpha)

    def theta(self, count: NDArray[np.int64]) -> NDArray[np.float64]:
        return _fit_theta(self.build(count), self.prior)

    def without_one(
        self, count: NDArray[np.int64], cells: NDArray[np.intp], theta: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The fits with one vote of each of `cells` removed, shape ``(len(cells), n_agents)``."""
        mats = []
        for cell in cells:
            less = count.copy()
            less[cell] -= 1
            mats.append(self.build(less) + self.prior)
        return _ilsr_batch(np.stack(mats), initial=theta)


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


def board_margins(
    tally: _Tally, rows: Sequence[RatingRow], *, alpha: float = DEFAULT_ALPHA, max_removed: int = MAX_REMOVED
) -> dict[str, Any]:
    """The figures of one board whose ratings are `rows` (as `fit_ratings` gives them, highest first):
    ``{"votes", "max_removed", "top", "pairs"}``. ``top`` is ``{"agent", "runner_up", "flip"}`` (null with
    fewer than 2 agents); ``pairs`` has ``{"above", "below", "flip"}`` for every two neighbours in the order
    whose intervals do not overlap."""
    index = {agent: i for i, agent in enumerate(tally.agents)}
    order = [index[str(row["agent"])] for row in rows]
    top = None
    if len(order) >= 2:
        flip = votes_to_flip(tally, order[0], order[1:], alpha=alpha, max_removed=max_removed)
        top = {"agent": rows[0]["agent"], "runner_up": rows[1]["agent"], "flip": flip}
    pairs = []
    for k, (upper, lower) in enumerate(zip(rows, rows[1:], strict=False)):
        if float(upper["ci_low"]) > float(lower["ci_high"]):
            flip = votes_to_flip(tally, order[k], [order[k + 1]], alpha=alpha, max_removed=max_removed)
            pairs.append({"above": upper["agent"], "below": lower["agent"], "flip": flip})
    return {"votes": tally.n_votes, "max_removed": max_removed, "top": top, "pairs": pairs}


def vote_margins(
    cells: Iterable[tuple[str, str, str, str, int]], ratings: dict[str, Any], *, alpha: float = DEFAULT_ALPHA
) -> dict[str, Any]:
    """`board_margins` of every vote-ranked board of a benchmark: ``{"all": MARGINS, "tasks": {TASK: MARGINS}}``
    from the tallies ``(task, a, b, winner, n)`` and the ratings they were fitted to (`ratings_from_cells`)."""
    every: Counter[tuple[str, str, str]] = Counter()
    by_task: dict[str, Counter[tuple[str, str, str]]] = {}
    for task, a, b, winner, n in cells:
        if n > 0:
            every[(a, b, winner)] += n
            by_task.setdefault(task, Counter())[(a, b, winner)] += n
    return {
        "all": board_margins(_tally_counted(every.items()), ratings["all"], alpha=alpha),
        "tasks": {
            task: board_margins(_tally_counted(by_task[task].items()), ratings["tasks"][task], alpha=alpha)
            for task in sorted(by_task)
        },
    }


def with_vote_margins(cells: Iterable[tuple[str, str, str, str, int]], ratings: dict[str, Any]) -> dict[str, Any]:
    """`ratings` with ``"margins"`` (`vote_margins`) added as their first key, so a printed recount keeps every
    line it printed before and adds these."""
    return {"margins": vote_margins(cells, ratings), **ratings}
