"""What a run page shows of its evidence and its judging: the player for the run's stored recording and the
marks that seek it, the judge's details, and a scored run's parts adding up to its score. Shown text, never
markup."""

from __future__ import annotations

import ast
from typing import Any

from django.core.exceptions import ObjectDoesNotExist

from scoring import task_evidence
from scoring.common import fixed
from scoring.round_rules import week_problem, week_shown
from scoring.run_setup import RunSetupRule

from .formatting import fmt_seconds


def _part_number(value: float) -> str:
    """A part of a score: two decimals, a third when it has one (0.6 x 0.75 = 0.45; 0.4 x 0.325 = 0.13)."""
    text = fixed(value, 3)
    return text[:-1] if text.endswith("0") else text


PART_NAMES = {"tests": "Tests", "judge": "LLM judge", "heuristic": "Heuristic fallback (no judge)"}


def score_parts_view(parts: dict[str, Any] | None) -> dict[str, Any] | None:
    """A scored run's parts (`Methodology.score_parts`) as its page reads them: per part what it rests on
    ("3 of 4 tests passed", "mean of 4 criteria 2.5 / 10", "0.70, capped at 0.60"), its value, its weight and
    the points it adds, the points summing to the score; or, when the score is the one published with the run
    (the parts it needs are missing), the parts there are and the published score, less any heuristic cap."""
    if not parts:
        return None
    rows = []
    for p in parts["parts"]:
        if p["part"] == "tests":
            if "total" in p:
                basis = f"{p['passed']} of {p['total']} passed"
            elif p["value"] is not None:
                basis = "pass rate as published"
            else:
                basis = "no test result"
        elif p["part"] == "judge":
            basis = (
                f"mean of {p['criteria']} criteria, {_part_number(p['mean'])} / 10"
                if p["mean"] is not None
                else "no judge score"
            )
        else:
            raw, cap = p["raw"], parts["cap"]
            basis = f"{_part_number(raw)}, capped at {_part_number(cap)}" if raw > cap else f"{_part_number(raw)}"
        rows.append(
            {
                "name": PART_NAMES[p["part"]],
                "basis": basis,
                "value": "–" if p["value"] is None else _part_number(p["value"]),
                "weight": "–" if p["weight"] is None else f"{p['weight'] * 100:.0f}%",
                "points": "–" if p["points"] is None else _part_number(p["points"]),
                "heuristic": p["part"] == "heuristic",
            }
        )
    return {
        "rows": rows,
        "score": _part_number(parts["score"]),
        "evaluation": parts["evaluation"],
        "published": parts["published"] is not None,
        "published_as": None if parts["published_as"] is None else _part_number(parts["published_as"]),
        "cap_taken": None if parts["cap_taken"] is None else _part_number(parts["cap_taken"]),
        "timeout": parts["source"] == "timeout",
        "heuristic": parts["heuristic"],
        "cap": _part_number(parts["cap"]),
    }


FALLBACK_LABEL = {"heuristic_score": "a heuristic score", "output_presence": "whether it produced output"}
RECORDING_KINDS = ("recording", "audio")


def _narrative_scores(narrative: str) -> list[dict[str, str]] | None:
    """A narrative that is no prose but a mapping of names to numbers, as some published judge rows carry
    (`{'Completeness': 1.0, 'Process': 7.0}`): its pairs, to be read as a list; None for anything else (the
    text is then shown as written). Read as a literal, never run."""
    text = narrative.strip()
    if not (text.startswith("{") and text.endswith("}")) or len(text) > 5000:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(value, dict) or not value:
        return None
    pairs = []
    for name, number in value.items():
        if not isinstance(name, str) or isinstance(number, bool) or not isinstance(number, int | float):
            return None
        pairs.append({"name": name, "value": f"{float(number):g}"})
    return pairs


def judge_view(judge: dict[str, Any] | None) -> dict[str, Any] | None:
    """The judge's details as a reader reads them: scores as numbers (7, 6.5), never float noise."""
    if not judge:
        return None
    return {
        **judge,
        "narrative_scores": _narrative_scores(judge.get("narrative") or ""),
        "criteria": [{**c, "score_text": f"{float(c['score']):g}"} for c in judge.get("criteria") or []],
        "fallback_label": FALLBACK_LABEL.get(judge.get("fallback_by") or "", "a heuristic"),
    }


def player_view(evidence: list[Any]) -> dict[str, Any] | None:
    """The run's recording (or, without one, its audio) as the page's player plays it: only a file the site
    stores and serves itself (`runs.views.evidence_file`, same origin, range requests); a recording elsewhere
    stays a link. None when the run has no such file."""
    stored = [e for e in evidence if e.kind in RECORDING_KINDS and e.file]
    chosen = next((e for e in stored if e.kind == "recording"), stored[0] if stored else None)
    if chosen is None:
        return None
    terminal = chosen.file.name.endswith(TERMINAL_RECORDING)
    return {
        "src": chosen.href,
        # A terminal recording (asciicast) plays in asciinema's player, any other in the browser's own.
        "tag": "asciinema" if terminal else "video" if chosen.kind == "recording" else "audio",
        "caption": chosen.caption or chosen.get_kind_display(),
    }


TERMINAL_RECORDING = ".cast"


def recording_view(run: Any, evidence: list[Any]) -> dict[str, Any]:
    """The run page's player (`player_view`) and the recording it references but was not sent
    (`recording_missing`)."""
    return {"player": player_view(evidence), "recording_missing": recording_missing(run, evidence)}


def recording_missing(run: Any, evidence: list[Any]) -> str:
    """The recording a run references but was not sent with it (a scorer's `metadata.recording_missing` in its
    transcript, as a Terminal-Bench trial's), when the run has no recording: listed as missing, not an error."""
    try:
        transcript = run.transcript
    except ObjectDoesNotExist:
        return ""
    if any(e.kind == "recording" for e in evidence):
        return ""
    for score in (transcript.meta or {}).get("scores") or []:
        missing = (score.get("metadata") or {}).get("recording_missing") if isinstance(score, dict) else None
        if isinstance(missing, str) and missing:
            return missing
    return ""


def marks_view(marks: list[dict[str, Any]], evidence: list[Any]) -> list[dict[str, Any]]:
    """Each mark with its time (12m 34s) and a link opening the run's recording at that second (a media
    fragment, #t=754, which browsers seek to), when the run has a recording a page may link: the file of the
    page's player first (`player_view`; the page's script makes each mark a button seeking the player)."""
    player = player_view(evidence)
    linked = next((e.link for e in evidence if e.kind in RECORDING_KINDS and e.link), "")
    recording = player["src"] if player else linked
    return [
        {
            "seconds": int(m["at_seconds"]),
            "time": fmt_seconds(m["at_seconds"]),
            "label": m["label"],
            "href": f"{recording.split('#')[0]}#t={int(m['at_seconds'])}" if recording else "",
            "anchor": f"mark-{int(m['at_seconds'])}",
        }
        for m in sorted(marks or [], key=lambda m: m["at_seconds"])
    ]


def evidence_list_view(listed: list[Any] | None, status: str, evidence: list[Any]) -> dict[str, Any] | None:
    """The evidence the run's task version lists (000 §2: "captured as listed in the task's evidence field"), each
    item with whether the run holds it (`scoring.task_evidence.checklist`), and the items it lacks; None when the
    task lists none or the run never ran the task."""
    items = task_evidence.checklist(listed or [], status, [(e.kind, e.caption) for e in evidence])
    if items is None:
        return None
    return {"items": items, "lacking": [i.item for i in items if not i.held]}


JUDGED_EVALUATIONS = ("llm-judge", "composite")


def run_setup_view(run: Any, rule: RunSetupRule | None) -> dict[str, Any] | None:
    """How the run was run, where its methodology records it (`scoring.run_setup`: 002's judge model and execution
    mode): the judge model when the run was, or was to be, judged by an LLM (its task's evaluation, judge scores
    or the heuristic standing in for them), what it recorded or that it recorded none beside the seed's default,
    and its execution mode with the seed's words. None where the methodology records neither."""
    if rule is None:
        return None
    judge_scored = bool(run.judge_scores)
    fallback = not judge_scored and run.heuristic is not None
    return {
        "judged": bool(run.judge_model) or judge_scored or fallback or run.task.evaluation in JUDGED_EVALUATIONS,
        "judge_model": run.judge_model,
        "fallback": fallback,
        "judge_default": rule.judge_default,
        "judge_words": rule.judge_words,
        "mode": rule.mode(run.execution_mode or None),
    }


# τ²-bench's reward basis: the checks a task names, each passed (1) or failed (0); the reward is their product
# (τ²-bench's evaluator, `src/tau2/evaluator`). Named as a reader of the run page reads them.
TAU2_BASIS = {
    "DB": "the database ends as the task's expected actions leave it",
    "ENV_ASSERTION": "the environment's assertions hold",
    "NL_ASSERTION": "the task's statements about the conversation hold, as a model judges them",
    "ACTION": "the agent took the task's expected actions",
    "COMMUNICATE": "the agent told the user what the task says it must",
}


def tau2_reward_view(run: Any) -> dict[str, Any] | None:
    """A τ²-bench run's score as τ²-bench gives it (its transcript's "tau2 reward", `scoring.tau2_runs`): the reward
    and the checks it rests on (its reward basis) and how the simulation ended; None for any other run."""
    try:
        meta = run.transcript.meta or {}
    except ObjectDoesNotExist:
        return None
    scores = meta.get("scores") or []
    found = next((s for s in scores if isinstance(s, dict) and s.get("scorer") == "tau2 reward"), None)
    if found is None or run.score is None:
        return None
    facts = found.get("metadata") or {}
    return {
        "evaluation": "tau2",
        "score": _part_number(run.score),
        "basis": [
            {"key": b, "text": TAU2_BASIS.get(b, "")} for b in facts.get("reward_basis") or [] if isinstance(b, str)
        ],
        "ended": facts.get("termination_reason") or "",
    }


def task_version_view(run: Any) -> dict[str, str]:
    """Which version of its task the run ran and, where the benchmark holds several task sets (τ²-bench's releases)
    and the run's round is of another than the current one, of which; and the task's current version when it is
    not the run's (the two differ: a task's version changes only with its content)."""
    rnd, bench, task = run.round, run.round.benchmark, run.task
    other_set = bool(rnd.task_set_version) and rnd.task_set_version != bench.task_set_version
    return {
        "version": run.task_version,
        "task_set": rnd.task_set_version if other_set else "",
        "current": task.version if task.version != run.task_version else "",
        "current_set": bench.task_set_version if other_set else "",
    }


def run_week_view(run: Any, rnd: Any) -> dict[str, Any]:
    """The run's week as its page says it (004: "The agents in one table are run in the same week"): the round's
    week (`week_shown`: its first and last second), and whether the run started in it (`week_problem`, the rule the
    bundle check and the admin ask); `known` is false without a start time or a round's start date."""
    if run.started_at is None or rnd.starts_on is None:
        return {"known": False, "start": None, "last": None, "in_week": None}
    start, last = week_shown(rnd.starts_on)
    return {
        "known": True,
        "start": start,
        "last": last,
        "in_week": week_problem(rnd.starts_on, run.started_at) is None,
    }
