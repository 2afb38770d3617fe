"""A τ² simulation as one of the site's runs (a bundle's `runs[]` document) with its transcript
(docs/transcripts.md). Pure: plain values in and out.

The run's id is `{domain}-{task id}-t{trial}` (the submission's `s{id}-` put before it when it is written); its
task `{domain}-{task id}` (the key `import_tau2_tasks` gives); its trial τ²'s `trial` + 1 (the site counts from
1); its status `infra_error` for τ²'s infrastructure error, `timeout` for its timeout, else `completed`; its score
the reward (none: unscored).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import datetime
from typing import Any

from .submission_types import Sim, SubmittedFile
from .tau2 import TAU2_INFRA, Tau2File, task_fingerprint

FORMAT = "agent-leaderboard-transcript/1"


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _message(m: dict) -> dict | None:
    role = m.get("role")
    if role not in ("system", "user", "assistant", "tool"):
        return None
    out: dict[str, Any] = {"role": role, "text": _text(m.get("content"))}
    calls = m.get("tool_calls")
    if role != "tool" and isinstance(calls, list) and calls:
        out["tool_calls"] = [
            {"id": _text(c.get("id")), "function": _text(c.get("name")), "arguments": c.get("arguments")}
            for c in calls
            if isinstance(c, dict)
        ]
    if role == "tool":
        out["tool_call_id"] = _text(m.get("id"))
        if m.get("error"):
            out["error"] = out["text"] or "the tool failed"
    return out


def transcript(sim: dict) -> dict[str, Any]:
    info = sim.get("reward_info") if isinstance(sim.get("reward_info"), dict) else {}
    messages = [out for m in sim.get("messages") or [] if isinstance(m, dict) and (out := _message(m))]
    doc: dict[str, Any] = {"format": FORMAT, "messages": messages}
    if info:
        doc["scores"] = [
            {
                "scorer": "tau2 reward",
                "value": info.get("reward"),
                "metadata": {
                    "reward_basis": info.get("reward_basis"),
                    "termination_reason": sim.get("termination_reason"),
                },
            }
        ]
    if sim.get("termination_reason") in TAU2_INFRA:
        doc["error"] = "infrastructure error"
    return doc


def run_status(sim: dict) -> str:
    reason = sim.get("termination_reason")
    if reason in TAU2_INFRA:
        return "infra_error"
    return "timeout" if reason == "timeout" else "completed"


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def run_doc(sim: dict, *, domain: str, trial: int) -> dict:
    """`trial`: 1-based. Its round, agent and task version (the stored version whose fingerprint the file's task
    has) are given when it is written (`submissions.reading.Read.runs`)."""
    task_id = str(sim["task_id"])
    reward = (sim.get("reward_info") or {}).get("reward") if isinstance(sim.get("reward_info"), dict) else None
    doc: dict[str, Any] = {
        "id": f"{domain}-{task_id}-t{trial}",
        "task": f"{domain}-{task_id}",
        "trial": trial,
        "status": run_status(sim),
        "score": float(reward) if isinstance(reward, int | float) and not isinstance(reward, bool) else None,
        "cost_usd": _number(sim.get("agent_cost")),
        "wall_seconds": _number(sim.get("duration")),
        "transcript": transcript(sim),
    }
    if isinstance(sim.get("start_time"), str):
        try:
            datetime.fromisoformat(sim["start_time"])
            doc["started_at"] = sim["start_time"]
        except ValueError:
            pass
    return doc


def _model(info: dict | None, side: str) -> str | None:
    part = (info or {}).get(side)
    if not isinstance(part, dict) or not part.get("llm"):
        return None
    args = part.get("llm_args")
    return str(part["llm"]) + (f" {json.dumps(args, sort_keys=True)}" if args else "")


def _action_ids(actions: Any) -> frozenset[str]:
    """The `action_id`s of a list of τ² actions (those without one left out)."""
    if not isinstance(actions, list):
        return frozenset()
    return frozenset(str(a["action_id"]) for a in actions if isinstance(a, dict) and a.get("action_id") is not None)


def _actions_of(task: dict) -> frozenset[str] | None:
    """The action ids of a task definition's `evaluation_criteria.actions`; None when those cannot be read (the
    criteria or the actions not what τ² writes): then nothing can be told of the runs filed under it."""
    criteria = task.get("evaluation_criteria") or {}
    actions = criteria.get("actions") if isinstance(criteria, dict) else None
    if not isinstance(criteria, dict) or not isinstance(actions, list | None):
        return None
    return _action_ids(actions or [])


def graded_as(sim: dict, task: str, actions_of: dict[str, frozenset[str] | None]) -> str | None:
    """Which of the file's tasks graded the simulation, when not its own `task`. τ²'s evaluator checks each
    action of the task it grades (`reward_info.action_checks`, one per action of that task's
    `evaluation_criteria.actions`, each naming its `action_id`), so those ids name the task that was graded: the
    id of the file's task with exactly those actions when it is another ("" when none has them), None when it
    is `task`, or when the reward checks no action or the file carries no task definitions (nothing to tell)."""
    info = sim.get("reward_info")
    checks = info.get("action_checks") if isinstance(info, dict) else None
    if not actions_of or not isinstance(checks, list) or actions_of.get(task, frozenset()) is None:
        return None  # nothing to compare: no definitions, no checks, or its own task's actions unreadable
    checked = _action_ids([c.get("action") for c in checks if isinstance(c, dict)])
    if not checked or actions_of.get(task) == checked:
        return None
    return next((other for other, ids in actions_of.items() if ids == checked), "")


def from_tau2(f: Tau2File) -> SubmittedFile:
    """A τ² trajectory file as the checks read it: trials 1-based (τ²'s count from 0; a simulation without
    one is numbered in file order per task), infrastructure errors and unrewarded simulations not counted, and
    the task each was graded as where that is not its own (`graded_as`)."""
    numbered: Counter[str] = Counter()
    actions_of = {str(t.get("id")): _actions_of(t) for t in f.tasks or [] if isinstance(t, dict)}
    sims = []
    for s in f.simulations:
        task = str(s["task_id"])
        numbered[task] += 1
        trial = s["trial"] + 1 if isinstance(s.get("trial"), int) else numbered[task]
        infra = s.get("termination_reason") in TAU2_INFRA
        reward = (s.get("reward_info") or {}).get("reward") if isinstance(s.get("reward_info"), dict) else None
        counted = not infra and reward is not None
        sim = Sim(task, trial, s.get("seed"), counted, infra, bool(s.get("messages")))
        sims.append(replace(sim, graded_as=graded_as(s, task, actions_of)))
    prints = (
        None if f.tasks is None else {str(t.get("id")): task_fingerprint(t) for t in f.tasks if isinstance(t, dict)}
    )
    return SubmittedFile(
        f.name, f.domain, sims, f.info, prints, _model(f.info, "agent_info"), _model(f.info, "user_info")
    )
