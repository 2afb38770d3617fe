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


def test_tallies_are_marked_few_votes_under_30_and_refuse_a_fit_that_cannot_be_made():
    import pytest

    # Seed 003: "under 30 votes it's marked few votes". ant and bee: 15 wins each over the other, 30 votes
    # each: not few. cat: 29 ties with ant: ant 59 votes, cat 29: few.
    rows = fit_cells([("ant", "bee", "a", 15), ("ant", "bee", "b", 15), ("ant", "cat", "tie", 29)])
    assert {r["agent"]: (r["votes"], r["few_votes"]) for r in rows} == {
        "ant": (59, False),
        "bee": (30, False),
        "cat": (29, True),
    }
    # One bootstrap round is enough for an interval; none, or no prior (alpha 0), is refused.
    assert len(fit_cells([("ant", "bee", "a", 1)], bootstrap_rounds=1)) == 2
    with pytest.raises(ValueError, match=r"^bootstrap_rounds must be at least 1$"):
        fit_cells([("ant", "bee", "a", 1)], bootstrap_rounds=0)
    with pytest.raises(
        ValueError, match=r"^alpha must be positive: an undefeated agent would have an infinite rating$"
    ):
        fit_cells([("ant", "bee", "a", 1)], alpha=0)


def test_tallies_and_votes_rate_alike_with_the_default_options_and_refuse_the_same_options():
    import pytest

    # 15 wins each way between ant and bee (30 votes each: not "few votes"), 29 ties of cat with ant (few).
    tallies = [("t1", "ant", "bee", "a", 15), ("t1", "ant", "bee", "b", 15), ("t1", "ant", "cat", "tie", 29)]
    votes = [VoteInput(task=t, a=a, b=b, winner=w) for t, a, b, w, n in tallies for _ in range(n)]
    rated = ratings_from_cells(tallies)
    assert rated == ratings_from_votes(votes)
    assert {r["agent"]: r["few_votes"] for r in rated["tasks"]["t1"]} == {"ant": False, "bee": False, "cat": True}
    assert ratings_from_cells(tallies[:1], bootstrap_rounds=1)["all"]
    with pytest.raises(ValueError, match=r"^bootstrap_rounds must be at least 1$"):
        ratings_from_cells(tallies, bootstrap_rounds=0)
    with pytest.raises(
        ValueError, match=r"^alpha must be positive: an undefeated agent would have an infinite rating$"
    ):
        ratings_from_cells(tallies, alpha=0)
