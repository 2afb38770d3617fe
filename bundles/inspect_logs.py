"""Inspect eval logs as a results bundle (`scored` methodology), with no database.

Logs are read by Inspect itself (`inspect_ai.log.read_eval_log`, `.eval` and `.json` alike), never by a parser
of our own. The mapping (docs/inspect.md):

- each sample of an Inspect task is one task here, keyed ``<inspect task>.<sample id>`` (a key is one URL path
  segment, so the separator is a dot and any character a key cannot hold becomes ``-``), with the sample's input
  as its prompt and the Inspect task's name as its domain;
- each epoch is a trial; the sample's score (the scorer named by ``scorer``, else the first) becomes the run's
  score, mapped by Inspect's own ``value_to_float`` (C 1, P 0.5, I and N 0, numbers as they are);
- model usage becomes tokens: input, output and cache writes; cache reads never count;
- working time becomes ``wall_seconds``; cost stays null unless every model usage of the sample carries one;
- the sandbox (the sample's, else the eval's) becomes ``execution_mode`` when it is Docker or local (002's two
  modes), and is not recorded otherwise; no ``judge_model`` is recorded, since a log does not say which model, if
  any, scored a sample;
- a sample that errored is ``infra_error``; one stopped by a limit is handed in as it stood, ``timeout`` for a
  time or working-time limit and ``budget_exhausted`` for any other (tokens, messages, turns, cost...);
- the eval's model and solver become the entry (``model``, ``cli``) and the Inspect version its
  ``product_version``; the agent is the model, the solver or a tag (``agent_from``).

A log of an eval that did not finish (started, cancelled or stopped by an error) is refused with its status, and
a log that no scorer scored (`inspect eval --no-score`) is refused, naming `inspect score`: a result nobody
scored is not a 0. In a scored log, a sample its scorer gave no score is a run without a score, which the board
leaves out and lists as not scored.

A log is checked for size before Inspect reads it, since Inspect reads a sample whole: an `.eval` log is a zip,
and a 1.6 MB one can hold a sample that inflates to gigabytes. Every entry of the zip is inflated in chunks and
its bytes counted as they come out (`bundles.zip_inflate`: the sizes its headers declare are not trusted), and
the log is refused (`LogTooLarge`) as soon as one entry passes INSPECT_LOG_MAX_ENTRY_BYTES or all of them
together pass INSPECT_LOG_MAX_BYTES. A `.json` log, and the file of either kind, may be at most
INSPECT_LOG_MAX_BYTES.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from scoring.transcripts import FORMAT as TRANSCRIPT_FORMAT

from .zip_inflate import OverLimit, check_inflated

try:
    from inspect_ai.log import EvalLog, EvalSample, read_eval_log
    from inspect_ai.scorer import value_to_float
except ImportError:  # the optional extra: `pip install -e '.[inspect]'`
    read_eval_log = None  # type: ignore[assignment]

MISSING_EXTRA = "Inspect logs need the inspect extra: pip install -e '.[inspect]'"
KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
TIME_LIMITS = frozenset({"time", "working"})
KEY_LENGTH = 100
RUN_ID_LENGTH = 200

# Inspect scores make boards of this methodology: the one place the conversion names it.
METHODOLOGY = "scored"


class InspectLogError(ValueError):
    """Logs that cannot be imported; `problems` lists each with the log it comes from."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class LogTooLarge(InspectLogError):
    """Logs refused for their size (at least one of `problems` is a log over a limit); the upload API answers
    413."""


class _OverLimit(Exception):
    """One log over a size limit; the message says which and by how much."""


@dataclass(frozen=True)
class NamedLog:
    """A log as read, with the name problems are reported under (its file name)."""

    name: str
    log: EvalLog


def read_logs(sources: Iterable[tuple[str, IO[bytes] | str | Path]]) -> list[NamedLog]:
    """Read every (name, file or path) with Inspect; unreadable ones are reported together."""
    if read_eval_log is None:
        raise InspectLogError([MISSING_EXTRA])
    logs, problems, too_large = [], [], False
    for name, source in sources:
        try:
            logs.append(NamedLog(name, _read_one(source)))
        except _OverLimit as exc:
            problems.append(f"{name}: {exc}")
            too_large = True
        except Exception as exc:  # Inspect raises many kinds (zip, JSON, validation); each is this file's problem
            problems.append(f"{name}: not a readable Inspect log ({type(exc).__name__}: {str(exc)[:200]})")
    if problems:
        raise (LogTooLarge if too_large else InspectLogError)(problems)
    return logs


def _read_one(source: IO[bytes] | str | Path) -> EvalLog:
    if isinstance(source, str | Path):
        with open(source, "rb") as f:
            _check_size(f, Path(source).stat().st_size)
        return read_eval_log(str(source), resolve_attachments=True, exclude_fields={"events", "store"})
    data = source.read(settings.INSPECT_LOG_MAX_BYTES + 1)
    _check_size(io.BytesIO(data), len(data))
    # An uploaded stream has no extension to go by: an .eval log is a zip archive, a .json one is not.
    if data[:2] == b"PK":
        return read_eval_log(io.BytesIO(data), resolve_attachments=True, format="eval")
    return read_eval_log(io.BytesIO(data), resolve_attachments=True, format="json")


def _check_size(f: IO[bytes], size: int) -> None:
    """`_OverLimit` when the file (`size` bytes) or, for a zip, what it inflates to is over the limits
    (`bundles.zip_inflate`: every entry inflated and counted, before Inspect reads any)."""
    max_total, max_entry = settings.INSPECT_LOG_MAX_BYTES, settings.INSPECT_LOG_MAX_ENTRY_BYTES
    if size > max_total:
        raise _OverLimit(f"the file is over {max_total:,} bytes (INSPECT_LOG_MAX_BYTES)")
    if f.read(2) != b"PK":
        return  # a .json log: its size is what it is
    f.seek(0)
    try:
        check_inflated(f, max_entry=max_entry, max_total=max_total)
    except OverLimit as over:
        what = f"{over.entry[:100]!r} inflates" if over.entry is not None else "the log inflates"
        setting = "INSPECT_LOG_MAX_ENTRY_BYTES" if over.entry is not None else "INSPECT_LOG_MAX_BYTES"
        said = " by what its zip headers declare" if over.declared else ""
        raise _OverLimit(f"{what} to over {over.limit:,} bytes{said} ({setting}); it was not read") from None


def key_part(text: str) -> str:
    """`text` as (part of) a key: characters a key cannot hold become `-`."""
    return KEY_UNSAFE.sub("-", text).strip("-.") or "x"


def fit(key: str, length: int) -> str:
    """A key cut to `length`, kept unique by a digest of the whole."""
    if len(key) <= length:
        return key
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return f"{key[: length - 13]}-{digest}"


def task_key(task: str, sample_id: int | str) -> str:
    return fit(f"{key_part(task)}.{key_part(str(sample_id))}", KEY_LENGTH)


def prompt_text(sample: EvalSample) -> str:
    """The sample's input as one text: a string as it is, chat messages one per paragraph with their role."""
    if isinstance(sample.input, str):
        return sample.input
    return "\n\n".join(f"{m.role}: {m.text}" for m in sample.input)


def solver_name(log: EvalLog) -> str:
    """The eval's solver: the one named on the command line, else the plan's steps in order."""
    if log.eval.solver:
        return log.eval.solver
    return " > ".join(step.solver for step in log.plan.steps) or "unknown"


def agent_of(named: NamedLog, agent_from: str) -> tuple[str, str, str | None]:
    """(slug, name, organization) of the agent a log is an entry of."""
    log = named.log
    if agent_from == "model":
        provider = log.eval.model.split("/", 1)[0] if "/" in log.eval.model else None
        return fit(key_part(log.eval.model).lower(), KEY_LENGTH), log.eval.model, provider
    if agent_from == "solver":
        solver = solver_name(log)
        return fit(key_part(solver).lower(), KEY_LENGTH), solver, None
    name = agent_from.removeprefix("tag:")
    value = _tag_value(log, name)
    if value is None:
        raise InspectLogError(
            [f"{named.name}: no tag '{name}=...' and no metadata '{name}' names the agent (--agent-from {agent_from})"]
        )
    return fit(key_part(value).lower(), KEY_LENGTH), value, None


def _tag_value(log: EvalLog, name: str) -> str | None:
    """The value of tag `name=value` (or `name:value`) on the eval, else its metadata entry `name`."""
    for tag in log.eval.tags or []:
        for sep in ("=", ":"):
            if tag.startswith(f"{name}{sep}") and tag[len(name) + 1 :].strip():
                return tag[len(name) + 1 :].strip()
    value = (log.eval.metadata or {}).get(name)
    return str(value) if value not in (None, "") else None


def refusal(named: NamedLog) -> str | None:
    """Why a log cannot be imported, or None: only a finished, scored eval with its samples is a result.

    A log whose samples ran to their end but carry no score at all (an eval run with `--no-score`, or Inspect's
    own test logs) is refused: a result nobody scored is not a 0, and it is scored with `inspect score`. A log
    whose every sample errored has nothing to score and imports as infra errors."""
    log = named.log
    if log.status == "started":
        return "the eval has not finished (status 'started'); import its log once it has"
    if log.status == "cancelled":
        return "the eval was cancelled (status 'cancelled'); its samples are not a complete result"
    if log.status == "error":
        message = log.error.message if log.error else "no message"
        return f"the eval stopped with an error (status 'error': {message[:300]})"
    if log.status != "success":
        return f"the eval's status is {log.status!r}, not 'success'"
    if not log.samples:
        return "the log holds no samples (was the eval run with log_samples off?)"
    ended = [s for s in log.samples if s.error is None]
    if ended and not any(s.scores for s in ended):
        return (
            "no sample has a score: the eval ran without scoring (as `inspect eval --no-score` does), and a result "
            f"nobody scored is not a 0. Score the log first, `inspect score {named.name}` (it writes a scored copy; "
            "`--overwrite` scores the file in place), then import the scored log"
        )
    return None


def sample_score(named: NamedLog, sample: EvalSample, scorer: str | None) -> float | None:
    """The sample's score by the chosen scorer (`scorer`, else the first), through Inspect's `value_to_float`.

    A sample with no score (it errored, or its scorer gave none) has none: its run is not scored, and the board
    leaves it out. One stopped by a limit without a score is refused, since a run stopped at a limit with no
    score counts 0 (`scoring.scored`), a 0 nobody measured (Inspect scores a sample stopped by a limit as it
    stood). A score that is not one number (a dict or list of values) or falls outside 0..1 is refused, since a
    `scored` board reads scores as fractions."""
    where = f"{named.name}: sample {sample.id!r} epoch {sample.epoch}"
    if not sample.scores:
        if sample.error is None and sample.limit is not None:
            raise InspectLogError(
                [
                    f"{where}: stopped by its {sample.limit.type} limit with no score; a run stopped at a limit "
                    f"without a score would count 0, which nobody measured: score it first (`inspect score "
                    f"{named.name}`)"
                ]
            )
        return None
    if scorer is None:
        scorer = next(iter(sample.scores))
    if scorer not in sample.scores:
        raise InspectLogError([f"{where}: no score from scorer {scorer!r} (it has {', '.join(sample.scores)})"])
    value = sample.scores[scorer].value
    if isinstance(value, dict | list):
        raise InspectLogError([f"{where}: scorer {scorer!r} gave several values, not one score"])
    score = value_to_float()(value)
    if not 0.0 <= score <= 1.0:
        raise InspectLogError([f"{where}: scorer {scorer!r} gave {value!r}, outside 0..1"])
    return score


def run_status(sample: EvalSample) -> str:
    """An error is the platform's (`infra_error`); a limit hands the sample in as it stood."""
    if sample.error is not None:
        return "infra_error"
    if sample.limit is not None:
        return "timeout" if sample.limit.type in TIME_LIMITS else "budget_exhausted"
    return "completed"


# Inspect's sandbox types that are 002's execution modes ("Docker mode", "Local mode (fallback)"); a run in any
# other sandbox, or in none, records no mode.
SANDBOX_MODES = {"docker": "docker", "local": "local"}


def execution_mode(log: EvalLog, sample: EvalSample) -> str | None:
    """The sample's execution mode (`scoring.run_setup`): its own sandbox, else its eval's, when Inspect's type is
    Docker or local; None (not recorded) for any other sandbox or none."""
    spec = getattr(sample, "sandbox", None) or log.eval.sandbox
    return SANDBOX_MODES.get(spec.type) if spec is not None else None


def usage_fields(sample: EvalSample) -> dict[str, Any]:
    """Tokens over every model the sample used: input (Inspect's `input_tokens` already leaves out cache reads
    and writes), output and cache writes; cache reads never count. Cost only when every usage carries one."""
    usages = list(sample.model_usage.values())
    if not usages:
        return {"tokens_input": None, "tokens_output": None, "tokens_cache_write": None, "cost_usd": None}
    writes = [u.input_tokens_cache_write for u in usages if u.input_tokens_cache_write is not None]
    costs = [u.total_cost for u in usages]
    return {
        "tokens_input": sum(u.input_tokens for u in usages),
        "tokens_output": sum(u.output_tokens for u in usages),
        "tokens_cache_write": sum(writes) if writes else None,
        "cost_usd": round(sum(c for c in costs if c is not None), 6) if all(c is not None for c in costs) else None,
    }


@dataclass
class _Collected:
    """What the logs make, keyed so that a second sight of the same thing is checked against the first."""

    agents: dict[str, dict]
    entries: dict[str, tuple[str, dict]]  # agent -> (log name, entry)
    tasks: dict[str, tuple[str, dict]]  # task key -> (log name, task)
    runs: dict[str, tuple[str, str, dict]]  # run id -> (log name, eval id, run)
    problems: list[str]
    samples: dict[str, str]  # task key -> "log name: sample id of inspect task", for reports


@dataclass(frozen=True)
class Conversion:
    """The bundle the logs make, and where each of its tasks came from (for reports by sample id)."""

    doc: dict
    samples: dict[str, str]


def logs_to_bundle(
    logs: list[NamedLog], *, benchmark: str, round_key: str, agent_from: str = "model", scorer: str | None = None
) -> Conversion:
    """The bundle the logs make: one benchmark (`scored`), one draft round with an entry per agent, a task per
    sample and a run per sample and epoch. Raises `InspectLogError` listing every problem (nothing partial)."""
    found = _Collected({}, {}, {}, {}, [], {})
    for named in logs:
        reason = refusal(named)
        if reason:
            found.problems.append(f"{named.name}: {reason}")
            continue
        try:
            _collect(named, found, round_key, agent_from, scorer)
        except InspectLogError as exc:
            found.problems.extend(exc.problems)
    if found.problems:
        raise InspectLogError(found.problems)
    doc = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {"slug": benchmark, "name": benchmark, "methodology": METHODOLOGY},
        "agents": [found.agents[slug] for slug in sorted(found.agents)],
        "tasks": [task for _, task in found.tasks.values()],
        "rounds": [
            {
                "key": round_key,
                "name": round_key,
                "status": "draft",
                "entries": [found.entries[slug][1] for slug in sorted(found.entries)],
            }
        ],
        "runs": [run for _, _, run in found.runs.values()],
    }
    return Conversion(doc, found.samples)


def _collect(named: NamedLog, found: _Collected, round_key: str, agent_from: str, scorer: str | None) -> None:
    log = named.log
    slug, name, organization = agent_of(named, agent_from)
    found.agents[slug] = {"slug": slug, "name": name, "organization": organization}
    entry = {
        "agent": slug,
        "model": log.eval.model,
        "cli": solver_name(log)[:200],
        "product_version": f"inspect_ai {log.eval.packages.get('inspect_ai', '')}".strip(),
    }
    seen = found.entries.get(slug)
    if seen is not None and seen[1] != entry:
        found.problems.append(
            f"{named.name}: agent {slug!r} already comes from {seen[0]} with another model or solver "
            f"({seen[1]['model']}, {seen[1]['cli']}); pick --agent-from so that each agent is one entry"
        )
        return
    found.entries[slug] = (named.name, entry)
    for sample in log.samples or []:
        key = task_key(log.eval.task, sample.id)
        task = {
            "key": key,
            "title": f"{log.eval.task} {sample.id}"[:300],
            "version": "1.0",
            "kind": "core",
            "prompt": prompt_text(sample),
            "domain": log.eval.task[:100],
            "time_limit_min": None,
        }
        first = found.tasks.setdefault(key, (named.name, task))
        found.samples.setdefault(key, f"{named.name}: sample {sample.id!r} of {log.eval.task}")
        if first[1]["prompt"] != task["prompt"]:
            found.problems.append(
                f"{named.name}: sample {sample.id!r} of {log.eval.task} has another input than in {first[0]}"
            )
            continue
        run = _run_doc(named, sample, slug, key, round_key, scorer)
        earlier = found.runs.get(run["id"])
        if earlier is not None and earlier[1] != log.eval.eval_id:
            found.problems.append(
                f"{named.name}: {slug}'s epoch {sample.epoch} of sample {sample.id!r} is also in {earlier[0]} "
                "(two evals of one agent on one task: import one of them)"
            )
            continue
        found.runs[run["id"]] = (named.name, log.eval.eval_id, run)


def _run_doc(
    named: NamedLog, sample: EvalSample, agent: str, key: str, round_key: str, scorer: str | None
) -> dict[str, Any]:
    return {
        "id": fit(f"{agent}.{key}.{sample.epoch}", RUN_ID_LENGTH),
        "round": round_key,
        "agent": agent,
        "task": key,
        "trial": sample.epoch,
        "status": run_status(sample),
        "score": sample_score(named, sample, scorer),
        **usage_fields(sample),
        "wall_seconds": sample.working_time,
        "execution_mode": execution_mode(named.log, sample),
        # What happened, for the run page and the search (docs/transcripts.md): never a board's input.
        "transcript": sample_transcript(sample),
        "transcript_source": "inspect",
    }


def sample_transcript(sample: EvalSample) -> dict[str, Any]:
    """A sample as a transcript (`scoring.transcripts`): the input, every message with its role, the assistant's
    tool calls with their arguments, each tool's result or error, the final output, every scorer's value,
    answer, explanation and metadata, the sample's error or the limit it hit, and the usage per model."""
    messages = []
    for m in sample.messages:
        message: dict[str, Any] = {"role": m.role, "text": m.text}
        if m.role == "assistant" and m.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "function": c.function, "arguments": _plain(c.arguments)} for c in m.tool_calls
            ]
        if m.role == "tool":
            message["tool_call_id"] = m.tool_call_id or ""
            message["function"] = m.function or ""
            if m.error is not None:
                message["error"] = f"{m.error.type}: {m.error.message}"
        messages.append(message)
    doc: dict[str, Any] = {
        "format": TRANSCRIPT_FORMAT,
        "input": prompt_text(sample),
        "messages": messages,
        "output": sample.output.completion if sample.output is not None else None,
        "scores": [
            {
                "scorer": name,
                "value": _plain(s.value),
                "answer": s.answer,
                "explanation": s.explanation,
                "metadata": _plain(s.metadata),
            }
            for name, s in (sample.scores or {}).items()
        ],
        "error": sample.error.message if sample.error is not None else None,
        "limit": {"type": sample.limit.type, "limit": _plain(sample.limit.limit)} if sample.limit else None,
        "usage": {model: u.model_dump(exclude_none=True) for model, u in sample.model_usage.items()},
    }
    return {k: v for k, v in doc.items() if v is not None}


def _plain(value: Any) -> Any:
    """`value` as plain JSON (a model's arguments or a scorer's metadata may hold anything)."""
    return json.loads(json.dumps(value, default=str))
