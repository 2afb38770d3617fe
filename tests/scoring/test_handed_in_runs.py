"""003 "The run": "A run stops at the task's time limit or when the token budget runs out. Whatever is in /work at
that moment is what's handed in." A run stopped at the limit counts whatever overshoot its clock recorded; a
completed run past the limit does not; tokens stay strict. A checks task without a limit is refused, never
given another methodology's default. Worked out by hand through `recount`."""

from __future__ import annotations

import copy

import pytest

from scoring.bundle import BundleError
from scoring.recount import recount
from tests.builders.scoring import row_of
from tests.builders.site import checks_handed_in_bundle


def _boards(doc: dict) -> dict:
    return recount(doc)["rounds"][0]["boards"]


def test_a_run_stopped_at_the_time_limit_is_handed_in_and_scores_from_its_checks():
    boards = _boards(checks_handed_in_bundle())
    standings = boards["standings"]
    # stopped's shop timeout: 3,600.5 s on a 3,600 s limit, stopped there by the harness: 4/4 API, 2/2 steps ->
    # 50 x 4/4 + 50 x 2/2 = 100, and it counts.
    assert standings["stopped-shop-t1"]["standing"] == "counts"
    assert standings["stopped-shop-t1"]["score"] == 100.0
    # stopped on shop counts 100, 75 (50 x 4/4 + 50 x 1/2) and 50 (50 x 2/4 + 50 x 1/2): the median of three,
    # index (3 - 1) // 2 = 1 of worst to best (50, 75, 100) -> 75, range 50-100. Leaving the timeout out gave
    # the lower middle of (50, 75): 50.
    shop = row_of(boards["tasks"]["shop"], "stopped")
    assert (shop["median"], shop["runs"], shop["min"], shop["max"]) == (75.0, 3, 50.0, 100.0)
    assert shop["median_run"] == "stopped-shop-t2"
    # The overall, the mean median of the two to-spec tasks: stopped (75 + 50) / 2 = 62.5 (before: (50 + 50) / 2
    # = 50); steady (62.5 + 50) / 2 = 56.25. stopped now ranks first.
    overall = boards["overall"]
    assert [(r["agent"], r["overall"], r["rank"]) for r in overall] == [("stopped", 62.5, 1), ("steady", 56.25, 2)]


def test_a_completed_run_past_the_time_limit_and_a_timeout_over_its_budget_stay_out():
    standings = _boards(checks_handed_in_bundle())["standings"]
    # stopped's notes t1 completed at 3,601 s of 3,600 s: "Only runs within the task's time limit ... count".
    assert standings["stopped-notes-t1"]["standing"] == "over_limit"
    assert standings["stopped-notes-t1"]["why"] == "over the time limit: 3,601 s of 3,600 s"
    # steady's notes t2 was stopped at the limit but spent 1,000,001 tokens of 1,000,000, over by one token ("no
    # tolerance"): out, whatever its checks (4/4 and 2/2).
    assert standings["steady-notes-t2"]["standing"] == "over_limit"
    assert standings["steady-notes-t2"]["why"] == "over the token budget: 1,000,001 tokens of 1,000,000"


def test_a_timeout_counts_whatever_overshoot_it_recorded():
    # The same timeout recorded at 5,400 s (an hour and a half on a 60-minute task: the harness was slow to stop
    # it) is still what was handed in at the limit: stopped's shop median stays 75 and its overall 62.5.
    doc = checks_handed_in_bundle()
    next(r for r in doc["runs"] if r["id"] == "stopped-shop-t1")["wall_seconds"] = 5400.0
    boards = _boards(doc)
    assert boards["standings"]["stopped-shop-t1"]["standing"] == "counts"
    assert row_of(boards["overall"], "stopped")["overall"] == 62.5


@pytest.mark.parametrize(
    "field,what", [("time_limit_min", "time limit"), ("token_budget", "token budget")], ids=["time", "tokens"]
)
@pytest.mark.parametrize("absent", [False, True], ids=["null", "missing"])
def test_a_checks_task_without_a_limit_is_refused_naming_the_task(field, what, absent):
    # 003: "A run stops at the task's time limit or when the token budget runs out": both are part of every
    # checks task. A task without one is refused, not given 000's 30-minute default (which would drop a 40-minute
    # run in silence) nor read as unlimited.
    doc = copy.deepcopy(checks_handed_in_bundle())
    notes = doc["tasks"][1]
    if absent:
        del notes[field]
    else:
        notes[field] = None
    with pytest.raises(BundleError) as refused:
        recount(doc)
    assert refused.value.problems == [
        f"tasks[1].{field}: task 'notes' has no {what}: every checks task needs a time limit and a token budget "
        '(003: "A run stops at the task\'s time limit or when the token budget runs out"); none is assumed'
    ]
