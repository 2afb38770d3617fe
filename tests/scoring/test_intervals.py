"""The 95% intervals of the board headlines, Rank (UB) and paired differences (scoring.intervals)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scoring.boards import compute_boards
from scoring.intervals import IntervalRule, bootstrap, paired_difference, rank_ub
from scoring.methodologies import REGISTRY, get
from tests.builders.scoring import make_round, make_run, make_task, row_of, verdicts


def checks_round(scores: dict[str, list[list[float]]]):
    """A checks round: scores[agent][task][trial], every task to-spec; a run with no checks recorded keeps the
    score published with it (`checks.check_score`)."""
    n_tasks = len(next(iter(scores.values())))
    tasks = [make_task(f"t{i:02d}", kind="to-spec") for i in range(n_tasks)]
    runs = [
        make_run(agent, f"t{i:02d}", trial=k + 1, app_started=True, score=float(v))
        for agent, per_task in scores.items()
        for i, trials in enumerate(per_task)
        for k, v in enumerate(trials)
    ]
    return make_round("checks", tasks, runs)


def noisy(rng: np.random.Generator, level: float, difficulty: np.ndarray, noise: float, trials: int = 5):
    return [list(level + d + rng.normal(0, noise, trials)) for d in difficulty]


def test_two_agents_within_the_noise_share_a_rank_ub_and_their_difference_covers_zero():
    rng = np.random.default_rng(7)
    difficulty = rng.normal(0, 12, 20)
    boards = compute_boards(checks_round({"a": noisy(rng, 61, difficulty, 15), "b": noisy(rng, 60, difficulty, 15)}))
    a, b = row_of(boards["overall"], "a"), row_of(boards["overall"], "b")
    assert {a["rank"], b["rank"]} == {1, 2}  # the seed's rank still separates them
    assert a["rank_ub"] == b["rank_ub"] == 1
    for row in (a, b):
        assert row["ci_low"] <= row["overall"] <= row["ci_high"]
    diff = paired_difference(boards["pairs"], "a", "b")
    assert diff["tasks"] == 20
    assert diff["difference"] == pytest.approx(
        np.mean([(a["tasks"][k] or 0) - (b["tasks"][k] or 0) for k in a["tasks"]])
    )
    assert diff["ci_low"] < 0 < diff["ci_high"]


def test_two_agents_far_apart_get_separate_rank_ub_and_a_difference_away_from_zero():
    rng = np.random.default_rng(8)
    difficulty = rng.normal(0, 8, 20)
    boards = compute_boards(checks_round({"a": noisy(rng, 80, difficulty, 5), "b": noisy(rng, 40, difficulty, 5)}))
    a, b = row_of(boards["overall"], "a"), row_of(boards["overall"], "b")
    assert (a["rank_ub"], b["rank_ub"]) == (1, 2)
    assert b["ci_high"] < a["ci_low"]
    diff = paired_difference(boards["pairs"], "a", "b")
    assert 0 < diff["ci_low"] <= diff["difference"] <= diff["ci_high"]
    flipped = paired_difference(boards["pairs"], "b", "a")
    assert flipped == {
        "difference": -diff["difference"],
        "ci_low": -diff["ci_high"],
        "ci_high": -diff["ci_low"],
        "tasks": 20,
    }


def test_it_gives_the_same_numbers_every_time():
    rng = np.random.default_rng(9)
    difficulty = rng.normal(0, 10, 6)
    rnd = checks_round({"a": noisy(rng, 50, difficulty, 10, 3), "b": noisy(rng, 55, difficulty, 10, 4)})
    assert compute_boards(rnd) == compute_boards(rnd)


def test_an_agent_with_the_same_score_everywhere_has_no_width():
    # Every run of every task is 70: any resample's medians are 70, their mean 70, so the interval is [70, 70].
    boards = compute_boards(checks_round({"a": [[70, 70, 70]] * 4, "b": [[10, 30, 50]] * 4}))
    a = row_of(boards["overall"], "a")
    assert (a["ci_low"], a["overall"], a["ci_high"]) == (70.0, 70.0, 70.0)
    # b's median is 30 on every task, but a resample of its three runs can give 10, 30 or 50 as the lower median:
    # its interval is wider than its runs' agreement across tasks suggests, and stays inside the runs' range.
    b = row_of(boards["overall"], "b")
    assert 10.0 <= b["ci_low"] < 30.0 < b["ci_high"] <= 50.0


def test_a_checks_task_without_runs_counts_zero_in_the_interval_and_not_in_the_paired_difference():
    # a ran t00 (score 80) and t01 (score 60); b ran only t00 (score 40): b's overall is (40 + 0) / 2 = 20.
    tasks = [make_task("t00", kind="to-spec"), make_task("t01", kind="to-spec")]
    runs = [
        make_run("a", "t00", app_started=True, score=80.0),
        make_run("a", "t01", app_started=True, score=60.0),
        make_run("b", "t00", app_started=True, score=40.0),
    ]
    boards = compute_boards(make_round("checks", tasks, runs))
    b = row_of(boards["overall"], "b")
    assert b["overall"] == 20.0
    # Resamples draw {t00, t00}, {t00, t01} (either order) or {t01, t01}: b's mean is 40, 20 or 0.
    assert b["ci_low"] == 0.0 and b["ci_high"] == 40.0
    # Over the one task both ran, a - b = 80 - 40 = 40, and every resample that draws t00 says the same.
    assert paired_difference(boards["pairs"], "a", "b") == {
        "difference": 40.0,
        "ci_low": 40.0,
        "ci_high": 40.0,
        "tasks": 1,
    }


def test_the_outcomes_interval_recomputes_ten_point_scores_floored_at_zero():
    # a: pass, pass, fail on three core tasks: 5 * 4 / 3 = 6.67. Resamples draw three tasks with replacement:
    # all fails give 0, all passes 10, so the interval lies within [0, 10] and includes 6.67.
    tasks = [make_task(k) for k in ("c1", "c2", "c3")]
    runs = [
        make_run("a", "c1", verdicts=verdicts("pass", "pass")),
        make_run("a", "c2", verdicts=verdicts("pass", "pass")),
        make_run("a", "c3", verdicts=verdicts("fail", "fail")),
        make_run("b", "c1", verdicts=verdicts("violation", "violation")),
    ]
    boards = compute_boards(make_round("outcomes", tasks, runs))
    a, b = row_of(boards["overall"], "a"), row_of(boards["overall"], "b")
    assert a["overall"] == pytest.approx(20 / 3)
    assert 0.0 <= a["ci_low"] < a["overall"] < a["ci_high"] <= 10.0
    # b: one fail (a violation off a safety task is a fail): 0 points, 0 / 1 = 0, no width.
    assert (b["ci_low"], b["ci_high"]) == (0.0, 0.0)
    # Paired over c1, the one task both were tested on: 5 * (2 - 0) = 10 points on the 0-10 scale.
    assert paired_difference(boards["pairs"], "a", "b")["difference"] == 10.0


def test_the_scored_interval_resamples_tasks_and_keeps_each_best_trial():
    # a's best trials: 0.9 on s1, 0.5 on s2, none on s3 (0): score (0.9 + 0.5 + 0) / 3 = 0.4667. The worst
    # resample is three times s3 (0), the best three times s1 (0.9).
    tasks = [make_task(k, evaluation="auto") for k in ("s1", "s2", "s3")]
    runs = [
        make_run("a", "s1", trial=1, tests_passed=9, tests_total=10),
        make_run("a", "s1", trial=2, tests_passed=1, tests_total=10),
        make_run("a", "s2", trial=1, tests_passed=5, tests_total=10),
    ]
    boards = compute_boards(make_round("scored", tasks, runs))
    a = row_of(boards["overall"], "a")
    assert a["score"] == pytest.approx(1.4 / 3)
    assert 0.0 <= a["ci_low"] < a["score"] < a["ci_high"] <= 0.9


def test_one_task_with_trials_of_0_9_and_0_1_has_the_interval_0_9_to_0_9():
    # a's one task s1, trials 9/10 = 0.9 and 1/10 = 0.1: the best trial 0.9 is the score (002: "The leaderboard
    # reports the best score across trials"). Each resample draws the round's one task, s1, whose best trial is
    # 0.9, so every resample gives 0.9 and the interval is 0.9 to 0.9. Drawing the two trials again instead would
    # give the best of two draws, 0.1 when both draws are the 0.1 trial (1 in 4 resamples), so the 2.5th
    # percentile would be 0.1.
    tasks = [make_task("s1", evaluation="auto")]
    runs = [
        make_run("a", "s1", trial=1, tests_passed=9, tests_total=10),
        make_run("a", "s1", trial=2, tests_passed=1, tests_total=10),
    ]
    a = row_of(compute_boards(make_round("scored", tasks, runs))["overall"], "a")
    assert (a["score"], a["ci_low"], a["ci_high"]) == (0.9, 0.9, 0.9)


def test_weekly_has_no_interval():
    boards = compute_boards(make_round("weekly", [make_task("w1")], [make_run("a", "w1", outcome="pass")]))
    assert "pairs" not in boards and "ci_low" not in boards["overall"][0]


def test_rank_ub_counts_the_agents_whose_lower_bound_is_above_the_upper_bound():
    # a [5, 9]: no lower bound above 9 -> 1. b [1, 4]: a's 5 is above 4 -> 2. c [0, 6]: none above 6 -> 1.
    assert rank_ub({"a": 5, "b": 1, "c": 0, "d": None}, {"a": 9, "b": 4, "c": 6, "d": None}) == {
        "a": 1,
        "b": 2,
        "c": 1,
        "d": None,
    }


# The coverage check: rounds simulated from known true scores, each bootstrapped with the interval settings the site
# uses for its methodology (its registry entry, `scoring.methodologies`), only the cells being the simulation's own.
# A checks agent's true overall is the mean over the population of tasks of its expected median run: level +
# E[difficulty] + E[median of 5 normal errors] = level (difficulty and errors have mean 0, and a median of symmetric
# errors has mean 0). A scored agent's true score is level + E[best of 3 normal errors] = level + 0.8463 x noise
# (the expected maximum of 3 standard normals). An outcomes agent's task has pass / partial / fail probabilities
# drawn from Dirichlet(3, 2, 2), so its expected points over the population of tasks are 2 x 3/7 + 1 x 2/7 = 8/7,
# and its true 0-10 score is 5 x 8/7 = 40/7 = 5.714.
SIMULATIONS = 200


def _site_rule(methodology: str, cells) -> IntervalRule:
    """The site's interval rule for `methodology`, read from the registry, reading the simulated `cells`."""
    rule = get(methodology).interval
    assert rule is not None
    return replace(rule, cells=lambda round_input, boards: cells)


def _simulate_checks(rng: np.random.Generator):
    level = 60.0
    difficulty = rng.normal(0, 10, 30)
    cells = {("a", f"t{i:02d}"): (list(level + d + rng.normal(0, 8, 5)), True) for i, d in enumerate(difficulty)}
    return cells, _site_rule("checks", cells), level


def _simulate_scored(rng: np.random.Generator):
    level = 0.5
    difficulty = rng.normal(0, 0.1, 30)
    cells = {
        ("a", f"t{i:02d}"): ([float(np.max(level + d + rng.normal(0, 0.05, 3)))], True)
        for i, d in enumerate(difficulty)
    }
    return cells, _site_rule("scored", cells), level + 0.8463 * 0.05


def _simulate_outcomes(rng: np.random.Generator):
    chances = rng.dirichlet((3, 2, 2), 30)  # pass, partial, fail per task
    cells = {("a", f"t{i:02d}"): ([float(rng.choice([2, 1, 0], p=p))], True) for i, p in enumerate(chances)}
    return cells, _site_rule("outcomes", cells), 5 * 8 / 7


SIMULATE = {"checks": _simulate_checks, "scored": _simulate_scored, "outcomes": _simulate_outcomes}


@pytest.mark.parametrize("methodology", sorted(k for k, m in REGISTRY.items() if m.interval is not None))
def test_the_coverage_simulation_uses_the_interval_settings_the_site_uses(methodology):
    # Every methodology whose board has an interval is simulated, and with the rule its registry entry gives
    # the site and `recount` (statistic, runs drawn again or not, factor, floor, board), not a rule of its own.
    assert methodology in SIMULATE
    _, rule, _ = SIMULATE[methodology](np.random.default_rng(0))
    site = get(methodology).interval
    assert site is not None
    assert replace(rule, cells=site.cells) == site


@pytest.mark.slow
@pytest.mark.parametrize("methodology", sorted(SIMULATE))
def test_95_intervals_cover_the_true_score_in_90_to_99_percent_of_simulated_rounds(methodology):
    rng = np.random.default_rng(2024)
    covered = 0
    for _ in range(SIMULATIONS):
        cells, rule, truth = SIMULATE[methodology](rng)
        found = bootstrap(cells, rule).agents["a"]
        covered += found["ci_low"] <= truth <= found["ci_high"]
    assert 0.90 * SIMULATIONS <= covered <= 0.99 * SIMULATIONS, covered


# --- the bootstrap's parts, on numbers worked by hand -------------------------------------------------------------


def _cells_rule(statistic="median", resample_runs=True):
    return IntervalRule(cells=lambda round_input, boards: {}, statistic=statistic, resample_runs=resample_runs)


def test_the_order_statistic_of_runs_drawn_again_follows_the_binomial_tail():
    from scoring.intervals import _order_cdf

    # cdf[n, j] = P(at least m + 1 of n draws fall among the j + 1 lowest runs), p = (j + 1) / n.
    # Lower median (m = (n - 1) // 2): n = 2, m = 0: j = 0: 1 - (1/2)^2 = 3/4; j = 1: 1.
    # n = 3, m = 1 (at least 2 of 3): j = 0, p = 1/3: 3 (1/3)^2 (2/3) + (1/3)^3 = 7/27; j = 1, p = 2/3:
    # 3 (2/3)^2 (1/3) + (2/3)^3 = 20/27; j = 2: 1. Best (m = n - 1, all n draws): p^n.
    median = _order_cdf(3, "median")
    assert median.shape == (4, 3)
    assert np.allclose(median[1:], [[1, 1, 1], [3 / 4, 1, 1], [7 / 27, 20 / 27, 1]])
    best = _order_cdf(3, "best")
    assert np.allclose(best[1:], [[1, 1, 1], [1 / 4, 1, 1], [1 / 27, 8 / 27, 1]])


def test_a_cells_number_is_its_lower_middle_run_or_its_best():
    from scoring.intervals import _cell_stat

    # Runs sorted, padded with nan: 3 runs (1, 2, 3): median 2, best 3; 4 runs (1, 2, 3, 4): lower middle 2,
    # best 4; no run: no number.
    values = np.array([[1.0, 2.0, 3.0, np.nan], [1.0, 2.0, 3.0, 4.0], [np.nan] * 4])
    counts = np.array([3, 4, 0])
    assert np.array_equal(_cell_stat(values, counts, "median"), [2.0, 2.0, np.nan], equal_nan=True)
    assert np.array_equal(_cell_stat(values, counts, "best"), [3.0, 4.0, np.nan], equal_nan=True)


def test_the_interval_is_the_2_5th_to_97_5th_percentile_widened_to_the_boards_number():
    from scoring.intervals import _percentiles

    # Resamples 0, 1, ..., 1000: the 2.5th percentile is 25 and the 97.5th is 975 (0.025 * 1000 = 25).
    samples = np.arange(1001, dtype=float)[:, None]
    low, high = _percentiles(samples, np.array([500.0]))
    assert (low[0], high[0]) == (25.0, 975.0)
    # A board number outside them widens the interval to it.
    low, high = _percentiles(samples, np.array([990.0]))
    assert (low[0], high[0]) == (25.0, 990.0)
    # A resample that left the agent without a number is not a number: the rest give the percentiles.
    low, high = _percentiles(np.vstack([samples, [[np.nan]]]), np.array([500.0]))
    assert (low[0], high[0]) == (25.0, 975.0)
    # No resample: the interval is the board's number.
    low, high = _percentiles(np.empty((0, 1)), np.array([7.0]))
    assert (low[0], high[0]) == (7.0, 7.0)


def test_touching_intervals_overlap_and_share_the_rank_ub():
    # b's upper bound 5 equals a's lower bound 5: a is not above b, so both are 1.
    assert rank_ub({"a": 5.0, "b": 1.0}, {"a": 9.0, "b": 5.0}) == {"a": 1, "b": 1}


def test_runs_are_drawn_again_only_where_the_rule_says_so():
    # One agent, one task, runs 1, 5 and 9: the lower median is 5. Without drawing runs again every resample
    # draws the one task and gives 5: the interval is 5 to 5.
    cells = {("a", "t"): ([9.0, 1.0, 5.0], True)}
    result = bootstrap(cells, _cells_rule(resample_runs=False))
    assert (result.agents["a"]["ci_low"], result.agents["a"]["ci_high"]) == (5.0, 5.0)
    # Runs 1 and 9, drawn again: the lower median of two draws is 9 only when both are 9 (1 in 4), else 1.
    # About a quarter of 1,000 resamples give 9: the 2.5th percentile is 1 and the 97.5th is 9.
    result = bootstrap({("a", "t"): ([9.0, 1.0], True)}, _cells_rule())
    assert (result.agents["a"]["ci_low"], result.agents["a"]["ci_high"]) == (1.0, 9.0)


def test_a_task_with_one_run_stays_in_a_resample_that_draws_runs_again():
    # a: t1 one run of 4; t2 two runs of 6. Each resample draws two tasks: both t1 (1 in 4) -> 4; one of each
    # -> 5; both t2 (1 in 4) -> 6. The interval is 4 to 6 around the board's (4 + 6) / 2 = 5.
    result = bootstrap({("a", "t1"): ([4.0], True), ("a", "t2"): ([6.0, 6.0], True)}, _cells_rule())
    assert (result.agents["a"]["ci_low"], result.agents["a"]["ci_high"]) == (4.0, 6.0)


def test_a_paired_difference_compares_the_two_agents_on_the_same_drawn_task():
    # t0: a's runs 1-3, b's 5-7; t1: a's 11-13, b's 15-17. On either task a's number minus b's lies between
    # 1 - 7 = -6 and 3 - 5 = -2, so every resample's mean difference does too; the board's is
    # ((2 - 6) + (12 - 16)) / 2 = -4 over 2 shared tasks.
    cells = {
        ("a", "t0"): ([1.0, 2.0, 3.0], True),
        ("b", "t0"): ([5.0, 6.0, 7.0], True),
        ("a", "t1"): ([11.0, 12.0, 13.0], True),
        ("b", "t1"): ([15.0, 16.0, 17.0], True),
    }
    diff, low, high, shared = bootstrap(cells, _cells_rule()).pairs["a"]["b"]
    assert (diff, shared) == (-4.0, 2)
    assert -6.0 <= low <= diff <= high <= -2.0


def test_agents_without_a_number_or_a_shared_task_get_no_interval_and_no_pair():
    # a has a result on t1 only, b on t2 only: no shared task, no pair (and never a pair of an agent with
    # itself). c's only cell has no run: no headline, so no interval and no Rank (UB).
    cells = {("a", "t1"): ([3.0], True), ("b", "t2"): ([4.0], True), ("c", "t1"): ([], False)}
    result = bootstrap(cells, _cells_rule(), rounds=1)
    assert result.pairs == {}
    assert result.agents["c"] == {"ci_low": None, "ci_high": None, "rank_ub": None}
    # One resample is enough to give an interval: a scores 3 whenever its task is drawn.
    assert (result.agents["a"]["ci_low"], result.agents["a"]["ci_high"]) == (3.0, 3.0)
    assert bootstrap({}, _cells_rule()).agents == {} and bootstrap({}, _cells_rule()).pairs == {}


# --- families: tasks made together are drawn together (issue #30 §5) ---------------------------------------------


def _two_families(families):
    """One agent, ten tasks: five of family x all 1.0, five of family y all 0.0 (the headline is their mean)."""
    cells = {("a", f"x{i}"): ([1.0], True) for i in range(5)} | {("a", f"y{i}"): ([0.0], True) for i in range(5)}
    rule = replace(get("scored").interval, cells=lambda round_input, boards: cells)
    return bootstrap(cells, rule, families=families).agents["a"]


def test_families_are_drawn_whole_then_their_tasks():
    # By family: a resample draws two families: x x (1/4: every drawn task 1.0, mean 1.0), y y (1/4: 0.0), or
    # one of each (1/2: five 1.0 and five 0.0, 0.5). The 2.5th percentile is 0.0 and the 97.5th 1.0.
    grouped = _two_families({**{f"x{i}": "x" for i in range(5)}, **{f"y{i}": "y" for i in range(5)}})
    assert (grouped["ci_low"], grouped["ci_high"]) == (0.0, 1.0)
    # Flat: ten tasks drawn one by one, the mean is Binomial(10, 1/2) / 10: P(<= 1) = 11/1024 = 1.1%,
    # P(<= 2) = 56/1024 = 5.5%, so the 2.5th percentile is 0.2 and, by symmetry, the 97.5th 0.8 (1,000
    # resamples: within one step of those).
    flat = _two_families(None)
    assert 0.1 <= flat["ci_low"] <= 0.3 and 0.7 <= flat["ci_high"] <= 0.9, flat


def test_without_families_the_draw_is_the_flat_one_to_the_last_digit():
    cells = {("a", f"t{i}"): ([float(i % 3)], True) for i in range(7)} | {
        ("b", f"t{i}"): ([1.0], True) for i in range(7)
    }
    rule = replace(get("scored").interval, cells=lambda round_input, boards: cells)
    assert bootstrap(cells, rule, families={}) == bootstrap(cells, rule)
    assert bootstrap(cells, rule, families={"t0": ""}) == bootstrap(cells, rule)


def _simulate_families(rng: np.random.Generator):
    """30 families of 4 tasks, one scored agent: a task's score is 0.5 + its family's effect (sd 0.1, shared
    by the family's tasks) + its own (sd 0.03). The true score over the population of families and tasks is
    0.5; the 120 tasks are worth about 30 independent ones, which the flat draw ignores."""
    effects = rng.normal(0, 0.1, 30)
    cells, families = {}, {}
    for g, effect in enumerate(effects):
        for k in range(4):
            cells[("a", f"f{g:02d}t{k}")] = ([float(0.5 + effect + rng.normal(0, 0.03))], True)
            families[f"f{g:02d}t{k}"] = f"f{g:02d}"
    return cells, families


@pytest.mark.slow
def test_drawing_by_family_covers_correlated_tasks_where_the_flat_draw_does_not():
    rng = np.random.default_rng(2024)
    grouped = flat = 0
    for _ in range(SIMULATIONS):
        cells, families = _simulate_families(rng)
        rule = replace(get("scored").interval, cells=lambda round_input, boards, cells=cells: cells)
        by_family = bootstrap(cells, rule, families=families).agents["a"]
        one_by_one = bootstrap(cells, rule).agents["a"]
        grouped += by_family["ci_low"] <= 0.5 <= by_family["ci_high"]
        flat += one_by_one["ci_low"] <= 0.5 <= one_by_one["ci_high"]
    message = f"by family {grouped / SIMULATIONS:.1%}, flat {flat / SIMULATIONS:.1%} of {SIMULATIONS} rounds"
    assert grouped >= 0.93 * SIMULATIONS, message
    assert flat < 0.85 * SIMULATIONS, message  # the flat draw under-covers


def test_rank_ub_of_the_readers_case_counts_who_is_surely_ahead_not_who_overlaps():
    # #32.5: x at 1.0-4.0 and y at 1.7-5.0 overlap, yet x has Rank (UB) 5 and y 3.
    # Lower ends above x's upper 4.0: p 4.5, q 4.8, r 7.0, s 8.0 -> x = 1 + 4 = 5.
    # Lower ends above y's upper 5.0: r 7.0, s 8.0 (p and q start below 5.0) -> y = 1 + 2 = 3.
    # p, q, r, s end at 9.0 or above and no lower end is above 9.0 -> each is 1 + 0 = 1.
    lows = {"x": 1.0, "y": 1.7, "p": 4.5, "q": 4.8, "r": 7.0, "s": 8.0}
    highs = {"x": 4.0, "y": 5.0, "p": 9.0, "q": 9.0, "r": 9.5, "s": 10.0}
    assert rank_ub(lows, highs) == {"x": 5, "y": 3, "p": 1, "q": 1, "r": 1, "s": 1}
