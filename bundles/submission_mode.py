"""What a submission from an outside team may write through `bundle_import` (its `submission` mode): runs with
their transcripts and one entry of the submitting organization's agent, into the round its track sits on only,
even though that round is published; never another round, another organization's agent, a new task, the
benchmark's settings, votes, round parameters or changelog lines, nor what only the site's own reviewers and
checks write: outcome labels, verdicts, disputes, preview links, evidence beyond transcripts, tiers. Shared rows
are refused as an upload key's are (`bundles.shared`)."""

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
    problems += review_record_problems(doc)
    problems += _agent_problems(doc.get("agents") or [], scope)
    if doc.get("votes"):
        problems.append("votes: a submission carries no votes")
    return problems


# What a run of a submission may not carry, and why: the records of the site's own review and of the vote.
REVIEW_FIELDS = {
    "outcome": "a run's outcome label is the site's reviewers' (on an outcomes or weekly board it is the verdict "
    "where no reviewer gave one); a submission carries none",
    "verdicts": "verdicts are the site's reviewers'; a submission carries none",
    "disputes": "disputes are raised on the site; a submission carries none",
    "preview_url": "a live preview is the vote's; a submission carries none",
    "marks": "marks belong to a recording; a submission carries transcripts only",
}
ENTRY_RECORDS = {
    "tier": "set by the submission checks; a submission sends none",
    "submission": "set by the site; a submission sends none",
}


def review_record_problems(doc: dict) -> list[str]:
    """What a submission's runs and entries carry that only the site writes (each with its path): outcome labels,
    verdicts, disputes, preview links, evidence other than a transcript, and an entry's tier."""
    problems = []
    for i, run in enumerate(doc.get("runs") or []):
        if not isinstance(run, dict):
            continue
        problems += [f"runs[{i}].{name}: {why}" for name, why in REVIEW_FIELDS.items() if run.get(name)]
        for j, item in enumerate(run.get("evidence") or []):
            kind = item.get("kind") if isinstance(item, dict) else None
            if kind != "transcript":
                problems.append(f"runs[{i}].evidence[{j}]: a submission's evidence is its transcript ({kind!r} given)")
    for i, r in enumerate(doc.get("rounds") or []):
        for j, e in enumerate((r.get("entries") or []) if isinstance(r, dict) else []):
            if isinstance(e, dict):
                problems += [f"rounds[{i}].entries[{j}].{k}: {why}" for k, why in ENTRY_RECORDS.items() if k in e]
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
