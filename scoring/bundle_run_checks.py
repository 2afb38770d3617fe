"""The checks on a bundle's runs: ids, references, fields, counts, verdicts, attachments and re-runs."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from . import methodologies
from .addresses import is_link_address, is_web_address
from .bundle_checker import (
    BIGINT_MAX,
    CHECK_KINDS,
    COUNT_PAIRS,
    DISPUTE_REASONS,
    DISPUTE_STATUSES,
    EVIDENCE_KINDS,
    FLOAT_FIELDS,
    INT_FIELDS,
    INT_MAX,
    MAX_TEXT,
    STRING_FIELDS,
    Checker,
    Declared,
    bundle_id,
    is_int,
    is_num,
    is_str_list,
)
from .run_setup import setup_problems
from .transcripts import transcript_problems
from .types import (
    OUTCOMES,
    RUN_STATUSES,
    VERDICT_ROLES,
)

TOKEN_FIELDS = ("tokens_input", "tokens_output", "tokens_cache_write")
COST_MAX = 999_999.999999  # the stored cost: 12 digits, 6 after the point


def check_runs(c: Checker, runs: list, declared: Declared) -> None:
    """Each run on its own, then the re-runs, which need every run's id first."""
    rules = methodologies.REGISTRY.get(declared.methodology or "")
    for _, p, run in c.objects(runs, "runs"):
        _check_run_id(c, run, p, declared)
        _check_run_references(c, run, p, declared)
        _check_run_fields(c, run, p)
        if rules is not None and rules.same_week:
            _check_run_week(c, run, p, declared)
        _check_run_counts(c, run, p)
        _check_verdicts(c, run, p)
        _check_run_attachments(c, run, p)
        if rules is not None:
            _check_listed_checks_agree(c, run, p, rules)
            for field, why in setup_problems(rules.run_setup, rules.key, run):
                c.add(f"{p}.{field}", why)
        _check_judge_and_marks(c, run, p)
    _check_reruns(c, runs, declared)


def bundle_time(value: Any) -> datetime | None:
    """A bundle's time (ISO 8601, as `datetime.fromisoformat` reads it: a date alone is 00:00, a time without an
    offset is UTC) as an aware datetime; None when `value` is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
        return parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # not a time, or one whose UTC falls outside the years 1 to 9999
        return None


def bundle_day(value: Any) -> date | None:
    """A bundle's day (a round's `starts_on`: a date, or a time whose own date is taken, as the import takes
    it), None when not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value).date()
    except ValueError:
        return None


def round_week_problem(r: dict) -> str | None:
    """Why a round's `starts_on` cannot give its week (it is not a date), or None."""
    given = r.get("starts_on")
    if given is None or bundle_day(given) is not None:
        return None
    return f"{str(given)[:40]!r} is not a date, so the round's week is unknown"


def _check_run_week(c: Checker, run: dict, p: str, declared: Declared) -> None:
    """A weekly run's start time is readable (its week is a round rule: `scoring.round_rules`)."""
    raw = run.get("started_at")
    if isinstance(raw, str) and bundle_time(raw) is None:
        c.add(f"{p}.started_at", f"{raw[:40]!r} is not an ISO 8601 time, so the run's week cannot be checked")


# At most this many marks a run, each at most this far into a recording (ten days, in seconds).
MAX_MARKS = 500
MAX_MARK_SECONDS = 864_000


def _check_judge_and_marks(c: Checker, run: dict, p: str) -> None:
    """What a run page shows and no board reads: the judge's details ({"criteria": [{"name", "score"}],
    "narrative", "fallback", "fallback_by", "error"}) and the recording's marks ([{"at_seconds", "label"}])."""
    judge = run.get("judge")
    if judge is not None:
        if not isinstance(judge, dict):
            c.add(f"{p}.judge", "must be an object")
        else:
            for j, crit in enumerate(judge.get("criteria") or []):
                if not (isinstance(crit, dict) and isinstance(crit.get("name"), str) and is_num(crit.get("score"))):
                    c.add(f"{p}.judge.criteria[{j}]", 'must be {"name": text, "score": a number}')
            if not isinstance(judge.get("narrative", ""), str) or len(judge.get("narrative") or "") > MAX_TEXT:
                c.add(f"{p}.judge.narrative", f"must be text of at most {MAX_TEXT:,} characters")
            for flag in ("fallback", "error"):
                if judge.get(flag) is not None and not isinstance(judge[flag], bool):
                    c.add(f"{p}.judge.{flag}", "must be true or false")
    marks = run.get("marks")
    if marks is None:
        return
    if not isinstance(marks, list) or len(marks) > MAX_MARKS:
        c.add(f"{p}.marks", f"must be a list of at most {MAX_MARKS} marks")
        return
    for j, mark in enumerate(marks):
        mp = f"{p}.marks[{j}]"
        if not isinstance(mark, dict):
            c.add(mp, 'must be {"at_seconds": a number, "label": text}')
            continue
        at: Any = mark.get("at_seconds")
        if not is_num(at) or at < 0 or at > MAX_MARK_SECONDS:
            c.add(f"{mp}.at_seconds", f"{at!r} is not a number of seconds from 0 to {MAX_MARK_SECONDS:,}")
        label = mark.get("label")
        if not isinstance(label, str) or not label.strip() or len(label) > 300:
            c.add(f"{mp}.label", "must be text of 1 to 300 characters")


def _check_run_id(c: Checker, run: dict, p: str, declared: Declared) -> None:
    """A run's id: a non-empty string (or an integer), unique in its round. Two rounds may hold runs of the same
    id (a benchmark's rounds each run the same plan of agents, tasks and trials): the site keys a run by its
    round and id, and a round's download, or a benchmark's with every round, recounts as it was imported."""
    rid = bundle_id(run.get("id"))
    key = (run_round(run), rid)
    if not isinstance(rid, str) or not rid:
        c.add(f"{p}.id", "is required (a string)")
    elif key in declared.runs:
        c.add(f"{p}.id", f"duplicate run id {rid!r} in round {key[0]!r}")
    else:
        declared.runs[key] = run


def run_round(run: dict) -> str | None:
    """The round a run names, when it names one by a string (any other value is reported as unknown)."""
    rk = run.get("round")
    return rk if isinstance(rk, str) else None


def _check_run_references(c: Checker, run: dict, p: str, declared: Declared) -> None:
    """A run's round, agent and task are declared; its agent has an entry in the round, and its task is in the
    round's own task set when the round has one."""
    rounds, tasks = declared.rounds, declared.tasks
    rk = c.string(run, "round", p, required=True)
    if rk is not None and rk not in rounds:
        c.add(f"{p}.round", f"unknown round {rk!r}")
    elif (
        rk is not None
        and isinstance(rounds[rk].get("tasks"), list)
        and isinstance(run.get("task"), str)
        and run["task"] in tasks
        and run["task"] not in rounds[rk]["tasks"]
    ):
        c.add(f"{p}.task", f"task {run['task']!r} is not in round {rk!r}'s tasks")
    ag = c.string(run, "agent", p, required=True)
    if ag is not None and ag not in declared.agents:
        c.add(f"{p}.agent", f"unknown agent {ag!r}")
    elif ag is not None and rk in rounds and (rk, ag) not in declared.entries:
        c.add(f"{p}.agent", f"agent {ag!r} has no entry in round {rk!r}")
    tk = c.string(run, "task", p, required=True)
    if tk is not None and tk not in tasks:
        c.add(f"{p}.task", f"unknown task {tk!r}")


def _check_run_fields(c: Checker, run: dict, p: str) -> None:
    """A run's own values: status and outcome from their lists, numbers in range, strings of bounded length."""
    c.string(run, "task_version", p, max_len=20)
    c.integer(run, "trial", p, minimum=1)
    c.string(run, "status", p, required=True, choices=RUN_STATUSES)
    c.string(run, "outcome", p, choices=OUTCOMES)
    for f in INT_FIELDS:
        c.integer(run, f, p, maximum=BIGINT_MAX if f in TOKEN_FIELDS else INT_MAX)
    for f in FLOAT_FIELDS:
        c.number(run, f, p, maximum=COST_MAX if f == "cost_usd" else None)
    for f in STRING_FIELDS:
        c.string(run, f, p, max_len=2000)
    preview = run.get("preview_url")
    if isinstance(preview, str) and preview and len(preview) <= 2000 and not is_web_address(preview):
        # The vote screen frames it: a `javascript:` or `data:` address would run in the voter's page.
        c.add(f"{p}.preview_url", f"{_shown(preview)} is not an http or https address")
    c.number(run, "score", p, minimum=None)
    c.number(run, "auto_pass_rate", p, minimum=0.0, maximum=1.0)
    c.number(run, "heuristic", p, minimum=0.0, maximum=1.0)
    if run.get("app_started") is not None and not isinstance(run.get("app_started"), bool):
        c.add(f"{p}.app_started", "must be true, false or null")


def _check_run_counts(c: Checker, run: dict, p: str) -> None:
    """No more passed than there are in total, and a total whenever a passed count is given; judge scores
    from 1 to 10."""
    for a, b in COUNT_PAIRS:
        pa: Any = run.get(a)
        pb: Any = run.get(b)
        if is_int(pa) and is_int(pb) and pa > pb:
            c.add(f"{p}.{a}", f"{pa} > {b} {pb}")
        if is_int(pa) and pb is None:
            c.add(f"{p}.{b}", f"is required when {a} is given")
    js = run.get("judge_scores")
    if js is None:
        return
    if not isinstance(js, list):
        c.add(f"{p}.judge_scores", "must be a list of numbers")
        return
    for j, s in enumerate(js):
        if not is_num(s) or s < 1 or s > 10:
            c.add(f"{p}.judge_scores[{j}]", f"{s!r} is not a score from 1 to 10")


def _check_verdicts(c: Checker, run: dict, p: str) -> None:
    """A run's verdicts: one per role, each with an outcome or matched outcomes; a third only beside a tester
    and a second (000 §5)."""
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
            if not is_str_list(matched):
                c.add(f"{vp}.matched", "must be a list of outcomes")
            else:
                for m in matched:
                    if m not in OUTCOMES:
                        c.add(f"{vp}.matched", f"{m!r} is not one of {', '.join(OUTCOMES)}")
        if out is None and not matched:
            c.add(vp, "needs an outcome or matched outcomes")
        c.string(v, "note", vp, max_len=MAX_TEXT)
    if "third" in roles and not {"tester", "second"} <= roles:
        missing = " and ".join(repr(r) for r in ("tester", "second") if r not in roles)
        c.add(
            f"{p}.verdicts",
            f"a third reviewer decides between a tester and a second who disagree: no {missing} verdict",
        )


def _check_run_attachments(c: Checker, run: dict, p: str) -> None:
    """A run's evidence, checks and disputes, each of a known kind or reason."""
    builds = 0
    for _, ep, e in c.each(run, "evidence", p):
        if e.get("kind") == "app":
            builds += 1
            _check_app_build_path(c, e, ep)
            continue
        c.string(e, "kind", ep, required=True, choices=EVIDENCE_KINDS)
        if e.get("kind") == "transcript" and "path" not in e:
            c.add(ep, "a transcript is a file next to the bundle: give its path")
        elif "path" in e:
            # A file next to the bundle (`bundles.evidence_files`), stored on the site: the way to give the
            # vote screen a screenshot (an external address is public, so it is never shown blind).
            if "url" in e:
                c.add(ep, "give a url or a path, not both")
            _check_relative_path(c, e, ep, "file")
        else:
            url = c.string(e, "url", ep, required=True, max_len=2000)
            if url is not None and not is_link_address(url):
                # The run's page lists it as a link: a `javascript:` or `data:` one would run on the site.
                c.add(f"{ep}.url", f"{_shown(url)} is not an http or https address (nor a path on this site)")
    if builds > 1:
        c.add(f"{p}.evidence", "at most one app build per run")
    evidence = run.get("evidence")
    listed: list[Any] = evidence if isinstance(evidence, list) else []
    transcripts = len([e for e in listed if isinstance(e, dict) and e.get("kind") == "transcript"])
    if run.get("transcript") is not None:
        # A transcript given inline (an Inspect log's conversion does this), in the documented format.
        c.problems.extend(transcript_problems(run["transcript"], f"{p}.transcript"))
        transcripts += 1
    if transcripts > 1:
        c.add(p, "at most one transcript per run (inline or next to the bundle)")

    for _, cp, ch in c.each(run, "checks", p):
        c.string(ch, "kind", cp, required=True, choices=CHECK_KINDS)
        c.string(ch, "name", cp, required=True)
        if not isinstance(ch.get("passed"), bool):
            c.add(f"{cp}.passed", "must be true or false")
    for _, dp, d in c.each(run, "disputes", p):
        c.string(d, "reason", dp, required=True, choices=DISPUTE_REASONS)
        c.string(d, "status", dp, choices=DISPUTE_STATUSES)
        c.string(d, "note", dp, max_len=MAX_TEXT)


def _check_listed_checks_agree(c: Checker, run: dict, p: str, rules: methodologies.Methodology) -> None:
    for problem in rules.listed_checks_problems(run):
        c.add(f"{p}.checks", problem)


def _shown(url: str) -> str:
    return repr(url if len(url) <= 80 else url[:77] + "...")


def _check_app_build_path(c: Checker, e: dict, ep: str) -> None:
    """An app build (`{"kind": "app", "path": "apps/run-1"}`): a folder relative to the bundle's own folder,
    never absolute and never climbing out of it (what is inside is checked when it is imported)."""
    _check_relative_path(c, e, ep, "folder")


def _check_relative_path(c: Checker, e: dict, ep: str, what: str) -> None:
    path = c.string(e, "path", ep, required=True, max_len=500)
    if path is None:
        return
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or ":" in path or any(part in ("..", "") for part in parts):
        c.add(f"{ep}.path", f"{path!r} must be a relative {what} inside the bundle's folder, without '..'")


def _check_reruns(c: Checker, runs: list, declared: Declared) -> None:
    """A re-run names a known run of the same round (by its id there), agent and task, which is not itself a
    re-run and is not the re-run itself. That a run is re-run once, after a dispute an editor accepted, is a round
    rule (`scoring.round_rules`), asked of the round as stored."""
    for i, run in enumerate(runs):
        if not isinstance(run, dict) or run.get("rerun_of") is None:
            continue
        p = f"runs[{i}].rerun_of"
        orig = bundle_id(run["rerun_of"])
        key = (run_round(run), orig)
        if not isinstance(orig, str) or key not in declared.runs:
            if isinstance(orig, str) and any(rid == orig for _, rid in declared.runs):
                c.add(p, f"run {orig!r} is for another round, agent or task")
            else:
                c.add(p, f"unknown run {orig!r}")
            continue
        o = declared.runs[key]
        if o.get("rerun_of") is not None:
            c.add(p, f"run {orig!r} is itself a re-run; a re-run cannot be re-run")
        if str(run.get("id")) == orig:
            c.add(p, "a run cannot be its own re-run")
        if any(o.get(k) != run.get(k) for k in ("round", "agent", "task")):
            c.add(p, f"run {orig!r} is for another round, agent or task")
