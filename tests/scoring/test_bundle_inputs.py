"""A bundle becomes the scoring's inputs field for field (seed 003, "Data": every run that counts can be
downloaded and recounted), with the bundle format's defaults where a field is left out."""

from scoring.bundle import round_inputs
from scoring.types import AgentInput, EntryInput, RoundInput, RunInput, TaskInput, VerdictInput


def full_bundle():
    return {
        "benchmark": {"slug": "artb", "name": "ARTB", "methodology": "checks", "params": {"pass_threshold": 0.7}},
        "agents": [
            {
                "slug": "a",
                "name": "Agent A",
                "organization": "Org",
                "primary_language": "zh",
                "languages": ["zh", "en"],
            },
            {"slug": "b"},
        ],
        "tasks": [
            {
                "key": "t1",
                "title": "Shop",
                "kind": "to-spec",
                "version": "2.1",
                "dimensions": ["web", "api"],
                "domain": "code",
                "evaluation": "checks",
                "time_limit_min": 45,
                "token_budget": 5000,
            },
            {"key": "t2"},
            {"key": "t3", "time_limit_min": None},
        ],
        "rounds": [
            {
                "key": "r1",
                "status": "draft",
                "starts_on": "2026-11-30",
                "tasks": ["t1", "t2"],
                "entries": [
                    {
                        "agent": "a",
                        "product_version": "1.2",
                        "plan": "Pro",
                        "region": "eu",
                        "network": "open",
                        "model": "m1",
                        "cli": "c1",
                    },
                    {"agent": "b"},
                ],
            },
            {"key": "r2"},
        ],
        "runs": [
            {
                "id": 7,
                "round": "r1",
                "agent": "a",
                "task": "t1",
                "task_version": "2.0",
                "trial": 3,
                "language": "zh",
                "status": "timeout",
                "outcome": "partial",
                "verdicts": [
                    {"role": "tester", "outcome": "pass", "note": "fine"},
                    {"role": "second", "matched": ["fail", "partial"]},
                ],
                "rerun_of": 5,
                "score": 55.5,
                "auto_pass_rate": 0.25,
                "tests_passed": 1,
                "tests_total": 4,
                "judge_scores": [7, 8.5],
                "heuristic": 0.4,
                "app_started": True,
                "api_checks_passed": 6,
                "api_checks_total": 10,
                "browser_steps_passed": 2,
                "browser_steps_total": 4,
                "tokens_input": 300,
                "tokens_output": 100,
                "tokens_cache_write": 50,
                "cost_usd": 0.12,
                "plan_label": "Pro plan",
                "wall_seconds": 90.5,
                "first_output_seconds": 2.5,
                "steps": 12,
                "interventions": 1,
                "checks_version": "c3",
            },
            {"id": "x", "round": "r2", "agent": "b", "task": "t2", "status": "completed"},
        ],
    }


def test_a_bundle_becomes_the_inputs_of_each_round_field_for_field():
    r1, r2 = round_inputs(full_bundle())
    agents = (
        AgentInput(slug="a", name="Agent A", organization="Org", primary_language="zh", languages=("zh", "en")),
        AgentInput(slug="b", name="b", organization=None, primary_language=None, languages=()),
    )
    t1 = TaskInput(
        key="t1",
        title="Shop",
        kind="to-spec",
        version="2.1",
        dimensions=("web", "api"),
        domain="code",
        evaluation="checks",
        time_limit_min=45,
        token_budget=5000,
    )
    # A task without its own limits: none stated (its methodology's default, if any, is the registry's).
    t2 = TaskInput(key="t2", title="", kind="core", version="1.0", dimensions=(), time_limit_min=None)
    run = RunInput(
        id="7",
        round="r1",
        agent="a",
        task="t1",
        task_version="2.0",
        trial=3,
        language="zh",
        status="timeout",
        outcome="partial",
        verdicts=(
            VerdictInput(role="tester", outcome="pass", matched=(), note="fine"),
            VerdictInput(role="second", outcome=None, matched=("fail", "partial"), note=""),
        ),
        rerun_of="5",
        score=55.5,
        auto_pass_rate=0.25,
        tests_passed=1,
        tests_total=4,
        judge_scores=(7.0, 8.5),
        heuristic=0.4,
        app_started=True,
        api_checks_passed=6,
        api_checks_total=10,
        browser_steps_passed=2,
        browser_steps_total=4,
        tokens_input=300,
        tokens_output=100,
        tokens_cache_write=50,
        cost_usd=0.12,
        plan_label="Pro plan",
        wall_seconds=90.5,
        first_output_seconds=2.5,
        steps=12,
        interventions=1,
        checks_version="c3",
    )
    assert r1 == RoundInput(
        benchmark="artb",
        methodology="checks",
        key="r1",
        tasks=(t1, t2),
        agents=agents,
        entries=(
            EntryInput(agent="a", product_version="1.2", plan="Pro", region="eu", network="open", model="m1", cli="c1"),
            EntryInput(agent="b"),
        ),
        runs=(run,),
        params={"pass_threshold": 0.7},
        status="draft",
        starts_on="2026-11-30",
    )
    assert all(type(s) is float for s in r1.runs[0].judge_scores)
    # r2 names no task set: its tasks are those with a run in it (t2). A round without a status is published.
    # A run without a task version or trial is version 1.0, trial 1, and re-runs nothing.
    assert r2 == RoundInput(
        benchmark="artb",
        methodology="checks",
        key="r2",
        tasks=(t2,),
        agents=agents,
        entries=(),
        runs=(RunInput(id="x", round="r2", agent="b", task="t2", status="completed", task_version="1.0", trial=1),),
        params={"pass_threshold": 0.7},
        status="published",
        starts_on=None,
    )


def test_one_round_of_a_bundle_and_a_task_without_a_time_limit():
    doc = full_bundle()
    doc["rounds"][1]["tasks"] = ["t3"]
    # A time limit given as null is no limit (not the 30-minute default).
    (r2,) = round_inputs(doc, "r2")
    assert r2.key == "r2" and r2.tasks == (TaskInput(key="t3", time_limit_min=None),)
    assert round_inputs(doc, "r9") == []
    # A benchmark without params has empty params.
    del doc["benchmark"]["params"]
    assert [r.params for r in round_inputs(doc)] == [{}, {}]
    # A round without runs and without a task set has neither.
    doc["rounds"].append({"key": "r3"})
    r3 = round_inputs(doc, "r3")[0]
    assert (r3.tasks, r3.runs) == ((), ())
