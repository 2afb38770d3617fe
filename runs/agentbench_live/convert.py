"""The bundle from the tasks and the result records: one round per run session (``run_sessions``), trials
numbered within the round; and the command line (``main``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from scoring.bundle_checks import validate_bundle

from .common import ConversionError
from .results import load_results
from .tasks import load_tasks

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
    tasks, defined = load_tasks(root, problems)
    records = load_results(root, defined, problems)
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
        runs.append(
            {
                "id": f"abl-{rkey}-{r['agent']}-{r['task']}-t{trial}",
                "round": rkey,
                "agent": r["agent"],
                "task": r["task"],
                "task_version": versions[r["task"]],
                "trial": trial,
                "status": "completed",
                "started_at": r["when"].isoformat(),
                "score": p["score"],
                "auto_pass_rate": p["auto_pass_rate"],
                "judge_scores": p["judge_scores"],
                "heuristic": p["heuristic"],
                **({"judge": r["judge"]} if r.get("judge") else {}),
                "cost_usd": None,
                "tokens_input": None,
                "tokens_output": None,
                "wall_seconds": None,
                "first_output_seconds": None,
            }
        )
    return runs


def _bundle(tasks: list[dict], sessions: list[dict], runs: list[dict], agent_slugs: list[str]) -> dict:
    agents = []
    for slug in agent_slugs:
        meta = KNOWN_AGENTS.get(slug, {})
        agents.append(
            {
                "slug": slug,
                "name": meta.get("name", slug),
                "organization": meta.get("organization"),
                "primary_language": "en",
            }
        )
    return {
        "benchmark": {
            "slug": BENCHMARK_SLUG,
            "name": "AgentBench-Live",
            "methodology": "scored",
            # Published by its own team as it ran: the site adds no vendor window before its rounds.
            "params": {"pass_threshold": PASS_THRESHOLD, "preview_hours": 0},
            "description": DESCRIPTION,
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [
            {
                "key": s["key"],
                "name": s["name"],
                "status": "published",
                "published_at": s["whens"][-1].isoformat(),
                "starts_on": s["whens"][0].date().isoformat(),
                "entries": [
                    {"agent": slug, "cli": slug, "product_version": None, "model": None}
                    for slug in sorted({r["agent"] for r in runs if r["round"] == s["key"]})
                ],
            }
            for s in sessions
        ],
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
