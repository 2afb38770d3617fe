"""The results bundle: its format, and its conversion to scoring inputs, with no database.

One JSON document carries a benchmark's tasks, rounds, entries, runs (with verdicts) and votes. `import_bundle`
checks it (`check_bundle`, with the checks in `scoring.bundle_checks`) before writing anything; `recount` uses the
same functions to turn a download back into boards. Every problem is reported with its path in the document,
e.g. ``runs[12].tests_passed: 7 > tests_total 5``.

Fields beyond DESIGN.md's list (all optional): benchmark ``params``/``description``/``task_set_version``;
task ``difficulty``, ``evaluation``, ``human_minutes``, ``tags``, ``parameters``, ``interruption``,
``evidence``, ``criteria``, ``published_at``, ``history``; round ``task_set_version``, ``preview_started_at``,
``changelog``; run ``auto_pass_rate`` (a test pass rate published without counts), ``app_started``,
``started_at``, ``preview_url``, ``evidence``, ``checks``, ``disputes``; verdict ``at``; vote ``id`` (its
stable identity: kept on import, written on export; see `vote_ids` for a bundle without ids).

Limits and settings belong to a methodology (`methodologies.Methodology`): a task's ``time_limit_min`` left out
or null is its methodology's own default (scored: 300 seconds; outcomes: 30 minutes; weekly: the 30-minute cap,
and a weekly task stating another is refused; checks: none, so a checks task states ``time_limit_min`` and
``token_budget`` or is refused); ``token_budget`` is read on checks tasks only, and ``params.pass_threshold`` on
scored benchmarks only (elsewhere it is not stored). A run's ``judge_model`` and ``execution_mode`` (``docker`` or
``local``) are 002's: taken on scored runs, refused on any other (`run_setup`). A task's ``evidence`` lists what
is captured for every run (000 §2); a run's evidence captioned with an item holds it (`task_evidence`).
docs/bundle-format.md describes the whole format.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from typing import Any

from . import methodologies
from .bundle_checker import MAX_DEPTH
from .bundle_checks import validate_bundle
from .readings import SITE, Readings
from .types import (
    AgentInput,
    EntryInput,
    RoundInput,
    RunInput,
    TaskInput,
    VerdictInput,
    VoteInput,
)


class BundleError(ValueError):
    """A bundle that cannot be used; `problems` lists each one with its path."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class DocumentError(ValueError):
    """Bytes that are not a JSON document; the message says why, for the sender."""


def parse_document(raw: bytes | str) -> Any:
    """The JSON document in `raw` (bytes are read as strict UTF-8: never UTF-16, nor encoded surrogates), or
    `DocumentError` saying why not: not UTF-8, not JSON (NaN and Infinity included), nested deeper than the
    parser goes, a float past 1e308, or an integer of more digits than Python converts. What the document
    holds is checked by `validate_bundle` (`document_problems` first)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        return json.loads(text, parse_constant=_not_a_number, parse_float=_finite)
    except RecursionError:
        raise DocumentError(f"nested too deeply (a bundle is at most {MAX_DEPTH} levels deep)") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not valid JSON (not UTF-8: {exc.reason} at byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise DocumentError(f"not valid JSON ({exc})") from None
    except DocumentError:
        raise
    except ValueError:  # int() refuses a literal past sys.get_int_max_str_digits() (4,300 unless configured)
        raise DocumentError("a number has too many digits (a bundle's integers fit in 64 bits)") from None


def _not_a_number(name: str) -> Any:
    # Python's json reads NaN and Infinity; JSON has neither, nor can the database's JSON columns hold them.
    raise DocumentError(f"not valid JSON ({name} is not a JSON number)")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise DocumentError(f"the number {literal[:40]} is too large for a float")
    return value


def check_bundle(doc: Any, *, readings: Readings = SITE) -> None:
    """Raise `BundleError` listing every problem, or return quietly (`validate_bundle`, under `readings`)."""
    problems = validate_bundle(doc, readings=readings)
    if problems:
        raise BundleError(problems)


def _tuple(v: Any) -> tuple:
    return tuple(v) if v else ()


def run_input(run: dict) -> RunInput:
    """A run's bundle document as the scoring code sees it: the one conversion. The boards read runs through
    it from an export, and the site's run pages and services through `runs.inputs.run_input`, which hands it
    the same document built from a model, so a default (task version 1.0, trial 1) or a blank value (None)
    is read the same way on both."""
    verdicts = tuple(
        VerdictInput(
            role=v["role"], outcome=v.get("outcome"), matched=_tuple(v.get("matched")), note=v.get("note") or ""
        )
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


def _agent_input(a: dict) -> AgentInput:
    return AgentInput(
        slug=a["slug"],
        name=a.get("name") or a["slug"],
        organization=a.get("organization"),
        primary_language=a.get("primary_language"),
        languages=_tuple(a.get("languages")),
    )


def _task_input(t: dict) -> TaskInput:
    return TaskInput(
        key=t["key"],
        title=t.get("title") or "",
        kind=t.get("kind") or "core",
        version=t.get("version") or "1.0",
        dimensions=_tuple(t.get("dimensions")),
        domain=t.get("domain"),
        family=t.get("family") or None,
        evaluation=t.get("evaluation"),
        time_limit_min=t.get("time_limit_min"),
        token_budget=t.get("token_budget"),
    )


def _entry_input(e: dict) -> EntryInput:
    return EntryInput(
        agent=e["agent"],
        product_version=e.get("product_version"),
        plan=e.get("plan"),
        region=e.get("region"),
        network=e.get("network"),
        model=e.get("model"),
        cli=e.get("cli"),
        tier=e.get("tier") or "team",
    )


def round_inputs(doc: dict, round_key: str | None = None) -> list[RoundInput]:
    """Turn a valid bundle into one `RoundInput` per round (or just `round_key`), in document order."""
    bench = doc["benchmark"]
    agents = tuple(_agent_input(a) for a in doc.get("agents") or [])
    tasks = tuple(_task_input(t) for t in doc.get("tasks") or [])
    runs_by_round: dict[str, list[RunInput]] = {}
    for run in doc.get("runs") or []:
        runs_by_round.setdefault(run["round"], []).append(run_input(run))
    out = []
    for r in doc.get("rounds") or []:
        if round_key is not None and r["key"] != round_key:
            continue
        task_set = round_task_keys(r, runs_by_round.get(r["key"], []))
        round_tasks = tuple(t for t in tasks if t.key in task_set)
        entries = tuple(_entry_input(e) for e in r.get("entries") or [])
        out.append(
            RoundInput(
                benchmark=bench["slug"],
                methodology=bench["methodology"],
                key=r["key"],
                tasks=round_tasks,
                agents=agents,
                entries=entries,
                runs=tuple(runs_by_round.get(r["key"], [])),
                params=dict(bench.get("params") or {}),
                status=r.get("status", "published"),
                starts_on=r.get("starts_on"),
                double_review=methodologies.get(bench["methodology"]).double_review,
            )
        )
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
        content = json.dumps(
            [v.get("task"), v.get("a"), v.get("b"), v.get("winner"), v.get("voter"), v.get("cast_at")],
            separators=(",", ":"),
        )
        out.append(f"pos{i}-{hashlib.sha256(content.encode()).hexdigest()[:12]}")
    return out


def vote_inputs(doc: dict) -> list[VoteInput]:
    return [
        VoteInput(
            task=v["task"],
            a=v["a"],
            b=v["b"],
            winner=v["winner"],
            voter=v.get("voter"),
            counts=v.get("counts", True) is not False,
        )
        for v in doc.get("votes") or []
    ]
