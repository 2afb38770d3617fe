"""Convert the published AgentBench-Live directory into one results bundle (`scored` methodology).

Pure: reads files, returns a dict; no Django, no database, no clock. The directory is read as published
(``tasks/**/*.yaml`` and ``results/*.json``) and never written. See docs/agentbench-live.md for the mapping
and for how each quirk of the published files is handled.

API
---
``convert_directory(path) -> dict``
    The bundle (valid under ``scoring.bundle_checks.validate_bundle``), or ``ConversionError`` listing every problem,
    each naming the file and the field, e.g. ``results/foo.json: scores[3].score: 'abc' is not a number``.
    Nothing partial is ever returned. Same directory in, identical dict out. One round per run session
    (see ``run_sessions``), oldest first, so the last round is the latest session.
``run_sessions(timestamps) -> list[dict]``
    The run sessions (rounds) the result timestamps fall into: a gap of more than six hours starts a new one.
``score_parts(row) -> dict``
    The methodology's parts of one published score row: ``score``, ``auto_pass_rate``, ``judge_scores``,
    ``heuristic`` (see its docstring). Raises ``ConversionError`` (paths relative to the row) on bad values.
``ConversionError(problems)``
    A ``ValueError`` with ``problems: list[str]``.

Command line: ``python -m runs.agentbench_live DIR`` prints the bundle as JSON (problems: stderr, exit 1).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from scoring.bundle_checks import SLUG_RE, VERSION_RE, validate_bundle
from scoring.types import EVALUATIONS

BENCHMARK_SLUG = "agentbench-live"
# The team ran the benchmark in sittings a few days apart, each with its own judge set-up (the 14 March
# heuristic gave 0.7, above the later 0.60 cap). A gap of more than this between two result files (of any
# agent) ends one run session; each session is its own round, so best-of-trials never mixes set-ups.
SESSION_GAP = timedelta(hours=6)
PASS_THRESHOLD = 0.8
HEURISTIC_CAP = 0.6  # documented by the methodology; scoring applies it, the converter keeps raw values

DESCRIPTION = (
    "AgentBench-Live: ten real-world tasks (code, data, multi-step, research, tool use) run by CLI coding "
    "agents in an isolated workspace and scored by automated tests (auto), an LLM judge on a 1-10 rubric "
    "(llm-judge) or 60% auto + 40% judge (composite). A task is passed at a score of 0.80 or more. When no "
    "judge was available the judged part fell back to a heuristic capped at 0.60; such runs are marked. "
    "Imported as published (MIT licence); the files carry no cost, token or latency data."
)

# Public products whose names appear in the published files.
KNOWN_AGENTS: dict[str, dict[str, str]] = {
    "claude-code": {"name": "Claude Code", "organization": "Anthropic"},
    "gemini-cli": {"name": "Gemini CLI", "organization": "Google"},
}

# Keys of `details` that are not LLM-judge criteria; every other key is a criterion scored 1-10.
NON_CRITERION_KEYS = frozenset({
    "auto_pass_rate",   # test pass rate, 0-1
    "auto_weight",      # 0.6 for composite tasks
    "judge_weight",     # 0.4 for composite tasks
    "heuristic_score",  # fallback score (newer files), 0-1
    "output_presence",  # fallback score (older files: "scored by output presence"), 0-1
    "judge_fallback",   # true when the judge was unavailable
    "error",            # the judge call failed (value 0.0)
})

FILE_NAME_RE = re.compile(r"^(?P<agent>.+)-(?P<ts>\d{8}-\d{6})\.json$")
TS_FORMAT = "%Y%m%d-%H%M%S"


class ConversionError(ValueError):
    """The directory cannot be converted; `problems` lists every problem with its file and field."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _number(v: Any, where: str, problems: list[str], lo: float | None = None,
            hi: float | None = None) -> float | None:
    if not _is_num(v):
        problems.append(f"{where}: {v!r} is not a number")
        return None
    if lo is not None and v < lo:
        problems.append(f"{where}: {v!r} is below {lo:g}")
        return None
    if hi is not None and v > hi:
        problems.append(f"{where}: {v!r} is above {hi:g}")
        return None
    return v


def _parts(row: dict, where: str, problems: list[str]) -> dict:
    """Parts of one single-run row; `where` prefixes every problem (e.g. ``results/x.json: scores[2]``)."""
    out: dict[str, Any] = {"score": None, "auto_pass_rate": None, "judge_scores": None, "heuristic": None}
    if "score" not in row or row["score"] is None:
        problems.append(f"{_join(where, 'score')}: is required")
    else:
        out["score"] = _number(row["score"], _join(where, "score"), problems, 0.0, 1.0)
    details = row.get("details")
    if details is None:
        return out
    dwhere = _join(where, "details")
    if not isinstance(details, dict):
        problems.append(f"{dwhere}: must be an object, got {type(details).__name__}")
        return out
    if details.get("auto_pass_rate") is not None:
        out["auto_pass_rate"] = _number(details["auto_pass_rate"], f"{dwhere}.auto_pass_rate", problems,
                                        0.0, 1.0)
    fallback = details.get("judge_fallback")
    if fallback is not None and not isinstance(fallback, bool):
        problems.append(f"{dwhere}.judge_fallback: {fallback!r} is not true or false")
        fallback = "invalid"
    heuristic_key = next((k for k in ("heuristic_score", "output_presence") if details.get(k) is not None),
                         None)
    if fallback is True:
        if heuristic_key is None:
            problems.append(f"{dwhere}.judge_fallback: is true but neither heuristic_score nor "
                            "output_presence is given")
        else:
            out["heuristic"] = _number(details[heuristic_key], f"{dwhere}.{heuristic_key}", problems,
                                       0.0, 1.0)
    elif heuristic_key is not None and fallback != "invalid":
        problems.append(f"{dwhere}.{heuristic_key}: a heuristic score without judge_fallback: true")
    for k in ("auto_weight", "judge_weight", "error"):
        if details.get(k) is not None:
            _number(details[k], f"{dwhere}.{k}", problems)
    criteria: list[float] = []
    for k, v in details.items():
        if k in NON_CRITERION_KEYS:
            continue
        n = _number(v, f"{dwhere}.{k}", problems)
        if n is not None:
            criteria.append(float(n))
    # Criteria are on the judge's 1-10 scale. A row whose criteria are not all on it (the published data has
    # one: every criterion 0.0, i.e. the judge gave no usable grade) keeps its published score but no
    # judge_scores, so nothing off the scale reaches the board as a grade.
    if criteria and all(1.0 <= c <= 10.0 for c in criteria):
        out["judge_scores"] = criteria
    return out


def score_parts(row: dict) -> dict:
    """Return the `scored` methodology's parts of one published single-run score row.

    ``{"score", "auto_pass_rate", "judge_scores", "heuristic"}``:

    - ``score``: the published ``score`` as is (never recomputed, never capped);
    - ``auto_pass_rate``: ``details.auto_pass_rate`` (0-1) or None;
    - ``judge_scores``: the values of the judge's rubric criteria, i.e. every key of ``details`` outside
      ``NON_CRITERION_KEYS``, in published order, on the 1-10 scale (1.0 means 1/10); None when there are
      none or when they are not all within 1-10;
    - ``heuristic``: when ``details.judge_fallback`` is true, the raw fallback value (``heuristic_score``,
      or ``output_presence`` in older files), not capped here (scoring caps at 0.6); otherwise None.

    Raises ``ConversionError`` with paths relative to the row (e.g. ``score: 'abc' is not a number``).
    """
    problems: list[str] = []
    if not isinstance(row, dict):
        raise ConversionError([f"(row): must be an object, got {type(row).__name__}"])
    out = _parts(row, "", problems)
    if problems:
        raise ConversionError(problems)
    return out


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _load_tasks(root: Path, problems: list[str]) -> tuple[list[dict], set[str]]:
    """The tasks, and every id defined (even in a task file with problems, so results are not blamed)."""
    tasks_dir = root / "tasks"
    files = sorted(p for p in tasks_dir.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()) \
        if tasks_dir.is_dir() else []
    if not files:
        problems.append("tasks/: no task definitions (*.yaml) found")
    tasks: list[dict] = []
    seen: dict[str, str] = {}
    for f in files:
        rel = _rel(f, root)
        read = _read_task_yaml(f, rel, problems)
        if read is not None:
            task = _task_from(*read, rel, problems, seen)
            if task is not None:
                tasks.append(task)
    return tasks, set(seen)


def _read_task_yaml(f: Path, rel: str, problems: list[str]) -> tuple[dict, Any] | None:
    """The task file as data, and as its published text (every scalar a string), or None with the problem."""
    try:
        text = f.read_text(encoding="utf-8")
        doc = yaml.safe_load(text)
        # The same file with every scalar as its published text, so `version: 1` stays "1" and a
        # version such as 1.10 is not read as the float 1.1.
        raw = yaml.load(text, Loader=yaml.BaseLoader)  # only str, list, dict
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        problems.append(f"{rel}: (file): cannot be read as YAML: {str(e).splitlines()[0]}")
        return None
    if not isinstance(doc, dict):
        problems.append(f"{rel}: (file): must be a mapping, got {type(doc).__name__}")
        return None
    return doc, raw


def _task_from(doc: dict, raw: Any, rel: str, problems: list[str], seen: dict[str, str]) -> dict | None:
    """One task of the bundle from its file, or None (with every problem reported) when the file is wrong."""
    n_before = len(problems)
    tid = doc.get("id")
    if not isinstance(tid, str) or not SLUG_RE.match(tid):
        problems.append(f"{rel}: id: {tid!r} is not a task id" if tid is not None else f"{rel}: id: is required")
        tid = None
    elif tid in seen:
        problems.append(f"{rel}: id: {tid!r} is also defined in {seen[tid]}")
    else:
        seen[tid] = rel
    version = "1.0"
    if doc.get("version") is not None:
        version = str(raw.get("version")) if isinstance(raw, dict) else str(doc["version"])
        if not VERSION_RE.match(version):
            problems.append(f"{rel}: version: {version!r} is not a version like 1 or 2.1")
    evaluation, timeout = _task_evaluation(doc.get("evaluation"), rel, problems)
    human = doc.get("human_time_minutes")
    if human is not None:
        human = _number(human, f"{rel}: human_time_minutes", problems, 0.0)
    tags = doc.get("tags")
    if tags is not None and (not isinstance(tags, list) or not all(isinstance(t, str) for t in tags)):
        problems.append(f"{rel}: tags: must be a list of strings")
        tags = None
    for k in ("title", "domain", "difficulty", "prompt"):
        if doc.get(k) is not None and not isinstance(doc[k], str):
            problems.append(f"{rel}: {k}: must be a string, got {type(doc[k]).__name__}")
    if tid is None or len(problems) > n_before:
        return None
    return {
        "key": tid, "title": doc.get("title") or tid, "version": version, "kind": "core",
        "domain": doc.get("domain"), "dimensions": [], "difficulty": doc.get("difficulty"),
        "evaluation": evaluation, "prompt": doc.get("prompt"), "human_minutes": human, "tags": list(tags or []),
        "time_limit_min": round(timeout / 60, 4) if timeout is not None else None, "token_budget": None,
    }


def _task_evaluation(ev: Any, rel: str, problems: list[str]) -> tuple[str | None, float | None]:
    """The task's evaluation type and time-out (seconds), reporting what is wrong."""
    if not isinstance(ev, dict):
        problems.append(f"{rel}: evaluation: is required (a mapping with a type)")
        return None, None
    evaluation = ev.get("type")
    if evaluation not in EVALUATIONS:
        problems.append(f"{rel}: evaluation.type: {evaluation!r} is not one of {', '.join(EVALUATIONS)}")
    timeout = None
    if ev.get("timeout_seconds") is not None:
        timeout = _number(ev["timeout_seconds"], f"{rel}: evaluation.timeout_seconds", problems, 0.0)
    return evaluation, timeout


def _timestamp(doc: dict, name: str, rel: str, problems: list[str]) -> datetime | None:
    m = FILE_NAME_RE.match(name)
    from_name = m.group("ts") if m else None
    ts = doc.get("timestamp")
    if ts is None:
        if from_name is None:
            problems.append(f"{rel}: timestamp: is required (the file name carries none)")
            return None
        ts = from_name
    if not isinstance(ts, str):
        problems.append(f"{rel}: timestamp: {ts!r} is not a YYYYMMDD-HHMMSS string")
        return None
    try:
        when = datetime.strptime(ts, TS_FORMAT)
    except ValueError:
        problems.append(f"{rel}: timestamp: {ts!r} is not a YYYYMMDD-HHMMSS timestamp")
        return None
    if from_name is not None and from_name != ts:
        problems.append(f"{rel}: timestamp: {ts!r} differs from the file name's {from_name!r}")
        return None
    return when


def _load_results(root: Path, task_keys: set[str], problems: list[str]) -> list[dict]:
    """One record per run (a trial of a multi-trial row counts as a run), before trial numbering."""
    res_dir = root / "results"
    files = sorted(p for p in res_dir.glob("*.json") if p.is_file()) if res_dir.is_dir() else []
    if not files:
        problems.append("results/: no result files (*.json) found")
    records: list[dict] = []
    for f in files:
        records.extend(_file_records(f, _rel(f, root), task_keys, problems))
    return records


def _file_agent(doc: dict, f: Path, rel: str, problems: list[str]) -> str | None:
    """The result file's agent, checked against its file name."""
    agent = doc.get("agent")
    if agent is None:
        problems.append(f"{rel}: agent: is required")
    elif not isinstance(agent, str) or not SLUG_RE.match(agent):
        problems.append(f"{rel}: agent: {agent!r} is not an agent name like claude-code")
        agent = None
    else:
        m = FILE_NAME_RE.match(f.name)
        if m and m.group("agent") != agent:
            problems.append(f"{rel}: agent: {agent!r} differs from the file name's {m.group('agent')!r}")
            agent = None
    return agent


def _file_records(f: Path, rel: str, task_keys: set[str], problems: list[str]) -> list[dict]:
    """The runs of one result file (nothing when the file itself is unreadable)."""
    try:
        doc = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        problems.append(f"{rel}: (file): not valid JSON: {e}")
        return []
    if not isinstance(doc, dict):
        problems.append(f"{rel}: (file): must be a JSON object, got {type(doc).__name__}")
        return []
    agent = _file_agent(doc, f, rel, problems)
    when = _timestamp(doc, f.name, rel, problems)
    scores = doc.get("scores")
    if scores is None:
        problems.append(f"{rel}: scores: is required")
        return []
    if not isinstance(scores, list):
        problems.append(f"{rel}: scores: must be a list, got {type(scores).__name__}")
        return []
    records: list[dict] = []
    for i, row in enumerate(scores):
        base = {"agent": agent, "when": when, "file": rel, "row": i}
        records.extend(_row_records(row, f"{rel}: scores[{i}]", base, doc.get("trials"), task_keys, problems))
    return records


def _row_records(row: Any, where: str, base: dict, file_trials: Any, task_keys: set[str],
                 problems: list[str]) -> list[dict]:
    """The runs of one score row: one, or one per trial in the older multi-trial layout."""
    if not isinstance(row, dict):
        problems.append(f"{where}: must be an object, got {type(row).__name__}")
        return []
    tid = row.get("task_id")
    if tid is None:
        problems.append(f"{where}.task_id: is required")
    elif not isinstance(tid, str) or tid not in task_keys:
        problems.append(f"{where}.task_id: {tid!r} is not a task defined in tasks/")
        tid = None
    name, agent = row.get("agent_name"), base["agent"]
    if name is not None and agent is not None and name != agent:
        problems.append(f"{where}.agent_name: {name!r} differs from the file's agent {agent!r}")
    base = {"agent": agent, "task": tid, "when": base["when"], "file": base["file"], "row": base["row"]}
    if "trial_scores" not in row:
        return [{**base, "sub": 0, "parts": _parts(row, where, problems)}]
    # Older multi-trial layout: one run per trial, in list order, with the file's timestamp.
    ts_list = row["trial_scores"]
    if not isinstance(ts_list, list) or not ts_list:
        problems.append(f"{where}.trial_scores: must be a non-empty list of scores")
        return []
    declared = row.get("trials", file_trials)
    if declared is not None and declared != len(ts_list):
        problems.append(f"{where}.trial_scores: {len(ts_list)} scores but trials is {declared!r}")
    out = []
    for j, s in enumerate(ts_list):
        n = _number(s, f"{where}.trial_scores[{j}]", problems, 0.0, 1.0)
        out.append({**base, "sub": j, "parts": {"score": n, "auto_pass_rate": None, "judge_scores": None,
                                                "heuristic": None}})
    return out


def _session_name(first: datetime, last: datetime) -> str:
    def day(d: datetime) -> str:
        return f"{d.day} {d:%B %Y}"
    if first == last:
        return f"Run session of {day(first)}, {first:%H:%M}"
    if first.date() == last.date():
        return f"Run session of {day(first)}, {first:%H:%M}-{last:%H:%M}"
    return f"Run session of {day(first)} {first:%H:%M} to {day(last)} {last:%H:%M}"


def run_sessions(whens: Iterable[datetime]) -> list[dict]:
    """Split result timestamps into the team's run sessions, oldest first; each session becomes one round.

    A gap of more than ``SESSION_GAP`` (6 hours) between consecutive result files, whichever agent they are
    for, starts a new session. A session's key is the date it started (``2026-03-19``); a later session
    starting the same day gets ``-2``, ``-3``... (``2026-03-14-2``). Returns ``[{"key", "name", "whens"}]``
    with ``whens`` the session's distinct timestamps in order.
    """
    groups: list[list[datetime]] = []
    for when in sorted(set(whens)):
        if groups and when - groups[-1][-1] <= SESSION_GAP:
            groups[-1].append(when)
        else:
            groups.append([when])
    out: list[dict] = []
    per_day: dict[str, int] = {}
    for g in groups:
        day = g[0].date().isoformat()
        per_day[day] = per_day.get(day, 0) + 1
        key = day if per_day[day] == 1 else f"{day}-{per_day[day]}"
        out.append({"key": key, "name": _session_name(g[0], g[-1]), "whens": g})
    return out


def convert_directory(path: str | Path) -> dict:
    """Read the published AgentBench-Live directory and return one `scored` bundle (see the module doc)."""
    root = Path(path)
    problems: list[str] = []
    if not root.is_dir():
        raise ConversionError([f"{root}: (directory): not found"])
    tasks, defined = _load_tasks(root, problems)
    records = _load_results(root, defined, problems)
    if problems:
        raise ConversionError(problems)

    records.sort(key=lambda r: (r["when"], r["file"], r["row"], r["sub"]))
    sessions = run_sessions(r["when"] for r in records)
    runs = _runs(records, sessions, {t["key"]: t["version"] for t in tasks})
    bundle = _bundle(tasks, sessions, runs, sorted({r["agent"] for r in records}))
    bad = validate_bundle(bundle)
    if bad:  # a converter bug, not a data problem; still never hand back a bundle the importer would refuse
        raise ConversionError([f"(bundle): {b}" for b in bad])
    return bundle


def _runs(records: list[dict], sessions: list[dict], versions: dict[str, str]) -> list[dict]:
    """One bundle run per record, in its session's round, trials numbered within the round."""
    session_of = {when: s for s in sessions for when in s["whens"]}
    trial_of: dict[tuple[str, str, str], int] = {}
    runs: list[dict] = []
    for r in records:
        rkey = session_of[r["when"]]["key"]
        k = (rkey, r["agent"], r["task"])
        trial_of[k] = trial_of.get(k, 0) + 1
        trial = trial_of[k]
        p = r["parts"]
        runs.append({
            "id": f"abl-{rkey}-{r['agent']}-{r['task']}-t{trial}", "round": rkey, "agent": r["agent"],
            "task": r["task"], "task_version": versions[r["task"]], "trial": trial, "status": "completed",
            "started_at": r["when"].isoformat(), "score": p["score"], "auto_pass_rate": p["auto_pass_rate"],
            "judge_scores": p["judge_scores"], "heuristic": p["heuristic"], "cost_usd": None,
            "tokens_input": None, "tokens_output": None, "wall_seconds": None, "first_output_seconds": None,
        })
    return runs


def _bundle(tasks: list[dict], sessions: list[dict], runs: list[dict], agent_slugs: list[str]) -> dict:
    agents = []
    for slug in agent_slugs:
        meta = KNOWN_AGENTS.get(slug, {})
        agents.append({"slug": slug, "name": meta.get("name", slug), "organization": meta.get("organization"),
                       "primary_language": "en"})
    return {
        "benchmark": {
            "slug": BENCHMARK_SLUG, "name": "AgentBench-Live", "methodology": "scored",
            "params": {"pass_threshold": PASS_THRESHOLD}, "description": DESCRIPTION,
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [{
            "key": s["key"], "name": s["name"], "status": "published", "published_at": s["whens"][-1].isoformat(),
            "starts_on": s["whens"][0].date().isoformat(),
            "entries": [{"agent": slug, "cli": slug, "product_version": None, "model": None}
                        for slug in sorted({r["agent"] for r in runs if r["round"] == s["key"]})],
        } for s in sessions],
        "runs": runs,
        "votes": [],
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m runs.agentbench_live DIR", file=sys.stderr)
        return 2
    try:
        bundle = convert_directory(args[0])
    except ConversionError as e:
        for p in e.problems:
            print(p, file=sys.stderr)
        return 1
    json.dump(bundle, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
