"""The checks on a results bundle (its format: `scoring.bundle`), with no database.

`validate_bundle` runs one checker per section, in document order, and returns every problem with its path in
the document, e.g. ``runs[12].tests_passed: 7 > tests_total 5``. A later section is checked against what the
earlier ones declared (a run's agent must be one of `agents`, its round one of `rounds`), so a checker receives
the `Declared` keys gathered so far.
"""

from __future__ import annotations

from typing import Any

from . import methodologies
from .bundle_checker import (
    BIGINT_MAX,
    MAX_TEXT,
    SECTIONS,
    SLUG_RE,
    VERSION_RE,
    Checker,
    Declared,
    bundle_id,
    document_problems,
    is_str_list,
)
from .bundle_run_checks import (
    check_runs,
    round_week_problem,
)
from .readings import SITE, Readings
from .types import (
    ENTRY_FIELDS,
    EVALUATIONS,
    ROUND_STATUSES,
    TASK_KINDS,
    WINNERS,
)

__all__ = ["SLUG_RE", "VERSION_RE", "validate_bundle"]


def validate_bundle(doc: Any, *, readings: Readings = SITE) -> list[str]:
    """Return every problem in `doc`, each prefixed with its path; an empty list means the bundle is usable.
    `readings`: the readings of the methodology's open questions the boards will be computed under (a task limit a
    methodology requires may have a default under another reading, `Methodology.limit_problems`).

    A section that is not a list stops the checks there: nothing after it could be checked against it."""
    c = Checker()
    if not c.obj(doc, "(document)"):
        return c.problems
    unstorable = document_problems(doc)
    if unstorable:
        return unstorable  # the section checks assume text and numbers the database takes
    _check_benchmark(c, doc.get("benchmark"))
    if not _check_sections_are_lists(c, doc):
        return c.problems
    bench = doc.get("benchmark")
    declared = Declared(methodology=bench.get("methodology") if isinstance(bench, dict) else None)
    _check_agents(c, doc.get("agents") or [], declared)
    _check_tasks(c, doc.get("tasks") or [], declared, readings)
    _check_rounds(c, doc.get("rounds") or [], declared)
    check_runs(c, doc.get("runs") or [], declared)
    _check_votes(c, doc.get("votes") or [], declared)
    return c.problems


def _check_benchmark(c: Checker, bench: Any) -> None:
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
        hours = c.number(params, "preview_hours", "benchmark.params", minimum=0.0, maximum=10000.0)
        if hours is not None and hours != int(hours):
            c.add("benchmark.params.preview_hours", f"must be whole hours, got {params['preview_hours']!r}")


def _check_sections_are_lists(c: Checker, doc: dict) -> bool:
    """Report the first section that is present but not a list; True when there is none."""
    for section in SECTIONS:
        if section in doc and doc[section] is not None and not isinstance(doc[section], list):
            c.add(section, f"must be a list, got {type(doc[section]).__name__}")
            return False
    return True


def _check_agents(c: Checker, agents: list, declared: Declared) -> None:
    """Each agent: a unique key, a name, and its languages as a list of strings."""
    for _, p, a in c.objects(agents, "agents"):
        slug = c.string(a, "slug", p, required=True, slug=True)
        c.string(a, "name", p, required=True)
        c.string(a, "organization", p)
        c.string(a, "primary_language", p, max_len=20)
        langs = a.get("languages")
        if langs is not None and not is_str_list(langs):
            c.add(f"{p}.languages", "must be a list of strings")
        if slug:
            if slug in declared.agents:
                c.add(f"{p}.slug", f"duplicate agent {slug!r}")
            declared.agents[slug] = a


def _check_tasks(c: Checker, tasks: list, declared: Declared, readings: Readings = SITE) -> None:
    """Each task: a unique key, a version like 1.0, a known kind, well-formed limits (and the ones its
    methodology requires or refuses, `Methodology.limit_problems`) and history."""
    rules = methodologies.REGISTRY.get(declared.methodology or "")
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
        c.string(t, "family", p, max_len=100)
        for field in ("dimensions", "scenarios"):
            if t.get(field) is not None and not is_str_list(t[field]):
                c.add(f"{p}.{field}", "must be a list of strings")
        c.number(t, "time_limit_min", p, minimum=0.0)
        c.integer(t, "token_budget", p, minimum=0, maximum=BIGINT_MAX)
        if rules is not None:
            for field, why in rules.limit_problems(t, readings=readings):
                c.add(f"{p}.{field}", why)
        for _, hp, h in c.each(t, "history", p):
            c.string(h, "version", hp, required=True, max_len=20)
            if h.get("scenarios") is not None and not is_str_list(h["scenarios"]):
                c.add(f"{hp}.scenarios", "must be a list of strings")
        if key:
            if key in declared.tasks:
                c.add(f"{p}.key", f"duplicate task {key!r}")
            declared.tasks[key] = t


def _check_rounds(c: Checker, rounds: list, declared: Declared) -> None:
    """Each round: a unique key and a known status, then its entries, task set, parameters and changelog."""
    for _, p, r in c.objects(rounds, "rounds"):
        key = c.string(r, "key", p, required=True, slug=True)
        c.string(r, "name", p, max_len=200)
        c.string(r, "status", p, required=True, choices=ROUND_STATUSES)
        if key:
            if key in declared.rounds:
                c.add(f"{p}.key", f"duplicate round {key!r}")
            declared.rounds[key] = r
        rules = methodologies.REGISTRY.get(declared.methodology or "")
        if rules is not None and rules.same_week and (problem := round_week_problem(r)):
            c.add(f"{p}.starts_on", problem)
        _check_entries(c, r, p, key, declared)
        _check_round_task_set(c, r.get("tasks"), p, declared)
        _check_round_parameters(c, r.get("parameters"), p, declared)
        for _, chp, ch in c.each(r, "changelog", p):
            c.string(ch, "what", chp, required=True, max_len=MAX_TEXT)


def _check_entries(c: Checker, r: dict, p: str, round_key: str | None, declared: Declared) -> None:
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


def _check_round_task_set(c: Checker, round_tasks: Any, p: str, declared: Declared) -> None:
    """A round's own task set, if given: known task keys, each listed once."""
    if round_tasks is None:
        return
    if not is_str_list(round_tasks):
        c.add(f"{p}.tasks", "must be a list of task keys")
        return
    for tk in round_tasks:
        if tk not in declared.tasks:
            c.add(f"{p}.tasks", f"unknown task {tk!r}")
    if len(set(round_tasks)) != len(round_tasks):
        c.add(f"{p}.tasks", "a task is listed twice")


def _check_round_parameters(c: Checker, params: Any, p: str, declared: Declared) -> None:
    """A round's parameters, if given: {task key: {name: value}} for known tasks."""
    if params is None or not c.obj(params, f"{p}.parameters"):
        return
    for tk, values in params.items():
        if tk not in declared.tasks:
            c.add(f"{p}.parameters.{tk}", f"unknown task {tk!r}")
        elif not isinstance(values, dict):
            c.add(f"{p}.parameters.{tk}", "must be an object of name: value")


def _check_votes(c: Checker, votes: list, declared: Declared) -> None:
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


def _check_vote_id(c: Checker, v: dict, p: str, i: int, vote_ids: dict[str, int]) -> None:
    """A vote's id, if given: a non-empty string (or an integer) of at most 100 characters, unique."""
    vid = v.get("id")
    if vid is None:
        return
    vid = bundle_id(vid)
    if not isinstance(vid, str) or not vid or len(vid) > 100:
        c.add(f"{p}.id", "must be a non-empty string of at most 100 characters")
    elif vid in vote_ids:
        c.add(f"{p}.id", f"duplicate vote id {vid!r} (votes[{vote_ids[vid]}])")
    else:
        vote_ids[vid] = i
