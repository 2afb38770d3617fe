"""What a bundle would change in rows other boards read: agents and organizations (shared by every benchmark
that enters them), the benchmark's own settings, and the tasks of a benchmark with published rounds.

A field a bundle leaves out keeps its stored value (missing is not empty); `agent_values` and
`benchmark_values` give only what a bundle says, and the importer writes exactly that. `shared_changes` compares
it with what is stored, row by row and field by field, and names the rounds each change would move. The
importer then applies the policy (`bundles.importer`):

- an upload key changes none of it (`bundles.uploads`): new agents, organizations and tasks only;
- an editor's import changes a row that feeds a published round only when confirmed
  (`import_bundle --update-shared-agents`, the admin import page's box); the affected rounds turn stale and
  recompute, and each published one gets a changelog entry;
- a published task version's wording and a benchmark's methodology once rounds are out never change by import,
  as in the admin (a new version is made instead: `leaderboard.services.versions`), and a published version stays
  published: what the database's guard would refuse (`TaskVersion.frozen_changes`) is refused before the write.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dc_field
from datetime import datetime
from typing import Any

from django.utils.text import slugify

from leaderboard.models import (
    Agent,
    Benchmark,
    Organization,
    Round,
    RoundStatus,
    Task,
    TaskVersion,
    row_attributes,
)
from scoring import methodologies

# What a bundle says about a stored task and its versions is compared field by field: every attribute of the two
# models (`row_attributes`, so a field added later is compared too) less the two a bundle does not set on a
# stored row: a task's place in the list (an upload lists the tasks its runs need, in any order, and leaves the
# stored place; an editor's import follows its bundle's order, which feeds no score) and a version's creation
# time (the site's).
TASK_COMPARED = tuple(f for f in row_attributes(Task) if f != "position")
VERSION_COMPARED = tuple(f for f in row_attributes(TaskVersion) if f != "created_at")


def org_slug(name: str) -> str:
    return slugify(name)[:100] or "org"


def agent_values(a: dict) -> dict[str, Any]:
    """The agent fields a bundle's agent gives (organization as its name, or None for none)."""
    values: dict[str, Any] = {}
    if a.get("name"):
        values["name"] = a["name"]
    if "organization" in a:
        values["organization"] = a["organization"] or None
    if "primary_language" in a:
        values["primary_language"] = a["primary_language"] or ""
    if "languages" in a:
        values["languages"] = list(a["languages"] or [])
    return values


def agent_new_values(a: dict) -> dict[str, Any]:
    """A new agent's fields: what the bundle gives, the rest empty."""
    return {"name": a["slug"], "organization": None, "primary_language": "", "languages": [], **agent_values(a)}


def benchmark_values(b: dict) -> dict[str, Any]:
    """The benchmark fields a bundle's benchmark gives (its pass threshold and vendor window, `preview_hours`,
    are params there)."""
    values: dict[str, Any] = {"name": b["name"], "methodology": b["methodology"]}
    if "description" in b:
        values["description"] = b["description"] or ""
    if "task_set_version" in b:
        values["task_set_version"] = b["task_set_version"] or "1.0"
    if "params" in b:
        params = dict(b["params"] or {})
        threshold = params.pop("pass_threshold", None)
        # Only a methodology with a pass threshold keeps one (scored); elsewhere the figure means nothing and is
        # not stored (exports before this rule carried 0.8 for every benchmark).
        if threshold is not None and methodologies.get(b["methodology"]).default_pass_threshold is not None:
            values["pass_threshold"] = threshold
        hours = params.pop("preview_hours", None)
        if hours is not None:
            values["preview_hours"] = int(hours)
        values["params"] = params
    return values


def task_values(t: dict, pos: int) -> dict[str, Any]:
    values: dict[str, Any] = {
        "title": t.get("title") or "",
        "kind": t.get("kind") or "core",
        "version": t.get("version") or "1.0",
        "dimensions": list(t.get("dimensions") or []),
        "domain": t.get("domain") or "",
        "family": t.get("family") or "",
        "difficulty": t.get("difficulty") or "",
        "evaluation": t.get("evaluation") or "",
        "token_budget": t.get("token_budget"),
        "human_minutes": t.get("human_minutes"),
        "tags": list(t.get("tags") or []),
        "position": pos,
    }
    # A time limit left out keeps the stored one (a new task has none: its methodology's default applies,
    # `Methodology.task_limits`); null says the task states none.
    if "time_limit_min" in t:
        values["time_limit_min"] = t["time_limit_min"]
    return values


def version_values(t: dict, h: dict) -> dict[str, Any]:
    """A version's fields as the bundle gives them. A `published_at` left out keeps the stored one (a new
    version is unpublished): publishing is the editor's step, and a published version stays published."""
    from .fields import parse_time

    values = {
        "prompt": h.get("prompt") or "",
        "parameters": list(h.get("parameters") or []),
        "interruption": h.get("interruption") or "",
        "evidence": list(h.get("evidence") or []),
        "scenarios": list(h.get("scenarios") or []),
        "criteria": h.get("criteria") or {},
        "observes_later_effects": bool(h.get("observes_later_effects"))
        or "observes-later-effects" in (t.get("tags") or []),
        "change_note": h.get("change_note") or "",
    }
    if "published_at" in h:
        values["published_at"] = parse_time(h["published_at"])
    return values


@dataclass
class SharedChange:
    """One field of one stored row that a bundle would change, and the rounds the row feeds."""

    path: str  # where in the bundle, e.g. "agents[2].primary_language"
    label: str  # the row, e.g. "agent claude-code"
    field: str
    old: Any
    new: Any
    rounds: list[Round] = dc_field(default_factory=list)

    @property
    def published(self) -> list[Round]:
        return [r for r in self.rounds if r.status == RoundStatus.PUBLISHED]

    def describe(self) -> str:
        return f"{self.label}: {self.field} {shown(self.old)} -> {shown(self.new)}"


@dataclass
class SharedReport:
    changes: list[SharedChange] = dc_field(default_factory=list)
    # Changes no confirmation allows (a published version's wording, a methodology once rounds are out).
    frozen: list[str] = dc_field(default_factory=list)


def shown(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return "(none)" if value in (None, "", []) else repr(value)


def _round_name(r: Round) -> str:
    return f"{r.benchmark.slug}/{r.key}"


def round_names(rounds: list[Round]) -> str:
    return ", ".join(sorted(_round_name(r) for r in rounds))


def _rounds_of_agents(agent_ids: list[int]) -> list[Round]:
    return list(Round.objects.filter(entries__agent_id__in=agent_ids).select_related("benchmark").distinct())


def shared_changes(doc: dict) -> SharedReport:
    """Every stored field `doc` would change in agents, organizations, its benchmark and its tasks."""
    out = SharedReport()
    _agents_and_orgs(doc, out)
    bench = Benchmark.objects.filter(slug=doc["benchmark"]["slug"]).first()
    if bench is not None:
        _benchmark(doc["benchmark"], bench, out)
        _tasks(doc, bench, out)
    return out


def _agents_and_orgs(doc: dict, out: SharedReport) -> None:
    agents = [a for a in doc.get("agents") or [] if isinstance(a, dict)]
    stored = {
        a.slug: a for a in Agent.objects.filter(slug__in=[a["slug"] for a in agents]).select_related("organization")
    }
    org_names = {a["organization"] for a in agents if a.get("organization")}
    orgs = {o.slug: o for o in Organization.objects.filter(slug__in=[org_slug(n) for n in org_names])}
    seen_orgs: set[str] = set()
    for i, a in enumerate(agents):
        name = a.get("organization")
        if name and org_slug(name) in orgs and org_slug(name) not in seen_orgs:
            org = orgs[org_slug(name)]
            seen_orgs.add(org.slug)
            if org.name != name:
                org_rounds = _rounds_of_agents(list(org.agents.values_list("id", flat=True)))
                out.changes.append(
                    SharedChange(
                        f"agents[{i}].organization", f"organization {org.slug}", "name", org.name, name, org_rounds
                    )
                )
        agent = stored.get(a["slug"])
        if agent is None:
            continue
        rounds: list[Round] | None = None
        for name_, new in agent_values(a).items():
            if name_ == "organization":
                old = agent.organization.name if agent.organization else None
                if (org_slug(old) if old else None) == (org_slug(new) if new else None):
                    continue  # the same organization (a new spelling of its name is the organization's change)
            else:
                old = getattr(agent, name_)
            if old != new:
                if rounds is None:
                    rounds = _rounds_of_agents([agent.id])
                out.changes.append(SharedChange(f"agents[{i}].{name_}", f"agent {agent.slug}", name_, old, new, rounds))


def _benchmark(b: dict, bench: Benchmark, out: SharedReport) -> None:
    rounds = list(Round.objects.filter(benchmark=bench).select_related("benchmark"))
    for name, new in benchmark_values(b).items():
        old = getattr(bench, name)
        if name == "pass_threshold":
            # As the boards read it: a stored blank is the methodology's default (0.8 stated on a blank is no change).
            old, new = bench.rules.pass_threshold(old), bench.rules.pass_threshold(new)
        if old == new:
            continue
        if name == "methodology" and any(r.status != RoundStatus.DRAFT for r in rounds):
            out.frozen.append(
                f"benchmark.methodology: benchmark {bench.slug!r} has rounds out; its methodology "
                f"({bench.methodology!r}) never changes"
            )
            continue
        path = f"benchmark.params.{name}" if name in ("pass_threshold", "preview_hours") else f"benchmark.{name}"
        out.changes.append(SharedChange(path, f"benchmark {bench.slug}", name, old, new, rounds))


def _round_uses(r: Round, task: Task) -> bool:
    """Whether `r`'s boards read `task`: an unpublished round may still take any task of its benchmark; a
    published one reads its frozen task set (or, before it is frozen, the tasks it has runs of)."""
    if r.status != RoundStatus.PUBLISHED:
        return True
    if r.task_keys:
        return task.key in r.task_keys
    return r.runs.filter(task=task).exists()


def _tasks(doc: dict, bench: Benchmark, out: SharedReport) -> None:
    tasks_doc = [t for t in doc.get("tasks") or [] if isinstance(t, dict)]
    stored = {t.key: t for t in Task.objects.filter(benchmark=bench, key__in=[t["key"] for t in tasks_doc])}
    rounds = list(Round.objects.filter(benchmark=bench).select_related("benchmark")) if stored else []
    versions: dict[int, dict[str, TaskVersion]] = {}
    for v in TaskVersion.objects.filter(task__in=stored.values()).select_related("task"):
        versions.setdefault(v.task_id, {})[v.version] = v
    for i, t in enumerate(tasks_doc):
        task = stored.get(t["key"])
        fed = [r for r in rounds if _round_uses(r, task)] if task is not None else []
        if task is not None:
            values = task_values(t, i)
            for name in TASK_COMPARED:
                if name in values and getattr(task, name) != values[name]:
                    out.changes.append(
                        SharedChange(
                            f"tasks[{i}].{name}", f"task {task.key}", name, getattr(task, name), values[name], fed
                        )
                    )
        history = list(t.get("history") or [])
        for j, h in enumerate([*history, t]):
            where = f"tasks[{i}]" if j == len(history) else f"tasks[{i}].history[{j}]"
            have = versions.get(task.id, {}) if task is not None else {}
            version = have.get(h.get("version") or "1.0")
            if version is None:
                _new_version(out, where, t, h, task, have, fed)
            else:
                _stored_version(out, where, version_values(t, h), version, fed)


def _new_version(
    out: SharedReport, where: str, t: dict, h: dict, task: Task | None, have: dict[str, TaskVersion], fed: list[Round]
) -> None:
    """A version the bundle adds: a change of a stored task's versions; one born published says so (its
    publication is the editor's step, which an upload key never takes)."""
    number = h.get("version") or "1.0"
    if task is not None:
        out.changes.append(
            SharedChange(f"{where}.version", f"task {task.key}", "versions", sorted(have), sorted([*have, number]), fed)
        )
    published_at = version_values(t, h).get("published_at")
    if published_at is not None:
        label = f"task {t['key']} version {number}"
        out.changes.append(SharedChange(f"{where}.published_at", label, "published_at", None, published_at, []))


def _stored_version(out: SharedReport, where: str, new: dict[str, Any], version: TaskVersion, fed: list[Round]) -> None:
    """Each field of a stored version the bundle changes; what the database's guard refuses (a published
    version's wording, its publication) no confirmation allows."""
    frozen = version.frozen_changes(new)
    name_of = f"version {version.version} of task {version.task.key!r}"
    for name in frozen:
        if name == "published_at":
            out.frozen.append(
                f"{where}.published_at: {name_of} is published ({version.published_at.isoformat()}) and stays "
                "published: send its published_at as stored, or leave it out"
            )
        else:
            out.frozen.append(
                f"{where}.{name}: {name_of} is published: its {name} never changes; give the new wording a new version"
            )
    for name in VERSION_COMPARED:
        if name in new and name not in frozen and getattr(version, name) != new[name]:
            label = f"task {version.task.key} version {version.version}"
            out.changes.append(SharedChange(f"{where}.{name}", label, name, getattr(version, name), new[name], fed))
