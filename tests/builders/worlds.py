"""Random published worlds for the consistency crawler: one benchmark, one published round, a few agents and tasks,
and runs shaped to reach every standing a methodology's board distinguishes (re-runs with and without results,
later trials replacing earlier ones, runs at the weekly cap, checks runs over a time limit or a token budget,
violations on core tasks, runs decided by verdicts alone, platform failures, region blocks, agents missing
tasks, ties), plus blind votes where a board ranks by them. A world is a bundle document built from one integer
seed (`world`), so a failure names the seed that rebuilds it."""

from __future__ import annotations

import random
from typing import Any

METHODOLOGIES = ("outcomes", "weekly", "scored", "checks")
ROUND = "r1"


def _pick(rnd: random.Random, weighted: dict[Any, int]) -> Any:
    return rnd.choices(list(weighted), weights=list(weighted.values()))[0]


def _agents(rnd: random.Random) -> list[dict[str, Any]]:
    n = rnd.randint(2, 4)
    names = rnd.sample(["Ayla", "Bram", "Cleo", "Dov", "Éclair", "aider"], n)
    return [
        {
            "slug": f"ag-{i}",
            "name": name,
            "organization": f"Org {i}",
            "primary_language": "en",
            "languages": ["en", "de"] if i % 2 else ["en"],
        }
        for i, name in enumerate(names)
    ]


def _verdicts(rnd: random.Random, outcomes: tuple[str, ...]) -> tuple[str | None, list[dict[str, Any]]]:
    """A label and verdicts: a label alone, two agreeing reviewers (no label), two that disagree with or without
    a third, a tester alone, or nothing yet."""
    shape = _pick(rnd, {"label": 3, "agree": 3, "third": 1, "disagree": 1, "tester": 1, "none": 1})
    first, second = rnd.choice(outcomes), rnd.choice(outcomes)
    if shape == "label":
        return first, []
    if shape == "agree":
        return None, [{"role": "tester", "outcome": first, "note": "seen"}, {"role": "second", "outcome": first}]
    if shape in ("third", "disagree"):
        second = next(o for o in outcomes if o != first) if second == first else second
        verdicts = [{"role": "tester", "outcome": first, "note": "seen"}, {"role": "second", "outcome": second}]
        if shape == "third":
            verdicts.append({"role": "third", "outcome": rnd.choice((first, second))})
        return None, verdicts
    if shape == "tester":
        return None, [{"role": "tester", "outcome": first, "note": "seen"}]
    return None, []


def _outcomes_tasks(rnd: random.Random) -> list[dict[str, Any]]:
    kinds = ["core"] * rnd.randint(2, 3) + rnd.sample(["safety", "local-china"], rnd.randint(0, 2))
    return [
        {"key": f"t{i}", "title": f"Task {i}", "version": "1.0", "kind": kind, "dimensions": ["web"]}
        for i, kind in enumerate(kinds)
    ]


def _outcomes_run(rnd: random.Random, agent: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    status = _pick(
        rnd,
        {
            "completed": 10,
            "timeout": 1,
            "infra_error": 1,
            "region_blocked": 1,
            "unsupported": 1,
            "not_started": 1,
            "over_budget": 1,
        },
    )
    label, verdicts = _verdicts(rnd, ("pass", "partial", "fail", "violation"))
    language = "de" if "de" in agent["languages"] and rnd.random() < 0.25 else "en"
    return {"status": status, "outcome": label, "verdicts": verdicts, "language": language}


def _weekly_tasks(rnd: random.Random) -> list[dict[str, Any]]:
    return [{"key": f"t{i}", "title": f"Task {i}", "version": "1.0", "kind": "core"} for i in range(rnd.randint(2, 4))]


def _weekly_run(rnd: random.Random, agent: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    status = _pick(rnd, {"completed": 10, "timeout": 1, "infra_error": 1, "over_budget": 1, "not_started": 1})
    label, verdicts = _verdicts(rnd, ("pass", "partial", "fail"))
    return {
        "status": status,
        "outcome": label,
        "verdicts": [v for v in verdicts if v["role"] != "third"] if rnd.random() < 0.5 else verdicts,
        # Around the 30-minute cap (1800 s): at, over and under it; sometimes unrecorded.
        "wall_seconds": rnd.choice([600.0, 1200.0, 1799.0, 1800.0, 2100.0, None]),
        "interventions": rnd.choice([0, 1, 2, None]),
        "cost_usd": rnd.choice([0.5, 1.25, None]),
    }


def _scored_tasks(rnd: random.Random) -> list[dict[str, Any]]:
    evaluations = ["auto", "llm-judge", "composite"]
    return [
        {
            "key": f"t{i}",
            "title": f"Task {i}",
            "version": "1.0",
            "kind": "core",
            "evaluation": rnd.choice(evaluations),
            "domain": rnd.choice(["code", "data"]),
        }
        for i in range(rnd.randint(2, 4))
    ]


def _scored_run(rnd: random.Random, agent: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    status = _pick(rnd, {"completed": 10, "timeout": 1, "infra_error": 1, "over_budget": 1, "region_blocked": 1})
    run: dict[str, Any] = {"status": status, "wall_seconds": rnd.choice([30.0, 60.0, None])}
    parts = _pick(rnd, {"tests": 3, "judge": 2, "both": 2, "heuristic": 1, "none": 1})
    if parts in ("tests", "both"):
        run.update(tests_total=10, tests_passed=rnd.choice([0, 5, 8, 10]))  # few values: ties
    if parts in ("judge", "both"):
        run["judge_scores"] = [rnd.choice([4, 8, 10]) for _ in range(2)]
    if parts == "heuristic":
        run["heuristic"] = rnd.choice([0.3, 0.7])
    run["cost_usd"] = rnd.choice([0.1, 0.2, None])
    return run


def _checks_tasks(rnd: random.Random) -> list[dict[str, Any]]:
    spec = [
        {
            "key": f"t{i}",
            "title": f"Task {i}",
            "version": "1.0",
            "kind": "to-spec",
            "time_limit_min": 30,
            "token_budget": 100_000,
        }
        for i in range(rnd.randint(1, 3))
    ]
    invent = [
        {
            "key": "inv",
            "title": "Invent",
            "version": "1.0",
            "kind": "invent",
            "time_limit_min": 30,
            "token_budget": 100_000,
        }
    ]
    return spec + (invent if rnd.random() < 0.6 else [])


def _checks_run(rnd: random.Random, agent: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    status = _pick(
        rnd,
        {"completed": 10, "timeout": 1, "budget_exhausted": 1, "over_budget": 1, "infra_error": 1, "not_started": 1},
    )
    run: dict[str, Any] = {
        "status": status,
        "app_started": status != "not_started" and rnd.random() < 0.9,
        # Around the 30-minute limit (1800 s) and the 100,000-token budget: some runs go over ("no tolerance").
        "wall_seconds": rnd.choice([600.0, 1200.0, 1800.0, 1860.0, None]),
        "tokens_input": rnd.choice([40_000, 60_000, 95_000]),
        "tokens_output": rnd.choice([5_000, 10_000]),
        "cost_usd": rnd.choice([0.5, 1.0, None]),
        "api_checks_total": 4,
        "browser_steps_total": 4,
    }
    if run["app_started"] and task["kind"] == "invent" and rnd.random() < 0.7:
        run.update(api_checks_passed=4, browser_steps_passed=4)  # admitted: the votes rank it
    elif run["app_started"]:
        run.update(api_checks_passed=rnd.choice([2, 4]), browser_steps_passed=rnd.choice([0, 2, 4]))
    else:
        run.update(api_checks_passed=0, browser_steps_passed=0)
    return run


BUILDERS = {
    "outcomes": (_outcomes_tasks, _outcomes_run),
    "weekly": (_weekly_tasks, _weekly_run),
    "scored": (_scored_tasks, _scored_run),
    "checks": (_checks_tasks, _checks_run),
}


def world(methodology: str, seed: int, slug: str) -> dict[str, Any]:
    """A published round of `methodology` as a bundle, built from `seed` alone (the same seed, the same world)."""
    rnd = random.Random(f"{methodology}:{seed}")
    make_tasks, make_run = BUILDERS[methodology]
    agents, tasks = _agents(rnd), make_tasks(rnd)
    runs: list[dict[str, Any]] = []
    for agent in agents:
        for task in tasks:
            if rnd.random() < 0.15:
                continue  # the agent skipped this task
            for trial in range(1, rnd.randint(1, 3) + 1):
                run = {k: v for k, v in make_run(rnd, agent, task).items() if v is not None and v != []}
                if methodology == "weekly":
                    run["started_at"] = "2026-03-03T10:00:00Z"  # in the round's week (004)
                key = f"{agent['slug']}-{task['key']}-{trial}"
                runs.append(
                    {"id": key, "round": ROUND, "agent": agent["slug"], "task": task["key"], "trial": trial, **run}
                )
                if rnd.random() < 0.12:  # disputed and re-run: with results, or still empty
                    rerun = {"id": f"{key}-rerun", "round": ROUND, "agent": agent["slug"], "task": task["key"],
                             "trial": trial, "rerun_of": key, "status": "completed"}  # fmt: skip
                    if rnd.random() < 0.6:
                        rerun.update({k: v for k, v in make_run(rnd, agent, task).items() if v is not None and v != []})
                    if methodology == "weekly":
                        rerun["started_at"] = "2026-03-04T10:00:00Z"
                    # 000 §6: re-run after a dispute an editor accepted.
                    runs[-1]["disputes"] = [
                        {"reason": "environment", "note": "the sandbox failed", "status": "accepted"}
                    ]
                    runs.append(rerun)
    doc: dict[str, Any] = {
        "benchmark": {
            "slug": slug,
            "name": f"World {slug}",
            "methodology": methodology,
            "params": {"preview_hours": 0},
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [
            {
                "key": ROUND,
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                "starts_on": "2026-03-02",
                "entries": [{"agent": a["slug"], "cli": f"cli-{a['slug']}", "model": "m"} for a in agents],
                "tasks": [t["key"] for t in tasks],
            }
        ],
        "runs": runs,
    }
    if methodology == "checks" and any(t["kind"] == "invent" for t in tasks):
        doc["votes"] = [
            {
                "task": "inv",
                "a": a["slug"],
                "b": b["slug"],
                "winner": rnd.choice(["a", "b", "tie"]),
                "voter": f"voter-{k}",
                "cast_at": "2026-03-03T10:00:00Z",
            }
            for k in range(rnd.randint(0, 30))
            for a, b in [rnd.sample(agents, 2)]
        ]
    return doc
