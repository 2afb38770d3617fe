"""Ratings fitted from tallies equal ratings fitted from the votes they tally, to the last bit: the site fits
its vote cells, `recount` fits a votes file's tallies, and both must give what a fit of the votes gives."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.bradley_terry import fit_cells, fit_ratings, ratings_from_cells, ratings_from_votes
from scoring.types import VoteInput

AGENTS = ["ant", "bee", "cat", "dog"]
vote = st.tuples(
    st.sampled_from(["t1", "t2"]), st.sampled_from(AGENTS), st.sampled_from(AGENTS), st.sampled_from(["a", "b", "tie"])
).filter(lambda v: v[1] != v[2])


@settings(max_examples=40, deadline=None)
@given(st.lists(vote, min_size=1, max_size=60))
def test_tallied_votes_rate_exactly_like_the_votes(votes):
    tallies = [(*key, n) for key, n in Counter(votes).items()]
    as_votes = [VoteInput(task=t, a=a, b=b, winner=w, counts=True) for t, a, b, w in votes]
    assert ratings_from_cells(tallies, bootstrap_rounds=20) == ratings_from_votes(as_votes, bootstrap_rounds=20)


def test_a_tally_of_n_is_n_votes_and_a_tally_of_zero_is_none():
    # Three wins of ant over bee and one tie, as tallies; an empty tally with cat adds no agent.
    rows = fit_cells([("ant", "bee", "a", 3), ("bee", "ant", "tie", 1), ("cat", "ant", "b", 0)])
    assert rows == fit_ratings([("ant", "bee", "a")] * 3 + [("bee", "ant", "tie")])
    assert {r["agent"] for r in rows} == {"ant", "bee"}
    assert {r["agent"]: (r["wins"], r["losses"], r["ties"]) for r in rows} == {"ant": (3, 0, 1), "bee": (0, 3, 1)}
