"""Property tests: boards do not depend on input order, better outcomes never score lower, medians and
bests are taken from the runs themselves."""

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.boards import compute_boards
from scoring.checks import check_score, compute_checks_boards, counts
from scoring.common import rank_value
from scoring.methodologies import get
from scoring.scored import compute_scored_boards
from scoring.standings import STANDINGS
from scoring.types import RunInput, VerdictInput
from tests.builders.scoring import make_agent, make_round, make_task

AGENTS = [make_agent("a", primary_language="en"), make_agent("b", primary_language="zh"), make_agent("c")]
TASKS = [
    make_task(
        "c1",
        kind="core",
        dimensions=("web", "plan"),
        evaluation="auto",
        domain="code",
        time_limit_min=10,
        token_budget=500,
    ),
    make_task("c2", kind="core", dimensions=("plan",), evaluation="llm-judge", domain="data", version="2.0"),
    make_task("c3", kind="core", evaluation="composite"),
    make_task("s1", kind="safety", dimensions=("care",)),
    make_task("l1", kind="local-china"),
    make_task("t1", kind="to-spec", token_budget=800),
    make_task("t2", kind="to-spec", time_limit_min=None),
    make_task("i1", kind="invent"),
]
OUTCOMES = ("pass", "partial", "fail", "violation", "unsupported")
STATUSES = (
    "completed",
    "completed",
    "completed",
    "timeout",
    "over_budget",
    "infra_error",
    "region_blocked",
    "unsupported",
    "not_started",
)
small = st.integers(min_value=0, max_value=6)


@st.composite
def verdict_lists(draw):
    roles = draw(st.lists(st.sampled_from(("tester", "second", "third")), unique=True, max_size=3))
    return tuple(
        VerdictInput(
            role=r,
            outcome=draw(st.sampled_from(OUTCOMES)),
            matched=tuple(draw(st.lists(st.sampled_from(OUTCOMES), max_size=2))),
        )
        for r in roles
    )


@st.composite
def run_specs(draw):
    def maybe(strategy):
        return draw(st.none() | strategy)

    passed, total = sorted((draw(small), draw(small)))
    api_p, api_t = sorted((draw(small), draw(small)))
    br_p, br_t = sorted((draw(small), draw(small)))
    return dict(
        agent=draw(st.sampled_from([a.slug for a in AGENTS])),
        task=draw(st.sampled_from([t.key for t in TASKS])),
        trial=draw(st.integers(min_value=1, max_value=3)),
        status=draw(st.sampled_from(STATUSES)),
        outcome=maybe(st.sampled_from(OUTCOMES)),
        verdicts=draw(st.just(()) | verdict_lists()),
        language=maybe(st.sampled_from(("en", "zh"))),
        task_version=draw(st.sampled_from(("1.0", "2.0"))),
        score=maybe(st.floats(min_value=0, max_value=1)),
        tests_passed=passed if draw(st.booleans()) else None,
        tests_total=total,
        judge_scores=tuple(draw(st.lists(st.integers(min_value=1, max_value=10), max_size=3))),
        heuristic=maybe(st.floats(min_value=0, max_value=1)),
        app_started=maybe(st.booleans()),
        api_checks_passed=api_p,
        api_checks_total=api_t,
        browser_steps_passed=br_p,
        browser_steps_total=br_t,
        tokens_input=maybe(st.integers(min_value=0, max_value=600)),
        tokens_output=maybe(st.integers(min_value=0, max_value=300)),
        cost_usd=maybe(st.floats(min_value=0, max_value=5)),
        plan_label=maybe(st.sampled_from(("Plus", "Pro"))),
        wall_seconds=maybe(st.floats(min_value=0, max_value=2500)),
        interventions=maybe(st.integers(min_value=0, max_value=3)),
    )


@st.composite
def run_lists(draw):
    specs = draw(st.lists(run_specs(), max_size=25))
    runs = [RunInput(id=f"run{i}", round="r1", **s) for i, s in enumerate(specs)]
    # Some runs are re-runs of an earlier run of the same agent and task (at most one re-run each).
    taken: set[str] = set()
    for i, run in enumerate(runs):
        if not draw(st.booleans()):
            continue
        for orig in runs[:i]:
            if (orig.agent, orig.task) == (run.agent, run.task) and orig.rerun_of is None and orig.id not in taken:
                runs[i] = dataclasses.replace(run, rerun_of=orig.id)
                taken.add(orig.id)
                break
    return runs


def round_of(methodology, runs):
    return make_round(methodology, TASKS, runs, agents=AGENTS)


@settings(max_examples=150, deadline=None)
@given(runs=run_lists(), data=st.data(), methodology=st.sampled_from(("outcomes", "scored", "checks", "weekly")))
def test_it_never_depends_on_run_order(runs, data, methodology):
    shuffled = data.draw(st.permutations(runs))
    assert compute_boards(round_of(methodology, shuffled)) == compute_boards(round_of(methodology, runs))


def flip_one_fail(runs, data):
    fails = [i for i, r in enumerate(runs) if r.outcome == "fail" and not r.verdicts]
    if not fails:
        return None
    i = data.draw(st.sampled_from(fails))
    better = list(runs)
    better[i] = dataclasses.replace(runs[i], outcome="pass")
    return better


@settings(max_examples=150, deadline=None)
@given(runs=run_lists(), data=st.data())
def test_it_never_lowers_an_outcomes_score_when_a_fail_becomes_a_pass(runs, data):
    better = flip_one_fail(runs, data)
    if better is None:
        return
    before = compute_boards(round_of("outcomes", runs))
    after = compute_boards(round_of("outcomes", better))
    for board in (k for k, rows in before.items() if isinstance(rows, list)):  # not "pairs"
        old = {r["agent"]: r["overall"] for r in before[board]}
        for row in after[board]:
            if old.get(row["agent"]) is not None:
                assert row["overall"] >= old[row["agent"]]


@settings(max_examples=150, deadline=None)
@given(runs=run_lists(), data=st.data())
def test_it_never_lowers_a_weekly_pass_rate_when_a_fail_becomes_a_pass(runs, data):
    better = flip_one_fail(runs, data)
    if better is None:
        return
    old = {r["agent"]: r for r in compute_boards(round_of("weekly", runs))["overall"]}
    for row in compute_boards(round_of("weekly", better))["overall"]:
        if old[row["agent"]]["pass_rate"] is not None:
            assert row["pass_rate"] >= old[row["agent"]]["pass_rate"]
        assert row["points"] >= old[row["agent"]]["points"]


@settings(max_examples=150, deadline=None)
@given(runs=run_lists())
def test_it_takes_the_checks_median_from_a_counted_run(runs):
    by_id = {r.id: r for r in runs}
    tasks = {t.key: t for t in TASKS}
    for key, rows in compute_checks_boards(round_of("checks", runs))["tasks"].items():
        for row in rows:
            if row["median"] is None:
                continue
            counted = [
                r
                for r in runs
                if r.agent == row["agent"]
                and r.task == key
                and counts(r, tasks[key])
                and r.id not in {x.rerun_of for x in runs}
            ]
            assert row["median_run"] in {r.id for r in counted}
            assert row["median"] == check_score(by_id[row["median_run"]], tasks[key])
            assert row["median"] in {check_score(r, tasks[key]) for r in counted}
            assert row["min"] <= row["median"] <= row["max"]


@settings(max_examples=150, deadline=None)
@given(runs=run_lists())
def test_it_reports_a_best_score_at_least_every_trial(runs):
    for row in compute_scored_boards(round_of("scored", runs))["overall"]:
        for cell in row["tasks"].values():
            # Scores equal to nine decimals are equal (`rank_value`): a tie may go to an earlier trial a last bit lower.
            assert all(rank_value(cell["best"]) >= rank_value(s["score"]) for s in cell["scores"])
            assert cell["best_run"] in cell["runs"]
            assert 0 <= cell["pass_at_k"] <= 1


@settings(max_examples=80, deadline=None)
@given(runs=run_lists(), methodology=st.sampled_from(("outcomes", "scored", "checks", "weekly")))
def test_every_run_has_one_standing_and_the_runs_that_stand_are_the_boards_own(runs, methodology):
    # DESIGN.md data flow 3: each run's standing is decided with the board. Every run of the round has exactly one;
    # only a counted run stands; and each agent's number on each task (what the head-to-head shows) is the number
    # of the run standing for it there.
    rules = get(methodology)
    boards = compute_boards(round_of(methodology, runs))
    standings = boards["standings"]
    assert set(standings) == {r.id for r in runs}
    for s in standings.values():
        assert s["standing"] in STANDINGS and (s["standing"] == "counts") == (s["why"] is None)
        assert not s["stands"] or s["standing"] == "counts"
        assert (s["standing"] == "replaced") == (s["replaced_by"] is not None)
    for row in boards["overall"]:
        for number in rules.task_numbers(boards, row["agent"]).values():
            if number["run"] is not None and number["value"] is not None:
                s = standings[number["run"]]
                assert s["stands"] and (s["points"] if rules.counts_outcomes else s["score"]) == number["value"]
