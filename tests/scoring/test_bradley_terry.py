"""Blind-vote ratings: Bradley-Terry on all counted votes at once, Elo scale, bootstrap interval."""

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from scoring.bradley_terry import (
    DEFAULT_ALPHA,
    ELO_PER_NAT,
    ROW_KEYS,
    _rank_ub,
    fit_ratings,
    ratings_from_votes,
    win_matrix,
)
from scoring.types import VoteInput

# A small, connected board: x is strong, z weak, with ties (10 + 7 + 3 + 3 + 4 + 5 + 2 votes).
SMALL = (
    [("x", "y", "a")] * 10
    + [("y", "x", "a")] * 7
    + [("x", "z", "tie")] * 3
    + [("z", "y", "a")] * 3
    + [("y", "z", "a")] * 4
    + [("w", "x", "b")] * 5
    + [("w", "z", "tie")] * 2
)


def by_agent(rows):
    return {row["agent"]: row for row in rows}


def direct_map_elo(votes, alpha):
    """An independent fit: maximise the Bradley-Terry log-likelihood of the votes with scipy.

    Written from the votes, not the win matrix: a win adds log P(winner beats loser), a tie adds half of
    log P(a beats b) + half of log P(b beats a). The prior is the module's: ``alpha / (n - 1)`` virtual ties
    between every pair of the n agents.
    """
    agents = sorted({name for a, b, _ in votes for name in (a, b)})
    index = {name: i for i, name in enumerate(agents)}
    n = len(agents)
    virtual = alpha / (n - 1)

    # Each vote as (a, b, share of a win for a, share for b); virtual ties are votes of weight `virtual`.
    a = [index[v[0]] for v in votes] + [i for i in range(n) for j in range(i + 1, n)]
    b = [index[v[1]] for v in votes] + [j for i in range(n) for j in range(i + 1, n)]
    share = {"a": (1.0, 0.0), "b": (0.0, 1.0), "tie": (0.5, 0.5)}
    a_won = np.array([share[v[2]][0] for v in votes] + [virtual / 2] * (len(a) - len(votes)))
    b_won = np.array([share[v[2]][1] for v in votes] + [virtual / 2] * (len(a) - len(votes)))
    a, b = np.array(a), np.array(b)

    def negative_log_posterior(theta):
        d = theta[a] - theta[b]
        return -(a_won * log_expit(d) + b_won * log_expit(-d)).sum()

    def gradient(theta):
        d = theta[a] - theta[b]
        pull = a_won * expit(-d) - b_won * expit(d)  # d/dd of the log-likelihood of each vote
        return -(np.bincount(a, pull, minlength=n) - np.bincount(b, pull, minlength=n))

    result = minimize(negative_log_posterior, np.zeros(n), jac=gradient, method="BFGS", options={"gtol": 1e-8})
    # BFGS may stop on "precision loss" at the optimum itself: what matters is that the gradient vanished.
    assert result.success or np.abs(gradient(result.x)).max() < 1e-7, result.message
    theta = result.x - result.x.mean()
    return {agent: 1000 + ELO_PER_NAT * theta[i] for agent, i in index.items()}


def test_it_matches_a_direct_maximum_likelihood_fit():
    # Tolerance: both fits converge far below 1e-3 Elo (ILSR to 1e-8 in theta per agent, BFGS to a gradient
    # of 1e-8), so 1e-3 Elo only absorbs optimiser noise and any real difference in the model shows.
    # SMALL is connected by chains of wins both ways (x > y > z > y, z ~ w ~ z, x > w): the plain maximum-
    # likelihood fit exists and is the rating, whatever the prior would have been.
    plain = direct_map_elo(SMALL, 0.0)
    for alpha in (DEFAULT_ALPHA, 1.0):
        rows = by_agent(fit_ratings(SMALL, alpha=alpha))
        for agent, rating in plain.items():
            assert rows[agent]["rating"] == pytest.approx(rating, abs=1e-3)
    # u never lost: no finite plain fit exists, so the prior's virtual ties hold it (and it is that fit).
    undefeated = SMALL + [("u", "x", "a")] * 4 + [("z", "u", "b")]
    for alpha in (DEFAULT_ALPHA, 1.0):
        expected = direct_map_elo(undefeated, alpha)
        rows = by_agent(fit_ratings(undefeated, alpha=alpha))
        for agent, rating in expected.items():
            assert rows[agent]["rating"] == pytest.approx(rating, abs=1e-3)


def test_a_record_with_wins_both_ways_is_rated_by_its_odds_alone():
    # a beat b 3 times and lost once: the odds are 3 to 1, so a - b = 400 * log10(3) = 190.85 Elo, centred on
    # 1000: a 1095.42, b 904.58 (no prior: a virtual tie would make it 400 * log10(3.05 / 1.05) = 185.2).
    rows = by_agent(fit_ratings([("a", "b", "a")] * 3 + [("a", "b", "b")]))
    gap = 400 * math.log10(3)
    assert rows["a"]["rating"] == pytest.approx(1000 + gap / 2, abs=1e-3)
    assert rows["b"]["rating"] == pytest.approx(1000 - gap / 2, abs=1e-3)
    # a beat b 20 to 2 (odds 10, so a - b = 400); c and b split 10 votes 5 to 5 (c = b). Centred: a + b + c =
    # 3000 with a = b + 400 and c = b gives b = c = 2600 / 3 = 866.67 and a = 1266.67.
    votes = [("a", "b", "a")] * 20 + [("a", "b", "b")] * 2 + [("c", "b", "a")] * 5 + [("c", "b", "b")] * 5
    rows = by_agent(fit_ratings(votes))
    assert rows["a"]["rating"] == pytest.approx(3800 / 3, abs=1e-3)
    assert rows["b"]["rating"] == pytest.approx(2600 / 3, abs=1e-3)
    assert rows["c"]["rating"] == pytest.approx(2600 / 3, abs=1e-3)


def test_it_puts_plus_400_at_ten_times_the_odds():
    rows = by_agent(fit_ratings([("p", "q", "a")] * 100 + [("p", "q", "b")] * 10))
    assert rows["p"]["rating"] - rows["q"]["rating"] == pytest.approx(400, abs=1e-3)
    assert rows["p"]["rating"] + rows["q"]["rating"] == pytest.approx(2000)


def test_it_averages_1000_and_returns_the_documented_rows():
    rows = fit_ratings(SMALL)
    assert all(tuple(row) == ROW_KEYS for row in rows)
    assert sum(row["rating"] for row in rows) / len(rows) == pytest.approx(1000)
    assert [row["agent"] for row in rows] == ["x", "y", "z", "w"]
    x = by_agent(rows)["x"]
    assert (x["votes"], x["wins"], x["losses"], x["ties"]) == (25, 15, 7, 3)


def test_it_ignores_the_order_of_votes():
    shuffled = list(SMALL)
    random.Random(7).shuffle(shuffled)
    assert fit_ratings(shuffled) == fit_ratings(SMALL)
    assert fit_ratings(list(reversed(SMALL))) == fit_ratings(SMALL)


def test_it_is_deterministic():
    assert fit_ratings(SMALL) == fit_ratings(SMALL)
    assert ratings_from_votes(_vote_inputs(SMALL)) == ratings_from_votes(_vote_inputs(SMALL))


def test_it_changes_the_interval_only_with_the_seed():
    other = fit_ratings(SMALL, seed=1)
    same = fit_ratings(SMALL)
    assert [r["rating"] for r in other] == [r["rating"] for r in same]
    assert [r["ci_low"] for r in other] != [r["ci_low"] for r in same]


def test_it_puts_the_estimate_inside_the_interval():
    skewed = [("x", "y", "a")] * 3 + [("y", "x", "a")] + [("y", "z", "a")] * 2 + [("z", "x", "tie")]
    for votes in (SMALL, skewed, [("p", "q", "a")] * 5):
        for row in fit_ratings(votes):
            assert row["ci_low"] <= row["rating"] <= row["ci_high"]


def test_it_narrows_the_interval_as_votes_grow():
    few = by_agent(fit_ratings(SMALL))
    many = by_agent(fit_ratings(SMALL * 10))
    for agent in few:
        assert many[agent]["ci_high"] - many[agent]["ci_low"] < few[agent]["ci_high"] - few[agent]["ci_low"]
        # Same proportions: the estimate hardly moves (only the fixed prior weighs less).
        assert many[agent]["rating"] == pytest.approx(few[agent]["rating"], abs=5)


def test_it_gives_an_undefeated_agent_a_finite_highest_rating():
    votes = SMALL + [("u", agent, "a") for agent in ("x", "y", "z", "w") for _ in range(3)]
    rows = fit_ratings(votes)
    assert rows[0]["agent"] == "u"
    assert rows[0]["losses"] == 0
    assert all(math.isfinite(row[k]) for row in rows for k in ("rating", "ci_low", "ci_high"))
    # Held in place by the prior only, but not absurdly far: within a few thousand points.
    assert rows[0]["rating"] < 3000


def test_it_mirrors_ratings_when_every_result_flips():
    flip = {"a": "b", "b": "a", "tie": "tie"}
    votes = SMALL + [("u", "x", "a")] * 4
    mirrored = by_agent(fit_ratings([(a, b, flip[w]) for a, b, w in votes]))
    for row in fit_ratings(votes):
        assert mirrored[row["agent"]]["rating"] == pytest.approx(2000 - row["rating"], abs=1e-6)


def test_it_counts_a_tie_as_half_a_win_for_each_side():
    agents, w = win_matrix([("p", "q", "tie"), ("p", "q", "a"), ("q", "r", "b")])
    assert agents == ["p", "q", "r"]
    assert w.tolist() == [[0, 1.5, 0], [0.5, 0, 0], [0, 1, 0]]
    two_ties = by_agent(fit_ratings([("p", "q", "tie")] * 2 + [("q", "r", "a")] * 3 + [("r", "q", "a")]))
    win_each = by_agent(fit_ratings([("p", "q", "a"), ("q", "p", "a")] + [("q", "r", "a")] * 3 + [("r", "q", "a")]))
    for agent in two_ties:
        assert two_ties[agent]["rating"] == pytest.approx(win_each[agent]["rating"], abs=1e-6)
    assert two_ties["p"]["ties"] == 2 and win_each["p"]["wins"] == 1


def test_it_rates_an_agent_that_only_tied():
    rows = by_agent(fit_ratings(SMALL + [("t", "x", "tie"), ("t", "z", "tie")]))
    assert rows["t"]["ties"] == 2 and rows["t"]["wins"] == rows["t"]["losses"] == 0
    # Between the two agents it tied with.
    assert rows["z"]["rating"] < rows["t"]["rating"] < rows["x"]["rating"]


def test_it_does_not_rate_an_agent_without_counted_votes():
    votes = _vote_inputs(SMALL) + [VoteInput(task="t1", a="ghost", b="x", winner="a", counts=False)]
    board = ratings_from_votes(votes)
    assert "ghost" not in by_agent(board["all"])
    assert fit_ratings([]) == []
    assert ratings_from_votes([]) == {"all": [], "tasks": {}}


def test_it_flags_few_votes():
    rows = by_agent(fit_ratings(SMALL))
    assert [rows[a]["votes"] for a in "wxyz"] == [7, 25, 24, 12]
    assert all(row["few_votes"] for row in rows.values())
    rows = by_agent(fit_ratings(SMALL, few_votes_under=12))
    assert {a for a, row in rows.items() if row["few_votes"]} == {"w"}
    rows = by_agent(fit_ratings(SMALL * 3))
    assert {a for a, row in rows.items() if row["few_votes"]} == {"w"}  # 21 votes; x 75, y 72, z 36


def test_it_ranks_by_the_upper_bound_of_the_interval():
    # a [1100, 1200], b [1050, 1150] overlaps a, c [900, 1060] overlaps b only, d [700, 800] below all.
    low = np.array([1100.0, 1050.0, 900.0, 700.0])
    high = np.array([1200.0, 1150.0, 1060.0, 800.0])
    assert _rank_ub(low, high).tolist() == [1, 1, 2, 4]


def test_it_ranks_the_fitted_rows_by_the_upper_bound():
    rows = fit_ratings(SMALL * 10 + [("u", "w", "b")] * 40)
    for row in rows:
        above = sum(other["ci_low"] > row["ci_high"] for other in rows)
        assert row["rank_ub"] == 1 + above
    assert [row["rank_ub"] for row in rows] == sorted(row["rank_ub"] for row in rows)


def test_it_fits_disconnected_groups_without_failing():
    votes = [("p", "q", "a")] * 8 + [("p", "q", "b")] * 2 + [("r", "s", "a")] * 6 + [("r", "s", "b")] * 4
    rows = by_agent(fit_ratings(votes))
    assert all(math.isfinite(row["rating"]) for row in rows.values())
    # Within a group the gap is the group's own evidence; across groups only the prior ties them.
    assert rows["p"]["rating"] > rows["q"]["rating"] and rows["r"]["rating"] > rows["s"]["rating"]
    assert rows["p"]["rating"] + rows["q"]["rating"] == pytest.approx(2000, abs=1e-6)


def test_it_uses_only_counted_votes_per_task_and_overall():
    votes = (
        _vote_inputs(SMALL, task="t1")
        + _vote_inputs([("x", "y", "b")] * 20, task="t2")
        + _vote_inputs([("x", "y", "a")] * 50, task="t3", counts=False)
    )
    board = ratings_from_votes(votes)
    assert list(board["tasks"]) == ["t1", "t2"]
    assert board["tasks"]["t1"] == fit_ratings(SMALL)
    assert board["all"] == fit_ratings(SMALL + [("x", "y", "b")] * 20)
    assert by_agent(board["all"])["y"]["votes"] == 24 + 20


def test_it_counts_every_counted_vote_of_a_repeat_voter():
    # The fit does not know voters: a voter who votes 40 times for x moves x 40 votes' worth. The per-voter
    # cap is the voting app's (it stores the excess votes with counts=False); here those are simply skipped.
    stuffing = [VoteInput(task="t1", a="x", b="w", winner="a", voter="v1", counts=i < 3) for i in range(40)]
    board = ratings_from_votes(_vote_inputs(SMALL) + stuffing)
    assert board["all"] == fit_ratings(SMALL + [("x", "w", "a")] * 3)
    uncapped = by_agent(fit_ratings(SMALL + [("x", "w", "a")] * 40))
    assert uncapped["x"]["rating"] > by_agent(board["all"])["x"]["rating"]


def test_it_rejects_impossible_votes():
    with pytest.raises(ValueError, match="itself"):
        fit_ratings([("x", "x", "a")])
    with pytest.raises(ValueError, match="winner"):
        fit_ratings([("x", "y", "draw")])
    with pytest.raises(ValueError, match="alpha"):
        fit_ratings(SMALL, alpha=0)


def _vote_inputs(triples, task="t1", counts=True):
    return [
        VoteInput(task=task, a=a, b=b, winner=w, voter=f"v{i}", counts=counts) for i, (a, b, w) in enumerate(triples)
    ]


votes_strategy = st.lists(
    st.tuples(st.sampled_from("abcde"), st.sampled_from("abcde"), st.sampled_from(["a", "b", "tie"])).filter(
        lambda v: v[0] != v[1]
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=50, deadline=None)
@given(votes=votes_strategy, swap=st.lists(st.booleans(), min_size=40, max_size=40))
def test_it_changes_nothing_when_sides_swap_with_the_winner(votes, swap):
    flip = {"a": "b", "b": "a", "tie": "tie"}
    swapped = [(b, a, flip[w]) if s else (a, b, w) for (a, b, w), s in zip(votes, swap, strict=False)]
    assert fit_ratings(swapped, bootstrap_rounds=20) == fit_ratings(votes, bootstrap_rounds=20)


@settings(max_examples=50, deadline=None)
@given(votes=votes_strategy)
def test_it_keeps_its_invariants_on_any_votes(votes):
    rows = fit_ratings(votes, bootstrap_rounds=20)
    assert sum(row["rating"] for row in rows) / len(rows) == pytest.approx(1000)
    assert sum(row["votes"] for row in rows) == 2 * len(votes)
    for row in rows:
        assert math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])
        assert row["ci_low"] <= row["rating"] <= row["ci_high"]
        assert 1 <= row["rank_ub"] <= len(rows)
    assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)


def test_the_interval_is_the_central_95_percent_of_the_bootstrap():
    # 1000 votes between a and b, 500 won by each. A resample's wins of a are k ~ Binomial(1000, 0.5): sd
    # sqrt(1000 * 0.25) = 15.81, so its 2.5th / 97.5th percentiles are 500 -/+ 1.96 * 15.81 = 469.0 / 531.0.
    # With the prior's 0.05 virtual win each way, a's rating at k wins is
    # 1000 + (400 / ln 10) / 2 * ln((k + 0.05) / (1000 - k + 0.05)); at k = 469.0:
    # 86.86 * ln(469.05 / 531.05) = 86.86 * -0.12414 = -10.78, so the 95% interval is 989.2 .. 1010.8
    # (an 80% one, z = 1.2816, would be 993.0 .. 1007.0). 100 resamples put each end within about 2 points.
    rows = {r["agent"]: r for r in fit_ratings([("a", "b", "a")] * 500 + [("a", "b", "b")] * 500)}
    for r in rows.values():
        assert r["rating"] == pytest.approx(1000.0)
        assert 987.2 < r["ci_low"] < 991.2 and 1008.8 < r["ci_high"] < 1012.8
    # Equal tails: with two agents a resample rates b at 2000 minus a's rating, so a's 2.5th percentile and
    # b's 97.5th add up to 2000 exactly, and the other way round.
    assert rows["a"]["ci_low"] + rows["b"]["ci_high"] == pytest.approx(2000.0, abs=1e-6)
    assert rows["a"]["ci_high"] + rows["b"]["ci_low"] == pytest.approx(2000.0, abs=1e-6)


def test_the_batched_bootstrap_fit_gives_choix_s_fit_for_every_resample():
    # The bootstrap fits its resamples together (`_ilsr_batch`); each must be what choix's ILSR gives for that
    # win matrix alone, from the same starting point: the maximum-likelihood strengths, centred.
    import choix
    import numpy as np

    from scoring.bradley_terry import _ilsr_batch, _virtual_ties

    rng = np.random.default_rng(3)
    n = 6
    prior = _virtual_ties(n, 0.1)
    mats = rng.integers(0, 9, size=(7, n, n)).astype(float)
    mats[:, np.arange(n), np.arange(n)] = 0.0
    mats += prior
    start = rng.normal(size=n)
    got = _ilsr_batch(mats, initial=start)
    for k in range(len(mats)):
        want = choix.ilsr_pairwise_dense(mats[k], alpha=0.0, initial_params=start, tol=1e-10)
        assert np.allclose(got[k], want - want.mean(), atol=1e-6)


def test_the_batched_bootstrap_fit_stops_each_resample_on_its_own():
    # Two copies of an easy matrix and one hard one in a batch: the easy ones converge at once from their
    # answer, and keep it while the hard one goes on (a resample that stopped is never moved again).
    import numpy as np

    from scoring.bradley_terry import _ilsr_batch

    easy = np.array([[0.0, 3.0], [1.0, 0.0]])  # 3 wins to 1: strengths differ by log 3
    hard = np.array([[0.0, 1.0], [40.0, 0.0]])  # 1 win to 40
    answer = np.array([np.log(3) / 2, -np.log(3) / 2])
    got = _ilsr_batch(np.stack([easy, hard, easy]), initial=answer)
    assert np.allclose(got[0], answer) and np.allclose(got[2], answer)
    assert np.allclose(got[1], [-np.log(40) / 2, np.log(40) / 2], atol=1e-7)


def test_one_win_sits_the_winner_by_the_prior_of_virtual_ties_above_the_loser():
    # Two agents, a beat b once. The prior (alpha = 0.1) adds c / 2 = 0.1 / (2 - 1) / 2 = 0.05 tied wins each
    # way: a's odds over b are (1 + 0.05) / 0.05 = 21, so a - b = 400 * log10(21) = 528.89 Elo points,
    # centred on 1000: a 1264.44, b 735.56.
    rows = by_agent(fit_ratings([("a", "b", "a")]))
    gap = 400 * math.log10(21)
    assert rows["a"]["rating"] == pytest.approx(1000 + gap / 2, abs=1e-3)
    assert rows["b"]["rating"] == pytest.approx(1000 - gap / 2, abs=1e-3)


def test_the_fit_marks_under_30_votes_and_refuses_options_it_cannot_use():
    # ant and bee: 15 wins each way, 30 votes each (not few); cat: 29 ties with ant (few).
    votes = [("ant", "bee", "a")] * 15 + [("ant", "bee", "b")] * 15 + [("ant", "cat", "tie")] * 29
    rows = by_agent(fit_ratings(votes))
    assert {a: (r["votes"], r["few_votes"]) for a, r in rows.items()} == {
        "ant": (59, False),
        "bee": (30, False),
        "cat": (29, True),
    }
    assert len(fit_ratings(votes, bootstrap_rounds=1)) == 3
    with pytest.raises(ValueError, match=r"^bootstrap_rounds must be at least 1$"):
        fit_ratings(votes, bootstrap_rounds=0)
    with pytest.raises(
        ValueError, match=r"^alpha must be positive: an undefeated agent would have an infinite rating$"
    ):
        fit_ratings(votes, alpha=0)
