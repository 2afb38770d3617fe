"""What a submission from an outside team may write through `bundle_import` (its `submission` mode): runs and
one entry of the submitting organization's agent, into the round its track sits on only, even though that
round is published; never another round, another organization's agent, a new task, the benchmark's settings,
votes, round parameters or changelog lines. Shared rows are refused as an upload key's are (`bundles.shared`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.models import Agent


@dataclass(frozen=True)
class SubmissionScope:
    benchmark: str  # slug
    round: str  # key of the track's round
    organization_id: int
    organization_name: str
    tasks: frozenset[str]  # the benchmark's stored task keys


def submission_problems(doc: dict, scope: SubmissionScope) -> list[str]:
    problems = []
    if (doc.get("benchmark") or {}).get("slug") != scope.benchmark:
        problems.append(f"benchmark.slug: a submission to {scope.benchmark!r} writes only there")
    rounds = [r for r in doc.get("rounds") or [] if isinstance(r, dict)]
    if [r.get("key") for r in rounds] != [scope.round]:
        problems.append(f"rounds: a submission writes into round {scope.round!r} only")
    for i, r in enumerate(rounds):
        for part in ("parameters", "changelog"):
            if r.get(part):
                problems.append(f"rounds[{i}].{part}: a submission carries none")
        if len(r.get("entries") or []) != 1:
            problems.append(f"rounds[{i}].entries: a submission enters one agent")
    for i, run in enumerate(doc.get("runs") or []):
        if isinstance(run, dict) and run.get("round") != scope.round:
            problems.append(f"runs[{i}].round: {run.get('round')!r} is not {scope.round!r}, the track's round")
    for i, t in enumerate(doc.get("tasks") or []):
        if isinstance(t, dict) and t.get("key") not in scope.tasks:
            problems.append(
                f"tasks[{i}].key: {t.get('key')!r} is not a task of {scope.benchmark!r}; a submission adds none"
            )
    problems += _agent_problems(doc.get("agents") or [], scope)
    if doc.get("votes"):
        problems.append("votes: a submission carries no votes")
    return problems


def _agent_problems(agents: list[Any], scope: SubmissionScope) -> list[str]:
    problems = []
    slugs = [a.get("slug") for a in agents if isinstance(a, dict)]
    stored = {a.slug: a for a in Agent.objects.filter(slug__in=[s for s in slugs if isinstance(s, str)])}
    for i, a in enumerate(agents):
        if not isinstance(a, dict):
            continue
        agent = stored.get(a.get("slug"))
        if agent is not None and agent.organization_id != scope.organization_id:
            problems.append(f"agents[{i}].slug: agent {agent.slug!r} is not an agent of {scope.organization_name}")
        elif agent is None and a.get("organization") != scope.organization_name:
            problems.append(f"agents[{i}].organization: a new agent of this submission is {scope.organization_name}'s")
    return problems
