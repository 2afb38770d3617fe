"""A hand-made τ²-bench submission: benchmark domain "mini" with tasks "0", "1", "2", one trial each, rewards
1, 1, 0 (pass^1 = 2/3 = 66.667, claimed 66.7). Every variant of the checks changes one thing of this baseline."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

# The real submissions and the benchmark's own task sets (../shared/data/tau2, README there).
TAU2 = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "tau2"
BUTTON = TAU2 / "submissions" / "button-claude-opus-4-6_distyl-ai_2026-03-04"
TOOLORCHESTRA = TAU2 / "submissions" / "toolorchestra_nvidia_2025-12-02"


def refiled(folder: Path, into: Path) -> Path:
    """A copy of the τ² submission `folder` in `into` with each simulation filed under the task its grading names
    (`scoring.tau2_runs.graded_as`), the simulations whose grading names none given the ids left, in order.
    ToolOrchestra's files put each run under another task's id (a reshuffle: `graded_as_filed` fails and no editor
    may verify it); re-filed, every protocol check passes and only its declared models differ from what ran, which
    is what the tests of a disclosure need. Its figures per family are the same (the same runs)."""
    import shutil

    from scoring.tau2_runs import _actions_of, graded_as

    target = into / folder.name
    shutil.copytree(folder, target)
    for path in sorted((target / "trajectories").glob("*.json")):
        doc = json.loads(path.read_text())
        actions = {str(t["id"]): _actions_of(t) for t in doc["tasks"]}
        sims = doc["simulations"]
        # The task each simulation's grading names ("" none of the file's; None: it checks no action).
        named = {i: t for i, sim in enumerate(sims) if (t := graded_as(sim, "", actions))}
        taken = set(named.values())
        rest = []
        for i, sim in enumerate(sims):
            if i in named:
                sim["task_id"] = named[i]
            elif str(sim["task_id"]) not in taken:  # nothing to tell: it keeps its id where no re-filed run took it
                taken.add(str(sim["task_id"]))
            else:
                rest.append(sim)
        for sim, free in zip(rest, sorted(set(actions) - taken, key=lambda t: (len(t), t)), strict=False):
            sim["task_id"] = free
        path.write_text(json.dumps(doc))
    return target


TASKS = [
    {
        "id": str(i),
        "user_scenario": {"instructions": f"Ask for help with order {i}."},
        "evaluation_criteria": {"actions": [], "reward_basis": ["DB"]},
    }
    for i in range(3)
]
DECLARED: dict[str, Any] = {
    "model_name": "Mini Agent",
    "model_organization": "Org A",
    "submitting_organization": "Org A",
    "submission_date": "2026-03-01",
    "contact_info": {"email": "team@example.org", "name": "Team A"},
    "results": {"mini": {"pass_1": 66.7, "pass_2": None, "pass_3": None, "pass_4": None}},
    "submission_type": "standard",
    "methodology": {
        "notes": "A plain tool-calling loop.",
        "user_simulator": "u1",
        "verification": {"modified_prompts": False, "omitted_questions": False},
    },
}


def simulation(task: str, reward: float | None, *, trial: int = 0, seed: int = 626729, messages=None) -> dict:
    return {
        "id": f"sim-{task}-{trial}",
        "task_id": task,
        "trial": trial,
        "seed": seed,
        "termination_reason": "user_stop",
        "agent_cost": 0.25,
        "duration": 12.5,
        "start_time": "2026-03-01T10:00:00",
        "reward_info": None if reward is None else {"reward": reward, "reward_basis": ["DB"]},
        "messages": [
            {"role": "assistant", "content": "Hi! How can I help?", "tool_calls": None, "turn_idx": 0},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "name": "get_order", "arguments": {"order_id": task}}],
                "turn_idx": 1,
            },
            {"role": "tool", "id": "c1", "content": '{"status": "delivered"}', "turn_idx": 2},
        ]
        if messages is None
        else messages,
    }


def results(sims: list[dict], *, llm: str = "mini-agent", tasks=None, **info) -> dict:
    return {
        "timestamp": "2026-03-01T10:00:00",
        "info": {
            "num_trials": 1,
            "max_steps": 200,
            "max_errors": 10,
            "seed": 300,
            "agent_info": {"implementation": "llm_agent", "llm": llm},
            "user_info": {"implementation": "user_simulator", "llm": "u1"},
            "environment_info": {"domain_name": "mini"},
            **info,
        },
        "tasks": copy.deepcopy(TASKS if tasks is None else tasks),
        "simulations": sims,
    }


def baseline_sims() -> list[dict]:
    return [simulation("0", 1.0), simulation("1", 1.0), simulation("2", 0.0)]


def files(declared: dict | None = None, **trajectories: Any) -> dict[str, bytes]:
    """The submission's files by name; the baseline's one Results file when no trajectory is given."""
    trajectories = trajectories or {"mini.json": results(baseline_sims())}
    out = {"submission.json": json.dumps(DECLARED if declared is None else declared).encode()}
    for name, doc in trajectories.items():
        out[f"trajectories/{name if name.endswith('.json') else name + '.json'}"] = json.dumps(doc).encode()
    return out


def declared_with(**results_: Any) -> dict:
    doc = copy.deepcopy(DECLARED)
    doc["results"] = results_
    return doc


def claim(value: float) -> dict:
    return declared_with(mini={"pass_1": value})


def zipped(files_: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files_.items():
            z.writestr(name, data)
    return out.getvalue()


def mini_world():
    """Benchmark mini-tau (domain "mini", tasks mini-0..2) with its community track open; a team round "r1"
    (published, the team's agent "team-agent"); organizations A and B, B with agent "b-agent"; a submission
    key for each, and the team's upload key. Returns a namespace of them."""
    from types import SimpleNamespace

    from django.utils import timezone

    from leaderboard.api_keys import api_key_create
    from leaderboard.models import Agent, Benchmark, Entry, Organization, Round
    from submissions.catalogue import tau2_tasks_import, track_open

    tau2_tasks_import(data=json.dumps(TASKS).encode(), benchmark="mini-tau", domain="mini")
    bench = Benchmark.objects.get(slug="mini-tau")
    track = track_open(benchmark=bench)
    team_round = Round.objects.create(
        benchmark=bench, key="r1", status="published", published_at=timezone.now(), task_keys=["mini-0"]
    )
    team_agent = Agent.objects.create(slug="team-agent", name="Team agent")
    Entry.objects.create(round=team_round, agent=team_agent)
    org_a = Organization.objects.create(slug="org-a", name="Org A")
    org_b = Organization.objects.create(slug="org-b", name="Org B")
    b_agent = Agent.objects.create(slug="b-agent", name="B agent", organization=org_b)
    _, key_a = api_key_create(name="A", benchmark=bench, organization=org_a)
    _, key_b = api_key_create(name="B", benchmark=bench, organization=org_b)
    _, team_key = api_key_create(name="team CI", benchmark=bench)
    return SimpleNamespace(
        bench=bench,
        track=track,
        team_round=team_round,
        org_a=org_a,
        org_b=org_b,
        b_agent=b_agent,
        key_a=key_a,
        key_b=key_b,
        team_key=team_key,
    )
