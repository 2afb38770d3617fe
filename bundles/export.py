"""Writing a benchmark out as a results bundle (the format `bundles.importer` reads and `recount` scores).

The public download holds published rounds only, with no user, reviewer or voter identity beyond the role
(voters as stable pseudonyms), and no vote naming an agent that is not public yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from leaderboard.models import Agent, Benchmark, Round, Task, TaskVersion, task_input
from runs.models import CheckResult, Dispute, Evidence, Run, Verdict
from scoring.review import review_decided
from scoring.run_setup import RUN_SETUP_FIELDS
from voting.models import Vote, VoteCell

from .fields import (
    BLANK_STRING_FIELDS,
    DATETIME_FIELDS,
    DISPUTE_FIELDS,
    ENTRY_FIELDS,
    PUBLIC_RUN_SCALARS,
    RUN_SCALARS,
    iso,
    plain_number,
)
from .votes_file import VOTES_FILE_FORMAT, pseudonym, votes_file_rows


def voter_pseudonym(vote: Vote) -> str:
    """The vote's voter as a download shows them (`votes_file.pseudonym`)."""
    return pseudonym(vote.voter_id, vote.voter_label)


def _benchmark_params(benchmark: Benchmark) -> dict[str, Any]:
    """The benchmark's params as a bundle carries them, with its vendor window and, on a methodology that has one
    (scored), the pass threshold it states (none stated: the methodology's default, as on import)."""
    threshold = benchmark.pass_threshold if benchmark.pass_mark is not None else None
    return {
        **(benchmark.params or {}),
        **({"pass_threshold": threshold} if threshold is not None else {}),
        "preview_hours": benchmark.preview_hours,
    }


def bundle_export(
    *,
    benchmark: Benchmark,
    include_unpublished: bool = False,
    round_keys: list[str] | None = None,
    include_votes: bool = True,
    votes_inline_limit: int | None = None,
    votes_file_url: str = "",
) -> dict:
    """The benchmark as a bundle. Public downloads leave `include_unpublished` off: draft and preview rounds,
    their runs and their parameters are then absent, so is every task no published round holds
    (`TaskQuerySet.public`), and so is every vote naming an agent that has no
    published entry yet (`VoteQuerySet.public`), and every run's private fields (`PRIVATE_RUN_FIELDS`: the
    live preview's address, which the blind vote frames).

    With more than `votes_inline_limit` votes, `votes` is left empty and `votes_file` says where the votes
    file is (`votes_file_url`) and how many votes it holds: a download of millions of votes is streamed
    (bundles.votes_file), never built in memory."""
    rounds_qs = benchmark.rounds.order_by("starts_on", "published_at", "key")
    if not include_unpublished:
        rounds_qs = rounds_qs.published()
    if round_keys is not None:
        rounds_qs = rounds_qs.filter(key__in=round_keys)
    rounds = list(rounds_qs.prefetch_related("entries__agent", "parameters__task", "changelog__run"))
    round_ids = [r.id for r in rounds]
    tasks_qs = benchmark.tasks.all() if include_unpublished else benchmark.tasks.public()
    tasks = list(tasks_qs.prefetch_related("versions").order_by("position", "key"))
    decided = None if include_unpublished else _review_decider(benchmark, tasks)
    setup = benchmark.rules.run_setup is not None
    runs = _run_docs(round_ids, public=not include_unpublished, decided=decided, setup=setup)
    agent_ids = {e.agent_id for r in rounds for e in r.entries.all()}
    votes_qs = votes_file_rows(benchmark, include_unpublished=include_unpublished)
    votes_file = _votes_file(votes_qs, votes_inline_limit, votes_file_url) if include_votes else None
    if votes_file is not None:
        agent_ids.update(_voted_agents(benchmark, public=not include_unpublished))
    inline = include_votes and votes_file is None
    votes = list(votes_qs.select_related("task", "agent_a", "agent_b").order_by("cast_at", "id")) if inline else []
    for v in votes:
        agent_ids.update((v.agent_a_id, v.agent_b_id))
    agents = list(Agent.objects.filter(id__in=agent_ids).select_related("organization").order_by("slug"))

    doc: dict[str, Any] = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {
            "slug": benchmark.slug,
            "name": benchmark.name,
            "methodology": benchmark.methodology,
            "description": benchmark.description,
            "task_set_version": benchmark.task_set_version,
            "params": _benchmark_params(benchmark),
        },
        "agents": [_agent_doc(a) for a in agents],
        "tasks": [_task_doc(t) for t in tasks],
        "rounds": [_round_doc(r) for r in rounds],
        "runs": runs,
        "votes": [_vote_doc(v) for v in votes],
    }
    if votes_file is not None:
        doc["votes_file"] = votes_file
    return doc


def _votes_file(votes, limit: int | None, url: str) -> dict | None:
    """Where the votes are when there are more than `limit` of them (None: inline them)."""
    if limit is None:
        return None
    n = votes.count()
    return {"url": url, "format": VOTES_FILE_FORMAT, "votes": n} if n > limit else None


def _voted_agents(benchmark: Benchmark, *, public: bool) -> set[int]:
    """Agents named by the benchmark's counted votes, read from the vote cells (a few hundred rows). A public
    vote's agents have published entries, so they are in the bundle already; this covers the rest."""
    cells = VoteCell.objects.filter(task__benchmark=benchmark, n__gt=0)
    pairs = (cells.public() if public else cells).values_list("agent_lo_id", "agent_hi_id")
    return {agent for pair in pairs for agent in pair}


def _agent_doc(a: Agent) -> dict:
    return {
        "slug": a.slug,
        "name": a.name,
        "organization": a.organization.name if a.organization else None,
        "primary_language": a.primary_language or None,
        "languages": list(a.languages or []),
    }


def _version_doc(v: TaskVersion) -> dict:
    return {
        "version": v.version,
        "prompt": v.prompt,
        "parameters": list(v.parameters or []),
        "interruption": v.interruption or None,
        "evidence": list(v.evidence or []),
        "scenarios": list(v.scenarios or []),
        "criteria": v.criteria or {},
        "observes_later_effects": v.observes_later_effects,
        "published_at": iso(v.published_at),
        "change_note": v.change_note or None,
    }


def _task_doc(t: Task) -> dict:
    versions = {v.version: v for v in t.versions.all()}
    current = versions.get(t.version)
    doc = {
        "key": t.key,
        "title": t.title,
        "version": t.version,
        "kind": t.kind,
        "dimensions": list(t.dimensions or []),
        "time_limit_min": t.time_limit_min,
        "token_budget": t.token_budget,
        "domain": t.domain or None,
        "family": t.family or None,
        "difficulty": t.difficulty or None,
        "evaluation": t.evaluation or None,
        "human_minutes": t.human_minutes,
        "tags": list(t.tags or []),
    }
    doc.update({k: v for k, v in (_version_doc(current) if current else {"prompt": ""}).items() if k != "version"})
    doc["history"] = [_version_doc(v) for k, v in sorted(versions.items()) if k != t.version]
    return doc


task_doc = _task_doc  # a stored task as a bundle gives it (what a submission sends back unchanged)


def _tier_of(e, submissions: dict[str, int]) -> dict:
    """An entry's tier, and the live submission its runs came from (none for the benchmark team's runs)."""
    return {"tier": e.tier, **({"submission": submissions[e.agent.slug]} if e.agent.slug in submissions else {})}


def _round_doc(r: Round) -> dict:
    # The live submissions of the round by agent (`submissions.Submission`, read through its related name).
    submissions = dict(r.submissions.filter(status="live").values_list("agent__slug", "id"))
    params: dict[str, dict[str, str]] = {}
    for p in r.parameters.all():
        params.setdefault(p.task.key, {})[p.name] = p.value
    return {
        "key": r.key,
        "name": r.name,
        "status": r.status,
        "task_set_version": r.task_set_version,
        "starts_on": iso(r.starts_on),
        "preview_started_at": iso(r.preview_started_at),
        "published_at": iso(r.published_at),
        "entries": [
            {"agent": e.agent.slug, **{f: getattr(e, f) or None for f in ENTRY_FIELDS}, **_tier_of(e, submissions)}
            for e in sorted(r.entries.all(), key=lambda e: e.agent.slug)
        ],
        "tasks": list(r.task_keys) if r.task_keys else None,
        "parameters": params,
        "changelog": [
            {
                "what": c.what,
                "why": c.why or None,
                "who": c.who_role or None,
                "at": iso(c.created_at),
                "run": c.run.key if c.run else None,
            }
            for c in sorted(r.changelog.all(), key=lambda c: (c.created_at, c.id))
        ],
    }


RUN_VALUES = (
    "id",
    "key",
    "round__key",
    "entry__agent__slug",
    "task__key",
    "rerun_of__key",
    "judge_scores",
    "judge",
    "marks",
    *RUN_SCALARS,
)


def _run_docs(round_ids: list[int], *, public: bool, decided: Decided | None = None, setup: bool = True) -> list[dict]:
    """The runs of these rounds as bundle documents, read as plain rows: one query for the runs and one per
    kind of child (not model instances and per-run prefetch managers, which cost about 0.5 ms a run)."""
    rows = list(
        Run.objects.filter(round_id__in=round_ids)
        .order_by("round__starts_on", "round__published_at", "round__key", "id")
        .values(*RUN_VALUES)
    )
    in_rounds = {"run__round_id__in": round_ids}
    verdicts = _by_run(
        Verdict.objects.filter(**in_rounds)
        .order_by("run_id", "created_at", "id")
        .values("run_id", "role", "outcome", "matched", "note", "created_at")
    )
    evidence = _by_run(Evidence.objects.filter(**in_rounds).order_by("run_id", "id"), dicts=False)
    checks = _by_run(
        CheckResult.objects.filter(**in_rounds)
        .order_by("run_id", "position", "id")
        .values("run_id", "kind", "name", "passed", "detail")
    )
    disputes = _by_run(
        Dispute.objects.filter(**in_rounds)
        .order_by("run_id", "filed_at", "id")
        .values("run_id", "reason", "note", "status", "filed_at", "decided_at", "decision_note")
    )
    return [
        _run_doc_from(
            row,
            verdicts.get(row["id"], ()),
            evidence.get(row["id"], ()),
            checks.get(row["id"], ()),
            disputes.get(row["id"], ()),
            public=public,
            decided=decided,
            setup=setup,
        )
        for row in rows
    ]


def _by_run(rows, dicts: bool = True) -> dict[int, list]:
    grouped: dict[int, list] = {}
    for row in rows:
        grouped.setdefault(row["run_id"] if dicts else row.run_id, []).append(row)
    return grouped


def run_doc(run: Run) -> dict:
    """One run's public document, from a model instance (the run page's JSON download)."""
    row = {f: getattr(run, f) for f in PUBLIC_RUN_SCALARS}
    row.update(
        {
            "key": run.key,
            "round__key": run.round.key,
            "entry__agent__slug": run.entry.agent.slug,
            "task__key": run.task.key,
            "rerun_of__key": run.rerun_of.key if run.rerun_of else None,
            "judge_scores": run.judge_scores,
            "judge": run.judge,
            "marks": run.marks,
        }
    )
    verdicts = [
        {"role": v.role, "outcome": v.outcome, "matched": v.matched, "note": v.note, "created_at": v.created_at}
        for v in run.verdicts.all()
    ]
    checks = [{"kind": c.kind, "name": c.name, "passed": c.passed, "detail": c.detail} for c in run.checks.all()]
    disputes = [
        {f: getattr(d, f) for f in DISPUTE_FIELDS} for d in sorted(run.disputes.all(), key=lambda d: (d.filed_at, d.id))
    ]
    methodology, task = run.round.benchmark.methodology, task_input(run.task)
    return _run_doc_from(
        row,
        verdicts,
        list(run.evidence.all()),
        checks,
        disputes,
        public=True,
        decided=lambda key, vs: review_decided(methodology, task, vs),
        setup=run.round.benchmark.rules.run_setup is not None,
    )


# Whether a run's verdicts (bundle dicts) decide its outcome, by its task key (`scoring.review.review_decided`).
Decided = Callable[[str, list], bool]


def _review_decider(benchmark: Benchmark, tasks: list[Task]) -> Decided:
    by_key = {t.key: task_input(t) for t in tasks}

    def decided(key: str, verdicts: list) -> bool:
        return key in by_key and review_decided(benchmark.methodology, by_key[key], verdicts)

    return decided


def _run_doc_from(
    row: dict, verdicts, evidence, checks, disputes, *, public: bool, decided: Decided | None = None, setup: bool
) -> dict:
    """One run's bundle document from its row and children. `setup`: the methodology records how a run was run
    (`scoring.run_setup`: 002's judge model and execution mode); elsewhere neither field is written."""
    doc: dict[str, Any] = {
        "id": row["key"],
        "round": row["round__key"],
        "agent": row["entry__agent__slug"],
        "task": row["task__key"],
    }
    for f in PUBLIC_RUN_SCALARS if public else RUN_SCALARS:
        if f in RUN_SETUP_FIELDS and not setup:
            continue
        value = row[f]
        if f in DATETIME_FIELDS:
            value = iso(value)
        elif f in BLANK_STRING_FIELDS and value == "":
            value = None
        doc[f] = plain_number(value)
    doc["judge_scores"] = list(row["judge_scores"] or [])
    if row.get("judge"):
        doc["judge"] = row["judge"]
    if row.get("marks"):
        doc["marks"] = list(row["marks"])
    doc["rerun_of"] = row["rerun_of__key"]
    if public and verdicts and (decided is None or not decided(row["task__key"], list(verdicts))):
        verdicts = []  # still in review: published with the outcome (`scoring.review.verdicts_public`)
        doc["outcome"] = None  # nor its label, which may be the tester's verdict
    doc["verdicts"] = [
        {
            "role": v["role"],
            "outcome": v["outcome"],
            "matched": list(v["matched"] or []),
            "note": v["note"],
            "at": iso(v["created_at"]),
        }
        for v in sorted(verdicts, key=lambda v: ["tester", "second", "third"].index(v["role"]))
    ]
    doc["evidence"] = [{"kind": e.kind, "url": e.href, "caption": e.caption or None} for e in evidence]
    doc["checks"] = [
        {"kind": c["kind"], "name": c["name"], "passed": c["passed"], "detail": c["detail"] or None} for c in checks
    ]
    doc["disputes"] = [
        {
            "reason": d["reason"],
            "note": d["note"],
            "status": d["status"],
            "filed_at": iso(d["filed_at"]),
            "decided_at": iso(d["decided_at"]),
            "decision_note": d["decision_note"] or None,
        }
        for d in disputes
    ]
    return doc


def _vote_doc(v: Vote) -> dict:
    return {
        "id": v.key,
        "task": v.task.key,
        "a": v.agent_a.slug,
        "b": v.agent_b.slug,
        "winner": v.winner,
        "voter": voter_pseudonym(v),
        "cast_at": iso(v.cast_at),
        "counts": v.counts,
    }
