"""Each open question of the methodologies (`scoring.readings`), worked out by hand from the seed: the board of a
small round under the site's reading and under the other one, computed by the same scoring functions with the
reading as their parameter."""

import pytest

from scoring.boards import compute_boards
from scoring.bundle import round_inputs
from scoring.readings import SITE, Readings
from tests.builders import readings as built


def boards(doc: dict, reading: str | None = None) -> dict:
    (round_input,) = round_inputs(doc)
    if reading is None:
        return compute_boards(round_input)
    question, value = reading.split("=")
    return compute_boards(round_input, readings=Readings.of({question: value}))


def table(rows: list[dict], key: str) -> list[tuple]:
    return [(r["rank"], r["agent"], pytest.approx(r[key]) if r[key] is not None else None) for r in rows]


def test_a_task_with_only_a_platform_failure_is_left_out_or_counts_0():
    doc = built.infra_error_bundle()
    # Site (003 "never goes into the score"): KBravo's k3 is left out: (50 + 50) / 2 = 50.0, first. KAlpha
    # (100 + 0 + 0) / 3 = 33.3 and KCharlie (0 + 50 + 50) / 3 = 33.3 tie; fewer tokens first: KAlpha 3 x 1,000 =
    # 3,000 against KCharlie 3 x 2,000 = 6,000.
    site = boards(doc)["overall"]
    assert table(site, "overall") == [(1, "kbravo", 50.0), (2, "kalpha", 100 / 3), (3, "kcharlie", 100 / 3)]
    assert site[0]["pending"] == ["k3"]
    # Other reading ("a task without runs counts as 0"): KBravo (50 + 50 + 0) / 3 = 33.3, level with both; its
    # k3 has no median run, so its tokens are unknown and it ranks after the two known totals.
    other = boards(doc, "infra-error=zero")["overall"]
    assert table(other, "overall") == [(1, "kalpha", 100 / 3), (2, "kcharlie", 100 / 3), (3, "kbravo", 100 / 3)]
    assert other[2]["pending"] == [] and other[2]["tokens"] is None


def test_the_range_is_the_overall_of_worst_and_best_runs_or_the_single_runs():
    doc = built.spread_bundle()
    # Mira: medians 50, 50, 25 -> 125 / 3 = 41.7. Site: worst runs 0, 25, 0 -> 25 / 3 = 8.3; best 100, 75, 25 ->
    # 200 / 3 = 66.7. Lee: 50 everywhere, 50-50.
    site = {r["agent"]: r for r in boards(doc)["overall"]}
    assert (site["mira"]["overall"], site["mira"]["min"], site["mira"]["max"]) == pytest.approx(
        (125 / 3, 25 / 3, 200 / 3)
    )
    # Other reading: the single worst run (0, on t1 and t3) and the single best (100, on t1): 0-100.
    other = {r["agent"]: r for r in boards(doc, "spread=single-runs")["overall"]}
    assert (other["mira"]["overall"], other["mira"]["min"], other["mira"]["max"]) == pytest.approx((125 / 3, 0, 100))
    assert [(r["agent"], r["rank"]) for r in boards(doc, "spread=single-runs")["overall"]] == [("lee", 1), ("mira", 2)]
    assert (other["lee"]["min"], other["lee"]["max"]) == (50.0, 50.0)


def test_a_run_with_unknown_usage_counts_or_does_not():
    doc = built.missing_usage_bundle()
    # Site: Ana's run cannot be shown over its 1,000,000-token budget, so it counts: 100 first, Ben 75.
    site = boards(doc)
    assert table(site["overall"], "overall") == [(1, "ana", 100.0), (2, "ben", 75.0)]
    assert [(r["agent"], r["median"]) for r in site["tasks"]["m1"]] == [("ana", 100.0), ("ben", 75.0)]
    # Other reading: it cannot show it stayed within the budget, so it does not count; m1 has no counted run for
    # Ana: 0 on the overall ("a task without runs counts as 0"), no median on the task board.
    other = boards(doc, "missing-usage=not-counted")
    assert table(other["overall"], "overall") == [(1, "ben", 75.0), (2, "ana", 0.0)]
    assert [(r["agent"], r["median"], r["not_counted"]) for r in other["tasks"]["m1"]] == [
        ("ben", 75.0, 0),
        ("ana", None, 1),
    ]


def test_a_checks_task_without_a_time_limit_has_none_or_000s_30_minutes():
    doc = built.time_limit_bundle()
    # Site (003 sets no default): no run of "long" is over a limit: Tess 100 (40 minutes), Uma 50.
    assert table(boards(doc)["overall"], "overall") == [(1, "tess", 100.0), (2, "uma", 50.0)]
    # Other reading (000 "(30 minutes by default)"): Tess's completed 2,400 s run is over 30 x 60 = 1,800 s and
    # does not count, so Tess has 0; Uma's 1,200 s run is within it.
    other = boards(doc, "time-limit-default=30-minutes")
    assert table(other["overall"], "overall") == [(1, "uma", 50.0), (2, "tess", 0.0)]


def test_the_scored_overall_is_over_the_rounds_tasks_or_the_tasks_run():
    doc = built.overall_mean_bundle()
    # Site: over the round's 5 tasks, a task without a score 0: Alpha 5 x 0.4 / 5 = 0.4; Bravo (0.5 + 0.6 + 0.64)
    # / 5 = 1.74 / 5 = 0.348.
    assert table(boards(doc)["overall"], "score") == [(1, "alpha", 0.4), (2, "bravo", 0.348)]
    # Other reading: over the tasks it ran: Bravo 1.74 / 3 = 0.58, first; Alpha still 0.4.
    assert table(boards(doc, "overall-mean=tasks-run")["overall"], "score") == [(1, "bravo", 0.58), (2, "alpha", 0.4)]


def test_the_heuristic_cap_is_on_the_judged_part_or_the_whole_score():
    doc = built.heuristic_cap_bundle()
    # Site: composite 0.6 x 10/10 + 0.4 x min(0.90, 0.60) = 0.6 + 0.24 = 0.84, a pass (>= 0.80), first; Ivo
    # 0.6 x 9/10 + 0.4 x 7/10 = 0.54 + 0.28 = 0.82.
    site = boards(doc)["overall"]
    assert table(site, "score") == [(1, "hana", 0.84), (2, "ivo", 0.82)]
    assert site[0]["pass_rate"] == 1.0 and site[0]["heuristic"] is True
    # Other reading: the whole score resting on the heuristic is capped at 0.60, a fail; Ivo first.
    other = boards(doc, "heuristic-cap=whole-score")["overall"]
    assert table(other, "score") == [(1, "ivo", 0.82), (2, "hana", 0.6)]
    assert other[1]["pass_rate"] == 0.0


def test_an_unsupported_task_is_tested_as_0_or_left_out():
    doc = built.unsupported_bundle()
    # Site: Alpha 2 + 2 + 0 = 4 points over 3 tested -> 4 / (2 x 3) x 10 = 6.7; Beta 2 + 2 + 1 = 5 -> 8.3.
    site = boards(doc)["overall"]
    assert table(site, "overall") == [(1, "beta", 50 / 6), (2, "alpha", 40 / 6)]
    assert (site[1]["tested"], site[1]["unsupported"]) == (3, ["a3"])
    # Other reading ("Untested tasks are left out"): Alpha 4 / (2 x 2) x 10 = 10.0, first; a3 still listed.
    other = boards(doc, "unsupported=left-out")["overall"]
    assert table(other, "overall") == [(1, "alpha", 10.0), (2, "beta", 50 / 6)]
    assert (other[0]["tested"], other[0]["unsupported"], other[0]["dimensions"]) == (2, ["a3"], {"calls": 10.0})


def test_a_weekly_run_is_decided_by_double_review_or_its_tester():
    doc = built.weekly_review_bundle()
    # Site: Rook's trip run: tester pass, second fail, so the third decides: fail. Rook 0 of 2 = 0%, Sage 1 of 2 =
    # 50%, first.
    site = boards(doc)["overall"]
    assert table(site, "pass_rate") == [(1, "sage", 0.5), (2, "rook", 0.0)]
    # Other reading ("One run is labeled and scored"): the tester's pass stands: Rook 50% too, and fewer
    # interventions (0 against Sage's 1) rank it first.
    other = boards(doc, "weekly-review=tester-alone")["overall"]
    assert table(other, "pass_rate") == [(1, "rook", 0.5), (2, "sage", 0.5)]
    assert (other[0]["interventions"], other[1]["interventions"]) == (0, 1)


def test_interventions_with_a_task_not_run_are_unknown_or_the_sum_of_the_runs():
    doc = built.interventions_bundle()
    # Both pass 2 of the week's 5 tasks: 40%. Site: Quill did not run expenses, so its sum is unknown and ranks
    # after Piper's 5 x 1 = 5.
    site = boards(doc)["overall"]
    assert [(r["rank"], r["agent"], r["pass_rate"], r["interventions"]) for r in site] == [
        (1, "piper", 0.4, 5),
        (2, "quill", 0.4, None),
    ]
    # Other reading: the sum over the 4 runs it has, 0, fewer than Piper's 5.
    other = boards(doc, "interventions=sum-of-runs")["overall"]
    assert [(r["rank"], r["agent"], r["interventions"]) for r in other] == [(1, "quill", 0), (2, "piper", 5)]


def test_the_sites_readings_are_the_default():
    doc = built.infra_error_bundle()
    (round_input,) = round_inputs(doc)
    assert compute_boards(round_input) == compute_boards(round_input, readings=SITE)
    assert compute_boards(round_input, readings=Readings.of({"infra-error": "left-out"})) == compute_boards(round_input)


def test_boards_under_another_reading_say_which_and_carry_no_standings():
    other = boards(built.infra_error_bundle(), "infra-error=zero")
    assert other["readings_taken"] == {"infra-error": "zero"}
    assert "standings" not in other and "statistics" in other and "pairs" in other


def test_rank_ranges_among_the_rows_a_view_shows():
    from scoring.reading_boards import rank_ranges

    # The site ranks A 1, B 2, C 3; one reading moves C to 1 (A 2, B 3). Showing only A and C (a tier view that
    # hides B), the site's view ranks A 1, C 2 and the reading's C 1, A 2: both range 1-2. On the whole board A is
    # 1-2, B 2-3 and C 1-3.
    site = [("a", 1), ("b", 2), ("c", 3)]
    moved = {
        "key": "q=x",
        "readings": {"q": "x"},
        "moves": {
            "overall": [
                {"agent": "c", "name": "C", "site": None, "other": {"rank": 1, "score": 9, "low": None, "high": None}},
                {"agent": "a", "name": "A", "site": None, "other": {"rank": 2, "score": 8, "low": None, "high": None}},
                {"agent": "b", "name": "B", "site": None, "other": {"rank": 3, "score": 7, "low": None, "high": None}},
            ]
        },
    }
    assert rank_ranges(site, "overall", [moved]) == {"a": [1, 2], "b": [2, 3], "c": [1, 3]}
    assert rank_ranges(site, "overall", [moved], shown={"a", "c"}) == {"a": [1, 2], "c": [1, 2]}
    assert rank_ranges(site, "safety", [moved]) == {}
