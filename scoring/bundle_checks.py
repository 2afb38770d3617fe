"""The checks on a results bundle (its format: `scoring.bundle`), with no database.

`validate_bundle` runs one checker per section, in document order, and returns every problem with its path in
the document, e.g. ``runs[12].tests_passed: 7 > tests_total 5``. A later section is checked against what the
earlier ones declared (a run's agent must be one of `agents`, its round one of `rounds`), so a checker receives
the `_Declared` keys gathered so far.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import methodologies
from .types import (
    EVALUATIONS,
    KEY_MAX_LENGTH,
    KEY_PATTERN,
    OUTCOMES,
    ROUND_STATUSES,
    RUN_STATUSES,
    TASK_KINDS,
    VERDICT_ROLES,
    VERSION_PATTERN,
    WINNERS,
)

SLUG_RE = re.compile(KEY_PATTERN)
VERSION_RE = re.compile(VERSION_PATTERN)
SECTIONS = ("agents", "tasks", "rounds", "runs", "votes")
DISPUTE_REASONS = ("wrong_version", "wrong_plan", "environment", "other")
DISPUTE_STATUSES = ("open", "accepted", "rejected")
EVIDENCE_KINDS = ("recording", "screenshot", "log", "audio", "transcript", "other")
CHECK_KINDS = ("start", "api", "page", "browser")
ENTRY_FIELDS = ("product_version", "plan", "region", "network", "model", "cli")
COUNT_PAIRS = (
    ("tests_passed", "tests_total"),
    ("api_checks_passed", "api_checks_total"),
    ("browser_steps_passed", "browser_steps_total"),
)
INT_FIELDS = (
    "tests_passed", "tests_total", "api_checks_passed", "api_checks_total", "browser_steps_passed",
    "browser_steps_total", "tokens_input", "tokens_output", "tokens_cache_write", "steps", "interventions",
)
FLOAT_FIELDS = ("cost_usd", "wall_seconds", "first_output_seconds")
STRING_FIELDS = ("language", "plan_label", "checks_version", "due_at", "started_at", "preview_url")
MAX_TEXT = 100_000


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _id(v: Any) -> Any:
    """An id may be written as an integer; it is the same id as its digits."""
    return str(v) if _is_int(v) else v


class _Checker:
    """Collects problems, each with its path; every check returns the value when it is usable, else None."""

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

    def objects(self, items: Iterable[Any], path: str) -> Iterator[tuple[int, str, dict]]:
        """The objects among `items`, each with its index and path (``path[i]``); any other item is reported."""
        for i, item in enumerate(items):
            item_path = f"{path}[{i}]"
            if self.obj(item, item_path):
                yield i, item_path, item

    def each(self, parent: dict, key: str, path: str) -> Iterator[tuple[int, str, dict]]:
        """The objects in the optional list ``parent[key]``, each with its path (``path.key[i]``)."""
        yield from self.objects(self.lst(parent, key, f"{path}."), f"{path}.{key}")

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
        if slug and (len(v) > KEY_MAX_LENGTH or not SLUG_RE.match(v)):
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


@dataclass
class _Declared:
    """What the sections checked so far declare, by key: a later section may refer only to these."""

    agents: dict[str, dict] = field(default_factory=dict)
    tasks: dict[str, dict] = field(default_factory=dict)
    rounds: dict[str, dict] = field(default_factory=dict)
    entries: set[tuple[str, str]] = field(default_factory=set)
    runs: dict[str, dict] = field(default_factory=dict)


def validate_bundle(doc: Any) -> list[str]:
    """Return every problem in `doc`, each prefixed with its path; an empty list means the bundle is usable.

    A section that is not a list stops the checks there: nothing after it could be checked against it."""
    c = _Checker()
    if not c.obj(doc, "(document)"):
        return c.problems
    _check_benchmark(c, doc.get("benchmark"))
    if not _check_sections_are_lists(c, doc):
        return c.problems
    declared = _Declared()
    _check_agents(c, doc.get("agents") or [], declared)
    _check_tasks(c, doc.get("tasks") or [], declared)
    _check_rounds(c, doc.get("rounds") or [], declared)
    _check_runs(c, doc.get("runs") or [], declared)
    _check_votes(c, doc.get("votes") or [], declared)
    return c.problems


def _check_benchmark(c: _Checker, bench: Any) -> None:
    """The benchmark: a key, a name, a known methodology, and a pass threshold between 0 and 1 if given."""
    if bench is None:
        c.add("benchmark", "is required")
        return
    if not c.obj(bench, "benchmark"):
        return
    c.string(bench, "slug", "benchmark", required=True, slug=True)
    c.string(bench, "name", "benchmark", required=True)
    c.string(bench, "methodology", "benchmark", required=True, choices=tuple(methodologies.REGISTRY))
    params = bench.get("params")
    if params is not None and c.obj(params, "benchmark.params"):
        c.number(params, "pass_threshold", "benchmark.params", minimum=0.0, maximum=1.0)


def _check_sections_are_lists(c: _Checker, doc: dict) -> bool:
    """Report the first section that is present but not a list; True when there is none."""
    for section in SECTIONS:
        if section in doc and doc[section] is not None and not isinstance(doc[section], list):
            c.add(section, f"must be a list, got {type(doc[section]).__name__}")
            return False
    return True


def _check_agents(c: _Checker, agents: list, declared: _Declared) -> None:
    """Each agent: a unique key, a name, and its languages as a list of strings."""
    for _, p, a in c.objects(agents, "agents"):
        slug = c.string(a, "slug", p, required=True, slug=True)
        c.string(a, "name", p, required=True)
        c.string(a, "organization", p)
        c.string(a, "primary_language", p, max_len=20)
        langs = a.get("languages")
        if langs is not None and not _is_str_list(langs):
            c.add(f"{p}.languages", "must be a list of strings")
        if slug:
            if slug in declared.agents:
                c.add(f"{p}.slug", f"duplicate agent {slug!r}")
            declared.agents[slug] = a


def _check_tasks(c: _Checker, tasks: list, declared: _Declared) -> None:
    """Each task: a unique key, a version like 1.0, a known kind, and well-formed limits and history."""
    for _, p, t in c.objects(tasks, "tasks"):
        key = c.string(t, "key", p, required=True, slug=True)
        c.string(t, "title", p, max_len=300)
        c.string(t, "version", p, required=True, max_len=20)
        version = t.get("version")
        if isinstance(version, str) and not VERSION_RE.match(version):
            c.add(f"{p}.version", f"{version!r} is not a version like 1.0 or 2.1")
        c.string(t, "kind", p, required=True, choices=TASK_KINDS)
        c.string(t, "evaluation", p, choices=EVALUATIONS)
        c.string(t, "prompt", p, max_len=MAX_TEXT)
        c.string(t, "domain", p, max_len=100)
        dims = t.get("dimensions")
        if dims is not None and not _is_str_list(dims):
            c.add(f"{p}.dimensions", "must be a list of strings")
        c.number(t, "time_limit_min", p, minimum=0.0)
        c.integer(t, "token_budget", p, minimum=0)
        for _, hp, h in c.each(t, "history", p):
            c.string(h, "version", hp, required=True, max_len=20)
        if key:
            if key in declared.tasks:
                c.add(f"{p}.key", f"duplicate task {key!r}")
            declared.tasks[key] = t


def _check_rounds(c: _Checker, rounds: list, declared: _Declared) -> None:
    """Each round: a unique key and a known status, then its entries, task set, parameters and changelog."""
    for _, p, r in c.objects(rounds, "rounds"):
        key = c.string(r, "key", p, required=True, slug=True)
        c.string(r, "name", p, max_len=200)
        c.string(r, "status", p, required=True, choices=ROUND_STATUSES)
        if key:
            if key in declared.rounds:
                c.add(f"{p}.key", f"duplicate round {key!r}")
            declared.rounds[key] = r
        _check_entries(c, r, p, key, declared)
        _check_round_task_set(c, r.get("tasks"), p, declared)
        _check_round_parameters(c, r.get("parameters"), p, declared)
        for _, chp, ch in c.each(r, "changelog", p):
            c.string(ch, "what", chp, required=True, max_len=MAX_TEXT)


def _check_entries(c: _Checker, r: dict, p: str, round_key: str | None, declared: _Declared) -> None:
    """A round's entries: each of a known agent, entered once."""
    for _, ep, e in c.each(r, "entries", p):
        ag = c.string(e, "agent", ep, required=True)
        if ag is not None:
            if ag not in declared.agents:
                c.add(f"{ep}.agent", f"unknown agent {ag!r}")
            elif round_key and (round_key, ag) in declared.entries:
                c.add(f"{ep}.agent", f"agent {ag!r} entered twice in round {round_key!r}")
            declared.entries.add((round_key or "", ag))
        for f in ENTRY_FIELDS:
            c.string(e, f, ep, max_len=200)


def _check_round_task_set(c: _Checker, round_tasks: Any, p: str, declared: _Declared) -> None:
    """A round's own task set, if given: known task keys, each listed once."""
    if round_tasks is None:
        return
    if not _is_str_list(round_tasks):
        c.add(f"{p}.tasks", "must be a list of task keys")
        return
    for tk in round_tasks:
        if tk not in declared.tasks:
            c.add(f"{p}.tasks", f"unknown task {tk!r}")
    if len(set(round_tasks)) != len(round_tasks):
        c.add(f"{p}.tasks", "a task is listed twice")


def _check_round_parameters(c: _Checker, params: Any, p: str, declared: _Declared) -> None:
    """A round's parameters, if given: {task key: {name: value}} for known tasks."""
    if params is None or not c.obj(params, f"{p}.parameters"):
        return
    for tk, values in params.items():
        if tk not in declared.tasks:
            c.add(f"{p}.parameters.{tk}", f"unknown task {tk!r}")
        elif not isinstance(values, dict):
            c.add(f"{p}.parameters.{tk}", "must be an object of name: value")


def _check_runs(c: _Checker, runs: list, declared: _Declared) -> None:
    """Each run on its own, then the re-runs, which need every run's id first."""
    for _, p, run in c.objects(runs, "runs"):
        _check_run_id(c, run, p, declared)
        _check_run_references(c, run, p, declared)
        _check_run_fields(c, run, p)
        _check_run_counts(c, run, p)
        _check_verdicts(c, run, p)
        _check_run_attachments(c, run, p)
    _check_reruns(c, runs, declared)


def _check_run_id(c: _Checker, run: dict, p: str, declared: _Declared) -> None:
    """A run's id: a non-empty string (or an integer), unique in the bundle."""
    rid = _id(run.get("id"))
    if not isinstance(rid, str) or not rid:
        c.add(f"{p}.id", "is required (a string)")
    elif rid in declared.runs:
        c.add(f"{p}.id", f"duplicate run id {rid!r}")
    else:
        declared.runs[rid] = run


def _check_run_references(c: _Checker, run: dict, p: str, declared: _Declared) -> None:
    """A run's round, agent and task are declared; its agent has an entry in the round, and its task is in the
    round's own task set when the round has one."""
    rounds, tasks = declared.rounds, declared.tasks
    rk = c.string(run, "round", p, required=True)
    if rk is not None and rk not in rounds:
        c.add(f"{p}.round", f"unknown round {rk!r}")
    elif rk is not None and isinstance(rounds[rk].get("tasks"), list) and isinstance(run.get("task"), str) \
            and run["task"] in tasks and run["task"] not in rounds[rk]["tasks"]:
        c.add(f"{p}.task", f"task {run['task']!r} is not in round {rk!r}'s tasks")
    ag = c.string(run, "agent", p, required=True)
    if ag is not None and ag not in declared.agents:
        c.add(f"{p}.agent", f"unknown agent {ag!r}")
    elif ag is not None and rk in rounds and (rk, ag) not in declared.entries:
        c.add(f"{p}.agent", f"agent {ag!r} has no entry in round {rk!r}")
    tk = c.string(run, "task", p, required=True)
    if tk is not None and tk not in tasks:
        c.add(f"{p}.task", f"unknown task {tk!r}")


def _check_run_fields(c: _Checker, run: dict, p: str) -> None:
    """A run's own values: status and outcome from their lists, numbers in range, strings of bounded length."""
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


def _check_run_counts(c: _Checker, run: dict, p: str) -> None:
    """No more passed than there are in total, and a total whenever a passed count is given; judge scores
    from 1 to 10."""
    for a, b in COUNT_PAIRS:
        pa: Any = run.get(a)
        pb: Any = run.get(b)
        if _is_int(pa) and _is_int(pb) and pa > pb:
            c.add(f"{p}.{a}", f"{pa} > {b} {pb}")
        if _is_int(pa) and pb is None:
            c.add(f"{p}.{b}", f"is required when {a} is given")
    js = run.get("judge_scores")
    if js is None:
        return
    if not isinstance(js, list):
        c.add(f"{p}.judge_scores", "must be a list of numbers")
        return
    for j, s in enumerate(js):
        if not _is_num(s) or s < 1 or s > 10:
            c.add(f"{p}.judge_scores[{j}]", f"{s!r} is not a score from 1 to 10")


def _check_verdicts(c: _Checker, run: dict, p: str) -> None:
    """A run's verdicts: one per role, each with an outcome or matched outcomes."""
    roles: set[str] = set()
    for _, vp, v in c.each(run, "verdicts", p):
        role = c.string(v, "role", vp, required=True, choices=VERDICT_ROLES)
        if role:
            if role in roles:
                c.add(f"{vp}.role", f"a second {role!r} verdict on the same run")
            roles.add(role)
        out = c.string(v, "outcome", vp, choices=OUTCOMES)
        matched = v.get("matched")
        if matched is not None:
            if not _is_str_list(matched):
                c.add(f"{vp}.matched", "must be a list of outcomes")
            else:
                for m in matched:
                    if m not in OUTCOMES:
                        c.add(f"{vp}.matched", f"{m!r} is not one of {', '.join(OUTCOMES)}")
        if out is None and not matched:
            c.add(vp, "needs an outcome or matched outcomes")
        c.string(v, "note", vp, max_len=MAX_TEXT)


def _check_run_attachments(c: _Checker, run: dict, p: str) -> None:
    """A run's evidence, checks and disputes, each of a known kind or reason."""
    for _, ep, e in c.each(run, "evidence", p):
        c.string(e, "kind", ep, required=True, choices=EVIDENCE_KINDS)
        c.string(e, "url", ep, required=True, max_len=2000)
    for _, cp, ch in c.each(run, "checks", p):
        c.string(ch, "kind", cp, required=True, choices=CHECK_KINDS)
        c.string(ch, "name", cp, required=True)
        if not isinstance(ch.get("passed"), bool):
            c.add(f"{cp}.passed", "must be true or false")
    for _, dp, d in c.each(run, "disputes", p):
        c.string(d, "reason", dp, required=True, choices=DISPUTE_REASONS)
        c.string(d, "status", dp, choices=DISPUTE_STATUSES)
        c.string(d, "note", dp, max_len=MAX_TEXT)


def _check_reruns(c: _Checker, runs: list, declared: _Declared) -> None:
    """A re-run names a known run of the same round, agent and task, which is not itself a re-run, is not the
    re-run itself, and has no other re-run."""
    reruns_of: dict[str, int] = {}
    for i, run in enumerate(runs):
        if not isinstance(run, dict) or run.get("rerun_of") is None:
            continue
        p = f"runs[{i}].rerun_of"
        orig = _id(run["rerun_of"])
        if not isinstance(orig, str) or orig not in declared.runs:
            c.add(p, f"unknown run {orig!r}")
            continue
        o = declared.runs[orig]
        if o.get("rerun_of") is not None:
            c.add(p, f"run {orig!r} is itself a re-run; a re-run cannot be re-run")
        if str(run.get("id")) == orig:
            c.add(p, "a run cannot be its own re-run")
        if any(o.get(k) != run.get(k) for k in ("round", "agent", "task")):
            c.add(p, f"run {orig!r} is for another round, agent or task")
        if orig in reruns_of:
            c.add(p, f"run {orig!r} already has a re-run (runs[{reruns_of[orig]}])")
        reruns_of[orig] = i


def _check_votes(c: _Checker, votes: list, declared: _Declared) -> None:
    """Each vote: a unique id if given, a known task, two different known agents, a winner from the list."""
    vote_ids: dict[str, int] = {}
    for i, p, v in c.objects(votes, "votes"):
        _check_vote_id(c, v, p, i, vote_ids)
        tk = c.string(v, "task", p, required=True)
        if tk is not None and tk not in declared.tasks:
            c.add(f"{p}.task", f"unknown task {tk!r}")
        slug_a = c.string(v, "a", p, required=True)
        slug_b = c.string(v, "b", p, required=True)
        for side, agent_slug in (("a", slug_a), ("b", slug_b)):
            if agent_slug is not None and agent_slug not in declared.agents:
                c.add(f"{p}.{side}", f"unknown agent {agent_slug!r}")
        if slug_a is not None and slug_a == slug_b:
            c.add(f"{p}.b", "an agent cannot be matched against itself")
        c.string(v, "winner", p, required=True, choices=WINNERS)
        c.string(v, "voter", p, max_len=100)
        if v.get("counts") is not None and not isinstance(v.get("counts"), bool):
            c.add(f"{p}.counts", "must be true or false")


def _check_vote_id(c: _Checker, v: dict, p: str, i: int, vote_ids: dict[str, int]) -> None:
    """A vote's id, if given: a non-empty string (or an integer) of at most 100 characters, unique."""
    vid = v.get("id")
    if vid is None:
        return
    vid = _id(vid)
    if not isinstance(vid, str) or not vid or len(vid) > 100:
        c.add(f"{p}.id", "must be a non-empty string of at most 100 characters")
    elif vid in vote_ids:
        c.add(f"{p}.id", f"duplicate vote id {vid!r} (votes[{vote_ids[vid]}])")
    else:
        vote_ids[vid] = i
