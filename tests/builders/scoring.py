"""Small builders for scoring inputs: defaults via keyword arguments, like a hand-written test factory."""

from __future__ import annotations

from typing import Any

from scoring import methodologies
from scoring.types import AgentInput, EntryInput, RoundInput, RunInput, TaskInput, VerdictInput


def make_agent(slug: str, **kw: Any) -> AgentInput:
    kw.setdefault("name", slug.replace("-", " ").title())
    return AgentInput(slug=slug, **kw)


def make_task(key: str, **kw: Any) -> TaskInput:
    kw.setdefault("title", key)
    if "dimensions" in kw:
        kw["dimensions"] = tuple(kw["dimensions"])
    return TaskInput(key=key, **kw)


_counter = {"n": 0}


def make_run(agent: str, task: str, **kw: Any) -> RunInput:
    _counter["n"] += 1
    kw.setdefault("id", f"r{_counter['n']}")
    kw.setdefault("round", "r1")
    if "verdicts" in kw:
        kw["verdicts"] = tuple(v if isinstance(v, VerdictInput) else VerdictInput(**v) for v in kw["verdicts"])
    for f in ("judge_scores",):
        if f in kw:
            kw[f] = tuple(kw[f])
    return RunInput(agent=agent, task=task, **kw)


def verdicts(tester: str, second: str | None = None, third: str | None = None) -> tuple[VerdictInput, ...]:
    out = [VerdictInput(role="tester", outcome=tester)]
    if second is not None:
        out.append(VerdictInput(role="second", outcome=second))
    if third is not None:
        out.append(VerdictInput(role="third", outcome=third))
    return tuple(out)


def make_round(
    methodology: str, tasks: list[TaskInput], runs: list[RunInput], agents: list[AgentInput] | None = None, **kw: Any
) -> RoundInput:
    if agents is None:
        slugs = sorted({r.agent for r in runs})
        agents = [make_agent(s) for s in slugs]
    kw.setdefault("entries", tuple(EntryInput(agent=a.slug) for a in agents))
    if methodology in methodologies.REGISTRY:  # as `scoring.bundle.round_inputs` reads it
        kw.setdefault("double_review", methodologies.get(methodology).double_review)
    return RoundInput(
        benchmark=kw.pop("benchmark", "bench"),
        methodology=methodology,
        key=kw.pop("key", "r1"),
        tasks=tuple(tasks),
        agents=tuple(agents),
        runs=tuple(runs),
        **kw,
    )


def row_of(board: list[dict], agent: str) -> dict:
    return next(r for r in board if r["agent"] == agent)
