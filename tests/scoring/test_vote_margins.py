"""How many votes hold the top place (scoring/vote_margins.py): the greedy count against the exact minimum,
found by trying every subset of a few hand-made votes."""

from __future__ import annotations

import itertools
import random

import numpy as np

from scoring.bradley_terry import _fit_theta, _MatrixBuilder, _tally_counted, _virtual_ties, fit_cells
from scoring.vote_margins import EXACT_UP_TO, LEVEL_THETA, board_margins, vote_margins, votes_to_flip, with_vote_margins


def tally(*cells):
    return _tally_counted(((a, b, w), n) for a, b, w, n in cells)


def exact_minimum(t, front, rivals):
    """The fewest votes whose removal puts a rival level with or above `front`, by trying every subset.

    Votes of one cell are interchangeable, so a subset is a count vector 0 <= kept <= count (every multiset of
    removed votes once); the agents stay those of the full board, as in the greedy."""
    build = _MatrixBuilder(t)
    prior = _virtual_ties(len(t.agents), 0.1)
    best = None
    for kept in itertools.product(*(range(int(c) + 1) for c in t.count)):
        removed = int(t.count.sum()) - sum(kept)
        if best is not None and removed >= best:
            continue
        theta = _fit_theta(build(np.array(kept, dtype=np.int64)), prior)
        if theta[front] - max(theta[r] for r in rivals) <= LEVEL_THETA:
            best = removed
    return best


def top_and_rest(t, front):
    i = t.agents.index(front)
    return i, [j for j in range(len(t.agents)) if j != i]


def test_four_wins_against_two_rest_on_two_votes():
    # a beat b 4 times, b beat a twice (6 votes). With two agents the fit is level exactly when the win counts
    # are (W_ab + c/2 = W_ba + c/2): each removed a-win closes the gap 4 - 2 by one, a removed b-win widens it.
    # One removal leaves 3 - 2 (a still first); two a-wins removed leave 2 - 2: level. Exact minimum 2.
    t = tally(("a", "b", "a", 4), ("a", "b", "b", 2))
    front, rivals = top_and_rest(t, "a")
    assert exact_minimum(t, front, rivals) == 2
    assert votes_to_flip(t, front, rivals) == 2


def test_a_tie_is_half_a_win_and_removing_one_does_not_help():
    # a beat b 3 times, they tied twice, b beat a once: a has 3 + 2/2 = 4 wins' worth, b 1 + 2/2 = 2.
    # Removing an a-win takes a's worth down by 1; a tie takes both down by 1/2 (the gap stays 2, and the ratio
    # (3.5 + c/2) / (1.5 + c/2) is larger than (4 + c/2) / (2 + c/2): the lead grows). Level needs the gap
    # at 0: two a-wins. Exact minimum 2, and the greedy takes the a-wins, never the ties.
    t = tally(("a", "b", "a", 3), ("a", "b", "tie", 2), ("a", "b", "b", 1))
    front, rivals = top_and_rest(t, "a")
    assert exact_minimum(t, front, rivals) == 2
    assert votes_to_flip(t, front, rivals) == 2


def test_one_vote_can_hand_the_top_to_an_agent_that_never_beat_it():
    # a beat b twice and c once; c beat b 3 times (6 votes). a is unbeaten, with a win over c: first.
    # Remove a's one win over c: a and c then have each only beaten b, a 2 times, c 3 times, with no loss:
    # c is rated above a. Zero removals keep a first, so the exact minimum is 1.
    t = tally(("a", "b", "a", 2), ("a", "c", "a", 1), ("c", "b", "a", 3))
    front, rivals = top_and_rest(t, "a")
    assert exact_minimum(t, front, rivals) == 1
    assert votes_to_flip(t, front, rivals) == 1


def test_a_lower_pair_counts_the_votes_between_them_and_above_them():
    # Same votes. c is above b (c beat b 3 times). b has no win, so while c keeps one of its 3 wins over b it
    # stays above b: all 3 must go. Then c has lost once to a and b twice: both winless, b with more losses,
    # still below. Cheapest from there: one of a's wins over b (both 0-1 against a: mirror images, level);
    # the other way, a's win over c and both of a's wins over b, takes 3. The exact minimum is 3 + 1 = 4.
    t = tally(("a", "b", "a", 2), ("a", "c", "a", 1), ("c", "b", "a", 3))
    c, b = t.agents.index("c"), t.agents.index("b")
    assert exact_minimum(t, c, [b]) == 4
    assert votes_to_flip(t, c, [b]) == 4


def test_an_unbeaten_leader_rests_on_all_its_wins():
    # a beat b twice and c twice; b and c beat each other once each (6 votes). While a keeps any win it is
    # unbeaten with a win over an agent that only split with the third: above both. With all 4 removed, a
    # has no vote (held at the others' average by the virtual ties) and b, c are mirror images: all level.
    t = tally(("a", "b", "a", 2), ("a", "c", "a", 2), ("b", "c", "a", 1), ("b", "c", "b", 1))
    front, rivals = top_and_rest(t, "a")
    assert exact_minimum(t, front, rivals) == 4
    assert votes_to_flip(t, front, rivals) == 4


def test_level_agents_need_no_removal():
    # a and b beat each other once: level from the start.
    t = tally(("a", "b", "a", 1), ("a", "b", "b", 1))
    front, rivals = top_and_rest(t, "a")
    assert votes_to_flip(t, front, rivals) == 0


def test_past_the_bound_the_count_is_left_open():
    # a beat b 5 times: the two are level only with every win removed (5). Allowed 2 removals: None.
    t = tally(("a", "b", "a", 5))
    front, rivals = top_and_rest(t, "a")
    assert votes_to_flip(t, front, rivals) == 5
    assert votes_to_flip(t, front, rivals, max_removed=2) is None


def test_the_greedy_is_never_below_the_exact_minimum_on_random_six_vote_sets():
    rng = random.Random(30)
    for _ in range(25):
        votes = [tuple(rng.sample("abc", 2)) + (rng.choice(["a", "b", "tie"]),) for _ in range(6)]
        cells = {}
        for v in votes:
            cells[v] = cells.get(v, 0) + 1
        t = tally(*((a, b, w, n) for (a, b, w), n in cells.items()))
        rows = fit_cells((a, b, w, n) for (a, b, w), n in cells.items())
        front, rivals = top_and_rest(t, str(rows[0]["agent"]))
        exact = exact_minimum(t, front, rivals)
        greedy = votes_to_flip(t, front, rivals)
        assert greedy is not None and exact is not None and greedy >= exact, (votes, greedy, exact)


def row(agent, low, high):
    return {"agent": agent, "rating": (low + high) / 2, "ci_low": low, "ci_high": high}


def test_a_board_lists_its_top_and_counts_the_neighbours_whose_intervals_do_not_overlap():
    t = tally(("a", "b", "a", 2), ("a", "c", "a", 1), ("c", "b", "a", 3))
    # Hand-made intervals: a and c overlap (1050 <= 1060), c and b do not (990 > 900).
    rows = [row("a", 1050, 1200), row("c", 990, 1060), row("b", 700, 900)]
    out = board_margins(t, rows)
    assert out["votes"] == 6 and out["max_removed"] == 100
    assert out["top"] == {"agent": "a", "runner_up": "c", "flip": 1}
    assert out["pairs"] == [{"above": "c", "below": "b", "flip": 4}]


def test_every_two_neighbours_of_a_vote_order_are_listed_on_every_board():
    # One order, a > b > c > d, on two boards: on the first every interval is apart from the next, on the second
    # b's and c's overlap (c's upper end raised to 1070, above b's lower end, 1060). Either way the top figure
    # holds #1 against the rest, and the pairs are b-c and c-d, each once: a count where apart, "overlap" where
    # not. (Before, the second board left b-c out and the first listed a-b beside the top figure.)
    t = tally(("a", "b", "a", 3), ("b", "c", "a", 3), ("c", "d", "a", 3), ("a", "d", "a", 1), ("b", "d", "a", 1))
    apart = [row("a", 1250, 1350), row("b", 1060, 1140), row("c", 960, 1040), row("d", 760, 840)]
    close = [dict(r) for r in apart]
    close[2].update(ci_high=1070.0)
    first, second = board_margins(t, apart), board_margins(t, close)
    assert [(p["above"], p["below"]) for p in first["pairs"]] == [("b", "c"), ("c", "d")]
    assert [(p["above"], p["below"]) for p in second["pairs"]] == [("b", "c"), ("c", "d")]
    assert [p.get("overlap", False) for p in first["pairs"]] == [False, False]
    assert [p.get("overlap", False) for p in second["pairs"]] == [True, False]
    assert "flip" not in second["pairs"][0] and isinstance(second["pairs"][1]["flip"], int)
    assert first["top"]["agent"] == second["top"]["agent"] == "a"


def test_one_agent_has_no_top_place_to_hold():
    assert board_margins(tally(("a", "b", "a", 1)), [row("a", 1000, 1100)])["top"] is None


def test_every_board_of_a_benchmark_and_first_in_the_ratings():
    cells = [("t1", "a", "b", "a", 4), ("t1", "a", "b", "b", 2), ("t2", "a", "b", "b", 1)]
    ratings = {"all": [row("b", 990, 1010), row("a", 990, 1010)], "tasks": {"t1": [], "t2": []}}
    ratings["tasks"]["t1"] = [row("a", 990, 1100), row("b", 900, 1010)]
    ratings["tasks"]["t2"] = [row("b", 990, 1100), row("a", 900, 1010)]
    out = vote_margins(cells, ratings)
    # t1: 4 - 2 (2 votes, as above); t2: b's single win (1 vote); all: with b listed first, b (3 wins' worth
    # of 7 against a's 4) is already below a: 0.
    assert out["tasks"]["t1"]["top"]["flip"] == 2
    assert out["tasks"]["t2"]["top"]["flip"] == 1
    assert out["all"]["top"]["flip"] == 0
    assert list(with_vote_margins(cells, ratings)) == ["margins", "all", "tasks"]


# --- the stepped search of large boards (more than EXACT_UP_TO votes) ---------------------------------------


def test_two_agents_are_level_once_the_leaders_extra_wins_are_gone():
    # a beat b 700 times, b beat a 400 times (1,100 votes: the stepped search). With two agents the fit puts
    # them level exactly when their wins are equal (the virtual ties are the same for both), and removing a
    # win of b only widens the lead: the fewest removals are 700 - 400 = 300 of a's wins.
    t = tally(("a", "b", "a", 700), ("a", "b", "b", 400))
    rows = fit_cells([("a", "b", "a", 700), ("a", "b", "b", 400)])
    out = board_margins(t, rows)
    assert out["search"] == "steps" and out["max_removed"] is None
    assert out["top"] == {"agent": "a", "runner_up": "b", "flip": 300}


def test_the_stepped_search_finds_what_removing_one_vote_at_a_time_finds():
    # Boards of 3 or 4 agents and 550-2,000 votes drawn at random (seeded): the stepped search takes the
    # cell that narrows the lead most per vote, as the one-at-a-time greedy does, so on these boards the two
    # agree vote for vote; each count is checked by an exact refit inside the search.
    rng = random.Random(7)
    for _ in range(12):
        agents = "abcd"[: rng.choice([3, 4])]
        strength = {x: rng.gauss(0, 0.4) for x in agents}
        cells = []
        for i, x in enumerate(agents):
            for y in agents[i + 1 :]:
                n = rng.randint(60, 400)
                p = 1 / (1 + np.exp(-(strength[x] - strength[y])))
                wins_x, wins_y = int(n * 0.9 * p), int(n * 0.9 * (1 - p))
                cells += [(x, y, "a", wins_x), (x, y, "b", wins_y), (x, y, "tie", n - wins_x - wins_y)]
        cells = [c for c in cells if c[3] > 0]
        t = tally(*cells)
        if t.n_votes <= EXACT_UP_TO:
            continue
        rows = fit_cells(cells)
        front, rivals = top_and_rest(t, str(rows[0]["agent"]))
        stepped = board_margins(t, rows)["top"]["flip"]
        one_at_a_time = votes_to_flip(t, front, rivals, max_removed=2000)
        assert stepped == one_at_a_time, (cells, stepped, one_at_a_time)


def test_the_work_bound_leaves_a_place_open_or_a_looser_upper_bound():
    # a beat b 100,000 times and lost once: level once a's wins are down to 1, after 99,999 removals.
    from scoring.vote_margins import _Fitter, _flip_by_steps

    t = tally(("a", "b", "a", 100_000), ("a", "b", "b", 1))
    assert _flip_by_steps(_Fitter(t, 0.1), 0, [1]) == (99_999, 99_999)
    # One fit allowed (the fit of the board itself): nothing is settled, nothing removed.
    assert _flip_by_steps(_Fitter(t, 0.1), 0, [1], max_fits=1) == (None, 0)
    # Three fits: the step that closes the lead is found, its bisection cut short: still an upper bound.
    found, _ = _flip_by_steps(_Fitter(t, 0.1), 0, [1], max_fits=3)
    assert found is not None and found >= 99_999
