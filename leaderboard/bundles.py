"""Reading a results bundle into the database and writing one out.

`bundle_import` validates the whole document first (scoring.bundle) and writes in one transaction, so a bad
bundle writes nothing. It is an upsert keyed on the bundle's own keys (benchmark slug, agent slug, task key,
round key, run id, verdict role, vote id), so importing the same bundle twice leaves the database as it was.
Nothing absent from a bundle is deleted: a bundle adds and corrects, it never loses data.

`bundle_export` writes the same format. The public download holds published rounds only, with no user,
reviewer or voter identity beyond the role (voters as stable pseudonyms).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.text import slugify

from runs.models import CheckResult, Dispute, Evidence, Run, Verdict
from scoring.bundle import BundleError, check_bundle, vote_ids
from scoring.common import OUTCOME_ORDER
from snapshots.stale import snapshots_mark_stale
from voting.models import Vote

from .models import (
    Agent,
    Benchmark,
    ChangelogEntry,
    Entry,
    Organization,
    Round,
    RoundParameter,
    Task,
    TaskVersion,
)

RUN_SCALARS = (
    "task_version", "trial", "language", "status", "outcome", "score", "auto_pass_rate", "tests_passed",
    "tests_total", "heuristic", "app_started", "api_checks_passed", "api_checks_total", "browser_steps_passed",
    "browser_steps_total", "tokens_input", "tokens_output", "tokens_cache_write", "cost_usd", "plan_label",
    "wall_seconds", "first_output_seconds", "steps", "interventions", "checks_version", "due_at", "started_at",
    "preview_url",
)
BLANK_STRING_FIELDS = {"language", "outcome", "plan_label", "checks_version", "preview_url"}
DATETIME_FIELDS = {"due_at", "started_at"}
RUN_DEFAULTS = {"task_version": "1.0", "trial": 1}
ENTRY_FIELDS = ("product_version", "plan", "region", "network", "model", "cli")


@dataclass
class ImportReport:
    benchmark: str
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    round_ids: set[int] = field(default_factory=set)
    rating_tasks: set[int] = field(default_factory=set)

    def count(self, kind: str, created: bool, changed: bool = True) -> None:
        if created:
            self.created[kind] = self.created.get(kind, 0) + 1
        elif changed:
            self.updated[kind] = self.updated.get(kind, 0) + 1

    def summary(self) -> str:
        made = ", ".join(f"{n} {k}" for k, n in sorted(self.created.items())) or "nothing"
        changed = ", ".join(f"{n} {k}" for k, n in sorted(self.updated.items())) or "nothing"
        return f"{self.benchmark}: created {made}; updated {changed}"


# --- conversions ----------------------------------------------------------------------------------------------

def _dt(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = parse_datetime(value)
    if parsed is None:
        d = parse_date(value)
        if d is None:
            raise ValueError(value)
        parsed = datetime(d.year, d.month, d.day)
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, timezone.UTC)
    return parsed


def _date(value: str | None) -> date | None:
    parsed = _dt(value)
    return parsed.date() if parsed else None


def iso(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(timezone.UTC).isoformat().replace("+00:00", "Z")
    return value.isoformat()


def _num(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value


def _set_fields(obj, values: dict[str, Any]) -> bool:
    changed = False
    for name, value in values.items():
        field_ = obj._meta.get_field(name)
        if field_.is_relation:
            new_id = value.pk if value is not None else None
            if getattr(obj, field_.attname) != new_id:
                setattr(obj, name, value)
                changed = True
            continue
        current = getattr(obj, name)
        if isinstance(current, Decimal) and value is not None:
            value = Decimal(str(value)).quantize(Decimal("0.000001"))
        if current != value:
            setattr(obj, name, value)
            changed = True
    return changed


def _upsert(model, lookup: dict[str, Any], values: dict[str, Any], report: ImportReport, kind: str):
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup)
        _set_fields(obj, values)
        obj.save()
        report.count(kind, created=True)
        return obj, True
    if _set_fields(obj, values):
        obj.save()
        report.count(kind, created=False)
        return obj, True
    return obj, False


def _validate_dates(doc: dict) -> list[str]:
    problems = []

    def check(value: Any, path: str) -> None:
        if value is None:
            return
        try:
            _dt(value)
        except (ValueError, TypeError):
            problems.append(f"{path}: {value!r} is not a date or an ISO 8601 time")

    for i, t in enumerate(doc.get("tasks") or []):
        check(t.get("published_at"), f"tasks[{i}].published_at")
    for i, r in enumerate(doc.get("rounds") or []):
        for key in ("published_at", "preview_started_at", "starts_on"):
            check(r.get(key), f"rounds[{i}].{key}")
        if r.get("status") == "published" and not r.get("published_at"):
            problems.append(f"rounds[{i}].published_at: is required for a published round")
    for i, run in enumerate(doc.get("runs") or []):
        for key in ("due_at", "started_at"):
            check(run.get(key), f"runs[{i}].{key}")
    for i, v in enumerate(doc.get("votes") or []):
        check(v.get("cast_at"), f"votes[{i}].cast_at")
    return problems


# --- import -----------------------------------------------------------------------------------------------------

def bundle_import(*, doc: Any) -> ImportReport:
    """Validate `doc` and write it in one transaction; raise `BundleError` (nothing written) on bad input."""
    check_bundle(doc)
    problems = _validate_dates(doc)
    if problems:
        raise BundleError(problems)
    with transaction.atomic():
        report = _write(doc)
        # A round that changed (published, say) may make agents public, and their votes with them.
        bench_ids = [Benchmark.objects.get(slug=report.benchmark).id] if report.round_ids else []
        snapshots_mark_stale(round_ids=report.round_ids, rating_task_ids=report.rating_tasks, benchmark_ids=bench_ids)
    return report


def _write(doc: dict) -> ImportReport:
    b = doc["benchmark"]
    report = ImportReport(benchmark=b["slug"])
    params = dict(b.get("params") or {})
    threshold = params.pop("pass_threshold", 0.8)
    benchmark, _ = _upsert(Benchmark, {"slug": b["slug"]}, {
        "name": b["name"], "methodology": b["methodology"], "description": b.get("description") or "",
        "task_set_version": b.get("task_set_version") or "1.0", "pass_threshold": threshold, "params": params,
    }, report, "benchmarks")

    agents: dict[str, Agent] = {}
    for a in doc.get("agents") or []:
        org = None
        if a.get("organization"):
            org, _ = _upsert(Organization, {"slug": slugify(a["organization"])[:100] or "org"},
                             {"name": a["organization"]}, report, "organizations")
        agents[a["slug"]], _ = _upsert(Agent, {"slug": a["slug"]}, {
            "name": a.get("name") or a["slug"], "organization": org,
            "primary_language": a.get("primary_language") or "", "languages": list(a.get("languages") or []),
        }, report, "agents")

    tasks: dict[str, Task] = {}
    changed_tasks = False
    for pos, t in enumerate(doc.get("tasks") or []):
        task, changed = _upsert(Task, {"benchmark": benchmark, "key": t["key"]}, {
            "title": t.get("title") or "", "kind": t.get("kind") or "core", "version": t.get("version") or "1.0",
            "dimensions": list(t.get("dimensions") or []), "domain": t.get("domain") or "",
            "difficulty": t.get("difficulty") or "", "evaluation": t.get("evaluation") or "",
            "time_limit_min": t.get("time_limit_min", 30), "token_budget": t.get("token_budget"),
            "human_minutes": t.get("human_minutes"), "tags": list(t.get("tags") or []), "position": pos,
        }, report, "tasks")
        changed_tasks |= changed
        tasks[t["key"]] = task
        for h in list(t.get("history") or []) + [t]:
            _upsert(TaskVersion, {"task": task, "version": h.get("version") or "1.0"}, {
                "prompt": h.get("prompt") or "", "parameters": list(h.get("parameters") or []),
                "interruption": h.get("interruption") or "", "evidence": list(h.get("evidence") or []),
                "criteria": h.get("criteria") or {},
                "observes_later_effects": bool(h.get("observes_later_effects"))
                or "observes-later-effects" in (t.get("tags") or []),
                "published_at": _dt(h.get("published_at")), "change_note": h.get("change_note") or "",
            }, report, "task versions")

    rounds: dict[str, Round] = {}
    entries: dict[tuple[str, str], Entry] = {}
    pending_changelog: list[tuple[Round, dict]] = []
    # Rounds published before this import: a change to their runs is a correction and goes into their changelog.
    was_published = set(Round.objects.filter(benchmark=benchmark, status="published").values_list("id", flat=True))
    corrected: dict[int, set[str]] = {}
    for r in doc.get("rounds") or []:
        round_values = {
            "name": r.get("name") or "", "status": r["status"], "task_set_version": r.get("task_set_version") or "1.0",
            "starts_on": _date(r.get("starts_on")),
            "preview_started_at": _dt(r.get("preview_started_at")), "published_at": _dt(r.get("published_at")),
        }
        if r.get("tasks") is not None:
            round_values["task_keys"] = list(r["tasks"])
        rnd, changed = _upsert(Round, {"benchmark": benchmark, "key": r["key"]}, round_values, report, "rounds")
        rounds[r["key"]] = rnd
        if changed or changed_tasks:
            report.round_ids.add(rnd.id)
        for e in r.get("entries") or []:
            entry, changed = _upsert(Entry, {"round": rnd, "agent": agents[e["agent"]]},
                                     {f: e.get(f) or "" for f in ENTRY_FIELDS}, report, "entries")
            entries[(r["key"], e["agent"])] = entry
            if changed:
                report.round_ids.add(rnd.id)
        for task_key, values in (r.get("parameters") or {}).items():
            for name, value in values.items():
                _upsert(RoundParameter, {"round": rnd, "task": tasks[task_key], "name": name},
                        {"value": str(value)}, report, "round parameters")
        pending_changelog.extend((rnd, ch) for ch in r.get("changelog") or [])

    round_ids = [rnd.id for rnd in rounds.values()]
    run_rows = _Rows(Run, Run.objects.filter(round_id__in=round_ids), lambda r: (r.round_id, r.key), report, "runs")
    runs: dict[str, Run] = {}
    docs_by_id = {str(run["id"]): run for run in doc.get("runs") or []}
    # Originals first and saved, so a re-run can point at a saved run.
    for reruns in (False, True):
        for run_doc in docs_by_id.values():
            if (run_doc.get("rerun_of") is not None) != reruns:
                continue
            rnd = rounds[run_doc["round"]]
            values = _run_values(run_doc, entries, tasks, runs)
            run, changed = run_rows.put((rnd.id, str(run_doc["id"])), {"round": rnd, "key": str(run_doc["id"])},
                                        values)
            runs[str(run_doc["id"])] = run
            if changed:
                report.round_ids.add(rnd.id)
                if rnd.id in was_published:
                    corrected.setdefault(rnd.id, set()).add(str(run_doc["id"]))
        run_rows.flush()
    for rnd_id, run_key in _write_run_children(runs, docs_by_id, round_ids, report):
        report.round_ids.add(rnd_id)
        if rnd_id in was_published:
            corrected.setdefault(rnd_id, set()).add(run_key)

    for rnd in rounds.values():
        rnd.task_set_freeze()

    for rnd, ch in pending_changelog:
        at = _dt(ch.get("at")) or rnd.published_at or timezone.now()
        run = Run.objects.filter(round=rnd, key=str(ch["run"])).first() if ch.get("run") else None
        _upsert(ChangelogEntry, {"round": rnd, "what": ch["what"], "created_at": at},
                {"why": ch.get("why") or "", "who_role": ch.get("who") or "", "run": run}, report,
                "changelog entries")

    for rnd in rounds.values():
        if corrected.get(rnd.id):
            keys = sorted(corrected[rnd.id])
            ChangelogEntry.objects.create(
                round=rnd, run=runs[keys[0]] if len(keys) == 1 else None, who_role="import",
                why="Re-imported from a bundle.", created_at=timezone.now(),
                what=f"Run{'s' if len(keys) != 1 else ''} {', '.join(keys)} changed by a bundle re-import.")
    _write_votes(doc, benchmark, tasks, agents, report)
    return report


def _run_values(run_doc: dict, entries: dict, tasks: dict, runs: dict) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in RUN_SCALARS:
        value = run_doc.get(f, RUN_DEFAULTS.get(f))
        if f in DATETIME_FIELDS:
            value = _dt(value)
        elif f in BLANK_STRING_FIELDS and value is None:
            value = ""
        values[f] = value
    values["judge_scores"] = list(run_doc.get("judge_scores") or [])
    values["entry"] = entries[(run_doc["round"], run_doc["agent"])]
    values["task"] = tasks[run_doc["task"]]
    rerun_of = run_doc.get("rerun_of")
    values["rerun_of"] = runs[str(rerun_of)] if rerun_of is not None else None
    return values


class _Rows:
    """The existing rows of one model, keyed by their identity in the bundle; changed rows are saved one by
    one, new rows are created together in `flush`. Reading every row first keeps an import at a handful of
    queries per table instead of several per run."""

    def __init__(self, model, rows, key, report: ImportReport, kind: str) -> None:
        self.model, self.report, self.kind = model, report, kind
        self.by_key = {key(row): row for row in rows}
        self.new: list = []

    def put(self, ident, lookup: dict[str, Any], values: dict[str, Any]):
        obj = self.by_key.get(ident)
        if obj is None:
            obj = self.model(**lookup)
            _set_fields(obj, values)
            self.new.append(obj)
            self.by_key[ident] = obj
            self.report.count(self.kind, created=True)
            return obj, True
        if _set_fields(obj, values):
            obj.save()
            self.report.count(self.kind, created=False)
            return obj, True
        return obj, False

    def flush(self) -> None:
        # Bundle validation has already checked what Run.save() guards (entries, re-runs), and PostgreSQL's
        # triggers still check every inserted row.
        if self.new:
            self.model.objects.bulk_create(self.new, batch_size=500)
            self.new = []


def _write_run_children(runs: dict[str, Run], docs: dict[str, dict], round_ids: list[int],
                        report: ImportReport) -> set[tuple[int, str]]:
    """Verdicts, evidence, checks and disputes of every run; returns (round id, run key) of the runs whose
    inputs changed."""
    in_rounds = {"run__round_id__in": round_ids}
    verdicts = _Rows(Verdict, Verdict.objects.filter(**in_rounds), lambda v: (v.run_id, v.role), report, "verdicts")
    evidence = _Rows(Evidence, Evidence.objects.filter(**in_rounds), lambda e: (e.run_id, e.url), report, "evidence")
    checks = _Rows(CheckResult, CheckResult.objects.filter(**in_rounds), lambda c: (c.run_id, c.position), report,
                   "checks")
    disputes = _Rows(Dispute, Dispute.objects.filter(**in_rounds), lambda d: (d.run_id, d.reason, d.note), report,
                     "disputes")
    changed_runs: set[tuple[int, str]] = set()
    for run_id, run_doc in docs.items():
        run = runs[run_id]
        changed = False
        for v in run_doc.get("verdicts") or []:
            matched = list(v.get("matched") or [])
            values = {"outcome": v.get("outcome") or _lowest(matched), "matched": matched, "note": v.get("note") or ""}
            if v.get("at"):
                values["created_at"] = _dt(v["at"])
            changed |= verdicts.put((run.pk, v["role"]), {"run": run, "role": v["role"]}, values)[1]
        for e in run_doc.get("evidence") or []:
            changed |= evidence.put((run.pk, e["url"]), {"run": run, "url": e["url"]},
                                    {"kind": e["kind"], "caption": e.get("caption") or ""})[1]
        for pos, ch in enumerate(run_doc.get("checks") or []):
            checks.put((run.pk, pos), {"run": run, "position": pos}, {
                "kind": ch["kind"], "name": ch["name"], "passed": ch["passed"], "detail": ch.get("detail") or ""})
        for d in run_doc.get("disputes") or []:
            values = {"status": d.get("status") or "open", "decision_note": d.get("decision_note") or "",
                      "decided_at": _dt(d.get("decided_at"))}
            if d.get("filed_at"):
                values["filed_at"] = _dt(d["filed_at"])
            note = d.get("note") or ""
            changed |= disputes.put((run.pk, d["reason"], note), {"run": run, "reason": d["reason"], "note": note},
                                    values)[1]
        if changed:
            changed_runs.add((run.round_id, run_id))
    for rows in (verdicts, evidence, checks, disputes):
        rows.flush()
    return changed_runs


def _lowest(matched: list[str]) -> str:
    """The lowest matched outcome (the order is scoring's, seed 000 §3)."""
    return min(matched, key=OUTCOME_ORDER.__getitem__) if matched else "fail"


def _write_votes(doc: dict, benchmark: Benchmark, tasks: dict[str, Task], agents: dict[str, Agent],
                 report: ImportReport) -> None:
    """Votes are matched by their identity (`votes[].id`, or `vote_ids`' position-derived one), never by
    their content: identical anonymous votes are separate votes, and importing a file again adds nothing.
    An id already stored for a different vote (task, agents or winner) is refused; only `counts` may change."""
    votes = doc.get("votes") or []
    if not votes:
        return
    existing = {v.key: v for v in Vote.objects.filter(task__benchmark=benchmark)
                .select_related("task", "agent_a", "agent_b")}
    new = []
    conflicts = []
    for i, (v, key) in enumerate(zip(votes, vote_ids(doc), strict=True)):
        task, a, b = tasks[v["task"]], agents[v["a"]], agents[v["b"]]
        counts = v.get("counts", True) is not False
        found = existing.get(key)
        if found is None:
            cast_at = _dt(v.get("cast_at"))
            vote = Vote(key=key, task=task, agent_a=a, agent_b=b, winner=v["winner"],
                        voter_label=v.get("voter") or "", cast_at=cast_at or timezone.now(), counts=counts)
            new.append(vote)
            report.rating_tasks.add(task.id)
        elif (found.task_id, found.agent_a_id, found.agent_b_id, found.winner) != (task.id, a.id, b.id, v["winner"]):
            conflicts.append(f"votes[{i}].id: {key!r} is already stored as another vote ({found.task.key}: "
                             f"{found.agent_a.slug} vs {found.agent_b.slug}, winner {found.winner})")
        elif found.counts != counts and found.voter_id is None:  # a site vote's counting is the site's rules
            Vote.objects.filter(pk=found.pk).update(counts=counts)
            report.count("votes", created=False)
            report.rating_tasks.add(task.id)
    if conflicts:
        raise BundleError(conflicts)
    Vote.objects.bulk_create(new, batch_size=1000)
    if new:
        report.created["votes"] = report.created.get("votes", 0) + len(new)


# --- export -----------------------------------------------------------------------------------------------------

def voter_pseudonym(vote: Vote) -> str:
    """A stable pseudonym: imported votes keep theirs; site votes get one derived from the account id with the
    site's secret, so a download never reveals who voted."""
    if vote.voter_id is None:
        return vote.voter_label
    digest = hashlib.sha256(f"{settings.SECRET_KEY}:voter:{vote.voter_id}".encode()).hexdigest()
    return f"voter-{digest[:10]}"


def bundle_export(*, benchmark: Benchmark, include_unpublished: bool = False,
                  round_keys: list[str] | None = None, include_votes: bool = True) -> dict:
    """The benchmark as a bundle. Public downloads leave `include_unpublished` off: draft and preview rounds,
    their runs and their parameters are then absent, and so is every vote naming an agent that has no
    published entry yet (`VoteQuerySet.public`)."""
    rounds_qs = benchmark.rounds.order_by("starts_on", "published_at", "key")
    if not include_unpublished:
        rounds_qs = rounds_qs.filter(status="published")
    if round_keys is not None:
        rounds_qs = rounds_qs.filter(key__in=round_keys)
    rounds = list(rounds_qs.prefetch_related("entries__agent", "parameters__task", "changelog__run"))
    round_ids = [r.id for r in rounds]
    tasks = list(benchmark.tasks.prefetch_related("versions").order_by("position", "key"))
    runs = _run_docs(round_ids)
    agent_ids = {e.agent_id for r in rounds for e in r.entries.all()}
    votes_qs = Vote.objects.filter(task__benchmark=benchmark)
    if not include_unpublished:
        votes_qs = votes_qs.public()
    votes = [] if not include_votes else list(
        votes_qs.select_related("task", "agent_a", "agent_b").order_by("cast_at", "id"))
    for v in votes:
        agent_ids.update((v.agent_a_id, v.agent_b_id))
    agents = list(Agent.objects.filter(id__in=agent_ids).select_related("organization").order_by("slug"))

    doc: dict[str, Any] = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {
            "slug": benchmark.slug, "name": benchmark.name, "methodology": benchmark.methodology,
            "description": benchmark.description, "task_set_version": benchmark.task_set_version,
            "params": {**(benchmark.params or {}), "pass_threshold": benchmark.pass_threshold},
        },
        "agents": [_agent_doc(a) for a in agents],
        "tasks": [_task_doc(t) for t in tasks],
        "rounds": [_round_doc(r) for r in rounds],
        "runs": runs,
        "votes": [_vote_doc(v) for v in votes],
    }
    return doc


def _agent_doc(a: Agent) -> dict:
    return {"slug": a.slug, "name": a.name, "organization": a.organization.name if a.organization else None,
            "primary_language": a.primary_language or None, "languages": list(a.languages or [])}


def _version_doc(v: TaskVersion) -> dict:
    return {"version": v.version, "prompt": v.prompt, "parameters": list(v.parameters or []),
            "interruption": v.interruption or None, "evidence": list(v.evidence or []),
            "criteria": v.criteria or {}, "observes_later_effects": v.observes_later_effects,
            "published_at": iso(v.published_at), "change_note": v.change_note or None}


def _task_doc(t: Task) -> dict:
    versions = {v.version: v for v in t.versions.all()}
    current = versions.get(t.version)
    doc = {
        "key": t.key, "title": t.title, "version": t.version, "kind": t.kind, "dimensions": list(t.dimensions or []),
        "time_limit_min": t.time_limit_min, "token_budget": t.token_budget, "domain": t.domain or None,
        "difficulty": t.difficulty or None, "evaluation": t.evaluation or None, "human_minutes": t.human_minutes,
        "tags": list(t.tags or []),
    }
    doc.update({k: v for k, v in (_version_doc(current) if current else {"prompt": ""}).items() if k != "version"})
    doc["history"] = [_version_doc(v) for k, v in sorted(versions.items()) if k != t.version]
    return doc


def _round_doc(r: Round) -> dict:
    params: dict[str, dict[str, str]] = {}
    for p in r.parameters.all():
        params.setdefault(p.task.key, {})[p.name] = p.value
    return {
        "key": r.key, "name": r.name, "status": r.status, "task_set_version": r.task_set_version,
        "starts_on": iso(r.starts_on), "preview_started_at": iso(r.preview_started_at),
        "published_at": iso(r.published_at),
        "entries": [{"agent": e.agent.slug, **{f: getattr(e, f) or None for f in ENTRY_FIELDS}}
                    for e in sorted(r.entries.all(), key=lambda e: e.agent.slug)],
        "tasks": list(r.task_keys) if r.task_keys else None,
        "parameters": params,
        "changelog": [{"what": c.what, "why": c.why or None, "who": c.who_role or None, "at": iso(c.created_at),
                       "run": c.run.key if c.run else None}
                      for c in sorted(r.changelog.all(), key=lambda c: (c.created_at, c.id))],
    }


RUN_VALUES = ("id", "key", "round__key", "entry__agent__slug", "task__key", "rerun_of__key", "judge_scores",
              *RUN_SCALARS)


def _run_docs(round_ids: list[int]) -> list[dict]:
    """The runs of these rounds as bundle documents, read as plain rows: one query for the runs and one per
    kind of child (not model instances and per-run prefetch managers, which cost about 0.5 ms a run)."""
    rows = list(Run.objects.filter(round_id__in=round_ids)
                .order_by("round__starts_on", "round__published_at", "round__key", "id").values(*RUN_VALUES))
    in_rounds = {"run__round_id__in": round_ids}
    verdicts = _by_run(Verdict.objects.filter(**in_rounds).order_by("run_id", "created_at", "id")
                       .values("run_id", "role", "outcome", "matched", "note", "created_at"))
    evidence = _by_run(Evidence.objects.filter(**in_rounds).order_by("run_id", "id"), dicts=False)
    checks = _by_run(CheckResult.objects.filter(**in_rounds).order_by("run_id", "position", "id")
                     .values("run_id", "kind", "name", "passed", "detail"))
    disputes = _by_run(Dispute.objects.filter(**in_rounds).order_by("run_id", "filed_at", "id")
                       .values("run_id", "reason", "note", "status", "filed_at", "decided_at", "decision_note"))
    return [_run_doc_from(row, verdicts.get(row["id"], ()), evidence.get(row["id"], ()), checks.get(row["id"], ()),
                          disputes.get(row["id"], ())) for row in rows]


def _by_run(rows, dicts: bool = True) -> dict[int, list]:
    grouped: dict[int, list] = {}
    for row in rows:
        grouped.setdefault(row["run_id"] if dicts else row.run_id, []).append(row)
    return grouped


def run_doc(run: Run) -> dict:
    """One run's document, from a model instance (the run page's JSON download)."""
    row = {f: getattr(run, f) for f in RUN_SCALARS}
    row.update({"key": run.key, "round__key": run.round.key, "entry__agent__slug": run.entry.agent.slug,
                "task__key": run.task.key, "rerun_of__key": run.rerun_of.key if run.rerun_of else None,
                "judge_scores": run.judge_scores})
    verdicts = [{"role": v.role, "outcome": v.outcome, "matched": v.matched, "note": v.note,
                 "created_at": v.created_at} for v in run.verdicts.all()]
    checks = [{"kind": c.kind, "name": c.name, "passed": c.passed, "detail": c.detail} for c in run.checks.all()]
    disputes = [{"reason": d.reason, "note": d.note, "status": d.status, "filed_at": d.filed_at,
                 "decided_at": d.decided_at, "decision_note": d.decision_note}
                for d in sorted(run.disputes.all(), key=lambda d: (d.filed_at, d.id))]
    return _run_doc_from(row, verdicts, list(run.evidence.all()), checks, disputes)


def _run_doc_from(row: dict, verdicts, evidence, checks, disputes) -> dict:
    doc: dict[str, Any] = {"id": row["key"], "round": row["round__key"], "agent": row["entry__agent__slug"],
                           "task": row["task__key"]}
    for f in RUN_SCALARS:
        value = row[f]
        if f in DATETIME_FIELDS:
            value = iso(value)
        elif f in BLANK_STRING_FIELDS and value == "":
            value = None
        doc[f] = _num(value)
    doc["judge_scores"] = list(row["judge_scores"] or [])
    doc["rerun_of"] = row["rerun_of__key"]
    doc["verdicts"] = [
        {"role": v["role"], "outcome": v["outcome"], "matched": list(v["matched"] or []), "note": v["note"],
         "at": iso(v["created_at"])}
        for v in sorted(verdicts, key=lambda v: ["tester", "second", "third"].index(v["role"]))
    ]
    doc["evidence"] = [{"kind": e.kind, "url": e.href, "caption": e.caption or None} for e in evidence]
    doc["checks"] = [{"kind": c["kind"], "name": c["name"], "passed": c["passed"], "detail": c["detail"] or None}
                     for c in checks]
    doc["disputes"] = [
        {"reason": d["reason"], "note": d["note"], "status": d["status"], "filed_at": iso(d["filed_at"]),
         "decided_at": iso(d["decided_at"]), "decision_note": d["decision_note"] or None}
        for d in disputes
    ]
    return doc


def _vote_doc(v: Vote) -> dict:
    return {"id": v.key, "task": v.task.key, "a": v.agent_a.slug, "b": v.agent_b.slug, "winner": v.winner,
            "voter": voter_pseudonym(v), "cast_at": iso(v.cast_at), "counts": v.counts}
