"""The results bundle: validation and conversion to scoring inputs, with no database.

One JSON document carries a benchmark's tasks, rounds, entries, runs (with verdicts) and votes. `import_bundle`
validates it here before writing anything; `recount` uses the same functions to turn a download back into
boards. Every problem is reported with its path in the document, e.g. ``runs[12].tests_passed: 7 > tests_total 5``.

Fields beyond DESIGN.md's list (all optional): benchmark ``params``/``description``/``task_set_version``;
task ``difficulty``, ``evaluation``, ``human_minutes``, ``tags``, ``parameters``, ``interruption``,
``evidence``, ``criteria``, ``published_at``, ``history``; round ``task_set_version``, ``preview_started_at``,
``changelog``; run ``auto_pass_rate`` (a test pass rate published without counts), ``app_started``,
``started_at``, ``preview_url``, ``evidence``, ``checks``, ``disputes``; verdict ``at``; vote ``id`` (its
stable identity: kept on import, written on export; see `vote_ids` for a bundle without ids).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from typing import Any

from . import methodologies
from .types import (
    EVALUATIONS,
    OUTCOMES,
    ROUND_STATUSES,
    RUN_STATUSES,
    TASK_KINDS,
    VERDICT_ROLES,
    WINNERS,
    AgentInput,
    EntryInput,
    RoundInput,
    RunInput,
    TaskInput,
    VerdictInput,
    VoteInput,
)

SLUG_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
DISPUTE_REASONS = ("wrong_version", "wrong_plan", "environment", "other")
DISPUTE_STATUSES = ("open", "accepted", "rejected")
EVIDENCE_KINDS = ("recording", "screenshot", "log", "audio", "transcript", "other")
CHECK_KINDS = ("start", "api", "page", "browser")
COUNT_PAIRS = (
    ("tests_passed", "tests_total"),
    ("api_checks_passed", "api_checks_total"),
    ("browser_steps_passed", "browser_steps_total"),
)
INT_FIELDS = (
    "tests_passed",
    "tests_total",
    "api_checks_passed",
    "api_checks_total",
    "browser_steps_passed",
    "browser_steps_total",
    "tokens_input",
    "tokens_output",
    "tokens_cache_write",
    "steps",
    "interventions",
)
FLOAT_FIELDS = ("cost_usd", "wall_seconds", "first_output_seconds")
STRING_FIELDS = ("language", "plan_label", "checks_version", "due_at", "started_at", "preview_url")
MAX_TEXT = 100_000


class BundleError(ValueError):
    """A bundle that cannot be used; `problems` lists each one with its path."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


class _Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, msg: str) -> None:
        self.problems.append(f"{path}: {msg}")

    def obj(self, v: Any, path: str) -> bool:
        if not isinstance(v, dict):
            self.add(path, f"must be an object, got {type(v).__name__}")
            return False
        return True

    def lst(self, parent: dict, key: str, path: str, required: bool = False) -> list:
        v = parent.get(key)
        if v is None:
            if required:
                self.add(f"{path}{key}", "is required")
            return []
        if not isinstance(v, list):
            self.add(f"{path}{key}", f"must be a list, got {type(v).__name__}")
            return []
        return v

    def string(self, parent: dict, key: str, path: str, required: bool = False, slug: bool = False,
               choices: Iterable[str] | None = None, max_len: int = 500) -> str | None:
        v = parent.get(key)
        p = f"{path}.{key}" if path else key
        if v is None:
            if required:
                self.add(p, "is required")
            return None
        if not isinstance(v, str):
            self.add(p, f"must be a string, got {type(v).__name__}")
            return None
        if required and not v.strip():
            self.add(p, "must not be empty")
            return None
        if len(v) > max_len:
            self.add(p, f"is longer than {max_len} characters")
            return None
        if slug and not SLUG_RE.match(v):
            self.add(p, f"{v!r} is not a valid key (letters, digits, '-', '_', '.')")
            return None
        if choices is not None:
            allowed = tuple(choices)
            if v not in allowed:
                self.add(p, f"{v!r} is not one of {', '.join(allowed)}")
                return None
        return v

    def integer(self, parent: dict, key: str, path: str, minimum: int = 0, required: bool = False) -> int | None:
        v = parent.get(key)
        p = f"{path}.{key}"
        if v is None:
            if required:
                self.add(p, "is required")
            return None
        if not _is_int(v):
            self.add(p, f"must be an integer or null, got {v!r}")
            return None
        if v < minimum:
            self.add(p, f"{v} is below {minimum}")
            return None
        return v

    def number(self, parent: dict, key: str, path: str, minimum: float | None = 0.0,
               maximum: float | None = None) -> float | None:
        v = parent.get(key)
        p = f"{path}.{key}"
        if v is None:
            return None
        if not _is_num(v):
            self.add(p, f"must be a number or null, got {v!r}")
            return None
        if minimum is not None and v < minimum:
            self.add(p, f"{v} is below {minimum}")
            return None
        if maximum is not None and v > maximum:
            self.add(p, f"{v} is above {maximum}")
            return None
        return float(v)


def validate_bundle(doc: Any) -> list[str]:
    """Return every problem in `doc`, each prefixed with its path; an empty list means the bundle is usable."""
    c = _Checker()
    if not c.obj(doc, "(document)"):
        return c.problems
    bench = doc.get("benchmark")
    methodology = None
    if bench is None:
        c.add("benchmark", "is required")
    elif c.obj(bench, "benchmark"):
        c.string(bench, "slug", "benchmark", required=True, slug=True)
        c.string(bench, "name", "benchmark", required=True)
        methodology = c.string(bench, "methodology", "benchmark", required=True, choices=tuple(methodologies.REGISTRY))
        params = bench.get("params")
        if params is not None:
            if c.obj(params, "benchmark.params"):
                c.number(params, "pass_threshold", "benchmark.params", minimum=0.0, maximum=1.0)
    for section in ("agents", "tasks", "rounds", "runs", "votes"):
        if section in doc and doc[section] is not None and not isinstance(doc[section], list):
            c.add(section, f"must be a list, got {type(doc[section]).__name__}")
            return c.problems

    agents: dict[str, dict] = {}
    for i, a in enumerate(doc.get("agents") or []):
        p = f"agents[{i}]"
        if not c.obj(a, p):
            continue
        slug = c.string(a, "slug", p, required=True, slug=True)
        c.string(a, "name", p, required=True)
        c.string(a, "organization", p)
        c.string(a, "primary_language", p, max_len=20)
        langs = a.get("languages")
        if langs is not None and (not isinstance(langs, list) or not all(isinstance(x, str) for x in langs)):
            c.add(f"{p}.languages", "must be a list of strings")
        if slug:
            if slug in agents:
                c.add(f"{p}.slug", f"duplicate agent {slug!r}")
            agents[slug] = a

    tasks: dict[str, dict] = {}
    for i, t in enumerate(doc.get("tasks") or []):
        p = f"tasks[{i}]"
        if not c.obj(t, p):
            continue
        key = c.string(t, "key", p, required=True, slug=True)
        c.string(t, "title", p, max_len=300)
        c.string(t, "version", p, required=True, max_len=20)
        if t.get("version") is not None and isinstance(t.get("version"), str):
            if not re.match(r"^\d+(\.\d+)*$", t["version"]):
                c.add(f"{p}.version", f"{t['version']!r} is not a version like 1.0 or 2.1")
        c.string(t, "kind", p, required=True, choices=TASK_KINDS)
        c.string(t, "evaluation", p, choices=EVALUATIONS)
        c.string(t, "prompt", p, max_len=MAX_TEXT)
        c.string(t, "domain", p, max_len=100)
        dims = t.get("dimensions")
        if dims is not None and (not isinstance(dims, list) or not all(isinstance(x, str) for x in dims)):
            c.add(f"{p}.dimensions", "must be a list of strings")
        c.number(t, "time_limit_min", p, minimum=0.0)
        c.integer(t, "token_budget", p, minimum=0)
        for j, h in enumerate(c.lst(t, "history", f"{p}.")):
            if c.obj(h, f"{p}.history[{j}]"):
                c.string(h, "version", f"{p}.history[{j}]", required=True, max_len=20)
        if key:
            if key in tasks:
                c.add(f"{p}.key", f"duplicate task {key!r}")
            tasks[key] = t

    rounds: dict[str, dict] = {}
    entries: set[tuple[str, str]] = set()
    for i, r in enumerate(doc.get("rounds") or []):
        p = f"rounds[{i}]"
        if not c.obj(r, p):
            continue
        key = c.string(r, "key", p, required=True, slug=True)
        c.string(r, "name", p, max_len=200)
        c.string(r, "status", p, required=True, choices=ROUND_STATUSES)
        if key:
            if key in rounds:
                c.add(f"{p}.key", f"duplicate round {key!r}")
            rounds[key] = r
        for j, e in enumerate(c.lst(r, "entries", f"{p}.")):
            ep = f"{p}.entries[{j}]"
            if not c.obj(e, ep):
                continue
            ag = c.string(e, "agent", ep, required=True)
            if ag is not None:
                if ag not in agents:
                    c.add(f"{ep}.agent", f"unknown agent {ag!r}")
                elif key and (key, ag) in entries:
                    c.add(f"{ep}.agent", f"agent {ag!r} entered twice in round {key!r}")
                entries.add((key or "", ag))
            for f in ("product_version", "plan", "region", "network", "model", "cli"):
                c.string(e, f, ep, max_len=200)
        round_tasks = r.get("tasks")
        if round_tasks is not None:
            if not isinstance(round_tasks, list) or not all(isinstance(t, str) for t in round_tasks):
                c.add(f"{p}.tasks", "must be a list of task keys")
            else:
                for tk in round_tasks:
                    if tk not in tasks:
                        c.add(f"{p}.tasks", f"unknown task {tk!r}")
                if len(set(round_tasks)) != len(round_tasks):
                    c.add(f"{p}.tasks", "a task is listed twice")
        params = r.get("parameters")
        if params is not None and c.obj(params, f"{p}.parameters"):
            for tk, values in params.items():
                if tk not in tasks:
                    c.add(f"{p}.parameters.{tk}", f"unknown task {tk!r}")
                elif not isinstance(values, dict):
                    c.add(f"{p}.parameters.{tk}", "must be an object of name: value")
        for j, ch in enumerate(c.lst(r, "changelog", f"{p}.")):
            if c.obj(ch, f"{p}.changelog[{j}]"):
                c.string(ch, "what", f"{p}.changelog[{j}]", required=True, max_len=MAX_TEXT)

    runs: dict[str, dict] = {}
    run_list = doc.get("runs") or []
    for i, run in enumerate(run_list):
        p = f"runs[{i}]"
        if not c.obj(run, p):
            continue
        rid = run.get("id")
        if _is_int(rid):
            rid = str(rid)
        if not isinstance(rid, str) or not rid:
            c.add(f"{p}.id", "is required (a string)")
            rid = None
        elif rid in runs:
            c.add(f"{p}.id", f"duplicate run id {rid!r}")
        else:
            runs[rid] = run
        rk = c.string(run, "round", p, required=True)
        if rk is not None and rk not in rounds:
            c.add(f"{p}.round", f"unknown round {rk!r}")
        elif rk is not None and isinstance(rounds[rk].get("tasks"), list) and run.get("task") in tasks \
                and run.get("task") not in rounds[rk]["tasks"]:
            c.add(f"{p}.task", f"task {run.get('task')!r} is not in round {rk!r}'s tasks")
        ag = c.string(run, "agent", p, required=True)
        if ag is not None and ag not in agents:
            c.add(f"{p}.agent", f"unknown agent {ag!r}")
        elif ag is not None and rk in rounds and (rk, ag) not in entries:
            c.add(f"{p}.agent", f"agent {ag!r} has no entry in round {rk!r}")
        tk = c.string(run, "task", p, required=True)
        if tk is not None and tk not in tasks:
            c.add(f"{p}.task", f"unknown task {tk!r}")
        c.string(run, "task_version", p, max_len=20)
        c.integer(run, "trial", p, minimum=1)
        c.string(run, "status", p, required=True, choices=RUN_STATUSES)
        c.string(run, "outcome", p, choices=OUTCOMES)
        for f in INT_FIELDS:
            c.integer(run, f, p)
        for f in FLOAT_FIELDS:
            c.number(run, f, p)
        for f in STRING_FIELDS:
            c.string(run, f, p, max_len=2000)
        c.number(run, "score", p, minimum=None)
        c.number(run, "auto_pass_rate", p, minimum=0.0, maximum=1.0)
        c.number(run, "heuristic", p, minimum=0.0, maximum=1.0)
        if run.get("app_started") is not None and not isinstance(run.get("app_started"), bool):
            c.add(f"{p}.app_started", "must be true, false or null")
        for a, b in COUNT_PAIRS:
            pa, pb = run.get(a), run.get(b)
            if _is_int(pa) and _is_int(pb) and pa > pb:
                c.add(f"{p}.{a}", f"{pa} > {b} {pb}")
            if _is_int(pa) and pb is None:
                c.add(f"{p}.{b}", f"is required when {a} is given")
        js = run.get("judge_scores")
        if js is not None:
            if not isinstance(js, list):
                c.add(f"{p}.judge_scores", "must be a list of numbers")
            else:
                for j, s in enumerate(js):
                    if not _is_num(s) or s < 1 or s > 10:
                        c.add(f"{p}.judge_scores[{j}]", f"{s!r} is not a score from 1 to 10")
        roles: set[str] = set()
        for j, v in enumerate(c.lst(run, "verdicts", f"{p}.")):
            vp = f"{p}.verdicts[{j}]"
            if not c.obj(v, vp):
                continue
            role = c.string(v, "role", vp, required=True, choices=VERDICT_ROLES)
            if role:
                if role in roles:
                    c.add(f"{vp}.role", f"a second {role!r} verdict on the same run")
                roles.add(role)
            out = c.string(v, "outcome", vp, choices=OUTCOMES)
            matched = v.get("matched")
            if matched is not None:
                if not isinstance(matched, list) or not all(isinstance(m, str) for m in matched):
                    c.add(f"{vp}.matched", "must be a list of outcomes")
                else:
                    for m in matched:
                        if m not in OUTCOMES:
                            c.add(f"{vp}.matched", f"{m!r} is not one of {', '.join(OUTCOMES)}")
            if out is None and not matched:
                c.add(vp, "needs an outcome or matched outcomes")
            c.string(v, "note", vp, max_len=MAX_TEXT)
        for j, e in enumerate(c.lst(run, "evidence", f"{p}.")):
            ep = f"{p}.evidence[{j}]"
            if c.obj(e, ep):
                c.string(e, "kind", ep, required=True, choices=EVIDENCE_KINDS)
                c.string(e, "url", ep, required=True, max_len=2000)
        for j, ch in enumerate(c.lst(run, "checks", f"{p}.")):
            cp = f"{p}.checks[{j}]"
            if c.obj(ch, cp):
                c.string(ch, "kind", cp, required=True, choices=CHECK_KINDS)
                c.string(ch, "name", cp, required=True)
                if not isinstance(ch.get("passed"), bool):
                    c.add(f"{cp}.passed", "must be true or false")
        for j, d in enumerate(c.lst(run, "disputes", f"{p}.")):
            dp = f"{p}.disputes[{j}]"
            if c.obj(d, dp):
                c.string(d, "reason", dp, required=True, choices=DISPUTE_REASONS)
                c.string(d, "status", dp, choices=DISPUTE_STATUSES)
                c.string(d, "note", dp, max_len=MAX_TEXT)

    # Cross-run rules need every id first.
    reruns_of: dict[str, int] = {}
    for i, run in enumerate(run_list):
        if not isinstance(run, dict) or run.get("rerun_of") is None:
            continue
        p = f"runs[{i}].rerun_of"
        orig = run["rerun_of"]
        orig = str(orig) if _is_int(orig) else orig
        if not isinstance(orig, str) or orig not in runs:
            c.add(p, f"unknown run {orig!r}")
            continue
        o = runs[orig]
        if o.get("rerun_of") is not None:
            c.add(p, f"run {orig!r} is itself a re-run; a re-run cannot be re-run")
        if str(run.get("id")) == orig:
            c.add(p, "a run cannot be its own re-run")
        if o.get("round") != run.get("round") or o.get("agent") != run.get("agent") or \
                o.get("task") != run.get("task"):
            c.add(p, f"run {orig!r} is for another round, agent or task")
        if orig in reruns_of:
            c.add(p, f"run {orig!r} already has a re-run (runs[{reruns_of[orig]}])")
        reruns_of[orig] = i

    vote_ids: dict[str, int] = {}
    for i, v in enumerate(doc.get("votes") or []):
        p = f"votes[{i}]"
        if not c.obj(v, p):
            continue
        vid = v.get("id")
        if vid is not None:
            if _is_int(vid):
                vid = str(vid)
            if not isinstance(vid, str) or not vid or len(vid) > 100:
                c.add(f"{p}.id", "must be a non-empty string of at most 100 characters")
            elif vid in vote_ids:
                c.add(f"{p}.id", f"duplicate vote id {vid!r} (votes[{vote_ids[vid]}])")
            else:
                vote_ids[vid] = i
        tk = c.string(v, "task", p, required=True)
        if tk is not None and tk not in tasks:
            c.add(f"{p}.task", f"unknown task {tk!r}")
        slug_a = c.string(v, "a", p, required=True)
        slug_b = c.string(v, "b", p, required=True)
        for side, agent_slug in (("a", slug_a), ("b", slug_b)):
            if agent_slug is not None and agent_slug not in agents:
                c.add(f"{p}.{side}", f"unknown agent {agent_slug!r}")
        if slug_a is not None and slug_a == slug_b:
            c.add(f"{p}.b", "an agent cannot be matched against itself")
        c.string(v, "winner", p, required=True, choices=WINNERS)
        c.string(v, "voter", p, max_len=100)
        if v.get("counts") is not None and not isinstance(v.get("counts"), bool):
            c.add(f"{p}.counts", "must be true or false")
    _ = methodology
    return c.problems


def check_bundle(doc: Any) -> None:
    """Raise `BundleError` listing every problem, or return quietly."""
    problems = validate_bundle(doc)
    if problems:
        raise BundleError(problems)


def _tuple(v: Any) -> tuple:
    return tuple(v) if v else ()


def _run_input(run: dict) -> RunInput:
    verdicts = tuple(
        VerdictInput(role=v["role"], outcome=v.get("outcome"), matched=_tuple(v.get("matched")),
                     note=v.get("note") or "")
        for v in run.get("verdicts") or []
    )
    rerun = run.get("rerun_of")
    return RunInput(
        id=str(run["id"]),
        round=run["round"],
        agent=run["agent"],
        task=run["task"],
        task_version=run.get("task_version") or "1.0",
        trial=run.get("trial") or 1,
        language=run.get("language"),
        status=run["status"],
        outcome=run.get("outcome"),
        verdicts=verdicts,
        rerun_of=str(rerun) if rerun is not None else None,
        score=run.get("score"),
        auto_pass_rate=run.get("auto_pass_rate"),
        tests_passed=run.get("tests_passed"),
        tests_total=run.get("tests_total"),
        judge_scores=tuple(float(x) for x in run.get("judge_scores") or ()),
        heuristic=run.get("heuristic"),
        app_started=run.get("app_started"),
        api_checks_passed=run.get("api_checks_passed"),
        api_checks_total=run.get("api_checks_total"),
        browser_steps_passed=run.get("browser_steps_passed"),
        browser_steps_total=run.get("browser_steps_total"),
        tokens_input=run.get("tokens_input"),
        tokens_output=run.get("tokens_output"),
        tokens_cache_write=run.get("tokens_cache_write"),
        cost_usd=run.get("cost_usd"),
        plan_label=run.get("plan_label"),
        wall_seconds=run.get("wall_seconds"),
        first_output_seconds=run.get("first_output_seconds"),
        steps=run.get("steps"),
        interventions=run.get("interventions"),
        checks_version=run.get("checks_version"),
    )


def round_task_keys(round_doc: dict, runs: Iterable[RunInput] | Iterable[dict]) -> set[str]:
    """A round's task set: its `tasks` when given (frozen at publication), else the tasks with any run in the
    round. Every board of the round is over this set, so a task added for a later round never changes an
    earlier round's numbers."""
    if isinstance(round_doc.get("tasks"), list):
        return set(round_doc["tasks"])
    return {r.task if isinstance(r, RunInput) else r["task"] for r in runs}


def round_inputs(doc: dict, round_key: str | None = None) -> list[RoundInput]:
    """Turn a valid bundle into one `RoundInput` per round (or just `round_key`), in document order."""
    bench = doc["benchmark"]
    agents = tuple(
        AgentInput(slug=a["slug"], name=a.get("name") or a["slug"], organization=a.get("organization"),
                   primary_language=a.get("primary_language"), languages=_tuple(a.get("languages")))
        for a in doc.get("agents") or []
    )
    tasks = tuple(
        TaskInput(key=t["key"], title=t.get("title") or "", kind=t.get("kind") or "core",
                  version=t.get("version") or "1.0", dimensions=_tuple(t.get("dimensions")),
                  domain=t.get("domain"), evaluation=t.get("evaluation"),
                  time_limit_min=t.get("time_limit_min", 30), token_budget=t.get("token_budget"))
        for t in doc.get("tasks") or []
    )
    runs_by_round: dict[str, list[RunInput]] = {}
    for run in doc.get("runs") or []:
        runs_by_round.setdefault(run["round"], []).append(_run_input(run))
    out = []
    for r in doc.get("rounds") or []:
        if round_key is not None and r["key"] != round_key:
            continue
        task_set = round_task_keys(r, runs_by_round.get(r["key"], []))
        round_tasks = tuple(t for t in tasks if t.key in task_set)
        entries = tuple(
            EntryInput(agent=e["agent"], product_version=e.get("product_version"), plan=e.get("plan"),
                       region=e.get("region"), network=e.get("network"), model=e.get("model"),
                       cli=e.get("cli"))
            for e in r.get("entries") or []
        )
        out.append(RoundInput(
            benchmark=bench["slug"], methodology=bench["methodology"], key=r["key"], tasks=round_tasks,
            agents=agents, entries=entries, runs=tuple(runs_by_round.get(r["key"], [])),
            params=dict(bench.get("params") or {}), status=r.get("status", "published"),
            starts_on=r.get("starts_on"),
        ))
    return out


def vote_ids(doc: dict) -> list[str]:
    """Each vote's identity, in document order: its `id` when it has one; otherwise one derived from its
    position in the document and its content, so importing the same file again finds every vote it stored
    (and two identical anonymous votes stay two votes). `counts` is left out of the derivation, so a file that
    only flips `counts` updates the stored votes instead of adding copies."""
    out = []
    for i, v in enumerate(doc.get("votes") or []):
        if v.get("id") is not None:
            out.append(str(v["id"]))
            continue
        content = json.dumps([v.get("task"), v.get("a"), v.get("b"), v.get("winner"), v.get("voter"),
                              v.get("cast_at")], separators=(",", ":"))
        out.append(f"pos{i}-{hashlib.sha256(content.encode()).hexdigest()[:12]}")
    return out


def vote_inputs(doc: dict) -> list[VoteInput]:
    return [
        VoteInput(task=v["task"], a=v["a"], b=v["b"], winner=v["winner"], voter=v.get("voter"),
                  counts=v.get("counts", True) is not False)
        for v in doc.get("votes") or []
    ]
