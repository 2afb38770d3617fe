"""The result files (``results/*.json``) as one record per run, and the `scored` methodology's parts of one
published score row (``score_parts``), every problem reported with its file and field."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from scoring.bundle_checks import SLUG_RE

from .common import ConversionError, number, rel_path

# Keys of `details` that are not LLM-judge criteria; every other key is a criterion scored 1-10.
NON_CRITERION_KEYS = frozenset(
    {
        "auto_pass_rate",  # test pass rate, 0-1
        "auto_weight",  # 0.6 for composite tasks
        "judge_weight",  # 0.4 for composite tasks
        "heuristic_score",  # fallback score (newer files), 0-1
        "output_presence",  # fallback score (older files: "scored by output presence"), 0-1
        "judge_fallback",  # true when the judge was unavailable
        "error",  # the judge call failed (value 0.0)
    }
)

FILE_NAME_RE = re.compile(r"^(?P<agent>.+)-(?P<ts>\d{8}-\d{6})\.json$")
TS_FORMAT = "%Y%m%d-%H%M%S"


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _parts(row: dict, where: str, problems: list[str]) -> dict:
    """Parts of one single-run row; `where` prefixes every problem (e.g. ``results/x.json: scores[2]``)."""
    out: dict[str, Any] = {"score": None, "auto_pass_rate": None, "judge_scores": None, "heuristic": None}
    if "score" not in row or row["score"] is None:
        problems.append(f"{_join(where, 'score')}: is required")
    else:
        out["score"] = number(row["score"], _join(where, "score"), problems, 0.0, 1.0)
    details = row.get("details")
    if details is None:
        return out
    dwhere = _join(where, "details")
    if not isinstance(details, dict):
        problems.append(f"{dwhere}: must be an object, got {type(details).__name__}")
        return out
    if details.get("auto_pass_rate") is not None:
        out["auto_pass_rate"] = number(details["auto_pass_rate"], f"{dwhere}.auto_pass_rate", problems, 0.0, 1.0)
    fallback = details.get("judge_fallback")
    if fallback is not None and not isinstance(fallback, bool):
        problems.append(f"{dwhere}.judge_fallback: {fallback!r} is not true or false")
        fallback = "invalid"
    heuristic_key = next((k for k in ("heuristic_score", "output_presence") if details.get(k) is not None), None)
    if fallback is True:
        if heuristic_key is None:
            problems.append(
                f"{dwhere}.judge_fallback: is true but neither heuristic_score nor output_presence is given"
            )
        else:
            out["heuristic"] = number(details[heuristic_key], f"{dwhere}.{heuristic_key}", problems, 0.0, 1.0)
    elif heuristic_key is not None and fallback != "invalid":
        problems.append(f"{dwhere}.{heuristic_key}: a heuristic score without judge_fallback: true")
    for k in ("auto_weight", "judge_weight", "error"):
        if details.get(k) is not None:
            number(details[k], f"{dwhere}.{k}", problems)
    criteria: list[float] = []
    for k, v in details.items():
        if k in NON_CRITERION_KEYS:
            continue
        n = number(v, f"{dwhere}.{k}", problems)
        if n is not None:
            criteria.append(float(n))
    # Criteria are on the judge's 1-10 scale. A row whose criteria are not all on it (the published data has
    # one: every criterion 0.0, i.e. the judge gave no usable grade) keeps its published score but no
    # judge_scores, so nothing off the scale reaches the board as a grade.
    if criteria and all(1.0 <= c <= 10.0 for c in criteria):
        out["judge_scores"] = criteria
    return out


def judge_details(row: dict) -> dict | None:
    """What the judge said of one score row, for the run page (no board reads it): each rubric criterion by
    name with its score, the judge's narrative as published, whether the heuristic fallback scored the row
    (and by which key), and whether the judge call failed. None when the row has none of these."""
    details = row.get("details") if isinstance(row.get("details"), dict) else {}
    criteria = [
        {"name": k, "score": float(v)}
        for k, v in details.items()
        if k not in NON_CRITERION_KEYS and isinstance(v, int | float) and not isinstance(v, bool)
    ]
    narrative = row.get("judge_narrative") if isinstance(row.get("judge_narrative"), str) else ""
    fallback = details.get("judge_fallback") is True
    by = next((k for k in ("heuristic_score", "output_presence") if details.get(k) is not None), None)
    if not (criteria or narrative or fallback or "error" in details):
        return None
    return {
        "criteria": criteria,
        "narrative": narrative,
        "fallback": fallback,
        "fallback_by": by if fallback else None,
        "error": "error" in details,
    }


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


def load_results(root: Path, task_keys: set[str], problems: list[str]) -> list[dict]:
    """One record per run (a trial of a multi-trial row counts as a run), before trial numbering."""
    res_dir = root / "results"
    files = sorted(p for p in res_dir.glob("*.json") if p.is_file()) if res_dir.is_dir() else []
    if not files:
        problems.append("results/: no result files (*.json) found")
    records: list[dict] = []
    for f in files:
        records.extend(_file_records(f, rel_path(f, root), task_keys, problems))
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


def _row_records(
    row: Any, where: str, base: dict, file_trials: Any, task_keys: set[str], problems: list[str]
) -> list[dict]:
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
        return [{**base, "sub": 0, "parts": _parts(row, where, problems), "judge": judge_details(row)}]
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
        n = number(s, f"{where}.trial_scores[{j}]", problems, 0.0, 1.0)
        out.append(
            {**base, "sub": j, "parts": {"score": n, "auto_pass_rate": None, "judge_scores": None, "heuristic": None}}
        )
    return out
