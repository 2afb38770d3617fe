"""Reading Terminal-Bench's runs as `tb run` writes them (harness 0.2): a folder per run holding
`run_metadata.json` (dataset, version, task ids, `n_attempts`, agent, model), `tb.lock` (the invocation and its
`run_config`: the timeout multiplier and overrides), `results.json` (the run's summary: `n_resolved`,
`n_unresolved`, `accuracy`, `resolved_ids`, and each trial's result inline) and a folder per trial,
`<task>/<trial>/results.json` (`task_id`, `is_resolved`, `failure_mode`, `parser_results`, tokens, the trial's,
the agent's and the tests' start and end), with `sessions/agent.cast` (the terminal recording, asciicast v2)
when it was kept. A run sent as its summary alone is `<run>_results.json`. A `claims.json` at the top of the
folder says what the submission claims (`{"claims": [{"agent", "model", ..., "accuracy", "stderr"}]}`).

Each trial is one of the site's runs (`scoring.tbench_runs`): its task, its trial number (the run's place, then
the attempt), resolved or not as its score (1 or 0), its tests as checks, its tokens (0 is "not reported":
unknown), the agent's time, and a transcript holding the recording's text, the tests, the failure mode and the
times. Pure: bytes in, plain values out; every JSON file read within the upload's limits (`scoring.bounded_json`)
and its fields checked for their kind before anything reads them."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from functools import cached_property
from typing import Any

import msgspec

from .bounded_json import Budget, JsonRefused, loads
from .tau2 import Claim, decimals_of
from .tbench_casts import CastError, cast_transcript
from .tbench_files import LockFile, MetadataFile, SummaryFile, SummaryHeadFile, TrialFile

RESULTS, METADATA, LOCK, CLAIMS, CAST = "results.json", "run_metadata.json", "tb.lock", "claims.json", "agent.cast"
SUMMARY_SUFFIX = "_results.json"
# What a claim is called, by the field of claims.json (or of the upload form) that gives it.
CLAIM_NAMES = {"accuracy": "accuracy", "stderr": "accuracy stderr"}
NOT_REPORTED_TOKENS = 0  # the harness writes 0 when the agent reports no usage


class TbenchError(ValueError):
    """Files that cannot be read as Terminal-Bench runs: refused, nothing written."""


@dataclass
class Trial:
    """One trial of one task in one run, as the harness reported it."""

    run: str
    task: str
    attempt: int
    resolved: bool | None
    failure_mode: str = ""
    tests: dict[str, str] = field(default_factory=dict)
    tokens_input: int | None = None
    tokens_output: int | None = None
    started_at: str | None = None
    agent_seconds: float | None = None
    test_seconds: float | None = None
    recording_path: str = ""  # as the trial names it ("" when it names none)
    recording: bytes | None = None  # the recording, when it was sent
    recording_text: dict[str, Any] | None = None  # its transcript (`tbench_casts.cast_transcript`)


@dataclass
class TbRun:
    """One `tb run`: its folder, what its metadata and lock say, its summary, and its trials (from the trial
    folders, else from the summary's own results, else from its lists of resolved and unresolved ids)."""

    id: str
    folder: str
    metadata: MetadataFile | None = None
    lock: LockFile | None = None
    summary: SummaryFile | SummaryHeadFile | None = None
    summary_file: tuple[str, bytes] | None = None  # its path and bytes, read whole only when its trials are needed
    trials: list[Trial] = field(default_factory=list)
    trials_from: str = ""  # "trial folders", "its summary", "its summary's ids" or "" (none)

    @property
    def attempts(self) -> int:
        given = [n for n in (self.lock_config("n_attempts"), getattr(self.metadata, "n_attempts", None)) if n]
        return max(given) if given else 1

    def lock_config(self, name: str) -> Any:
        config = self.lock.run_config if self.lock is not None else None
        return getattr(config, name, None) if config is not None else None

    @property
    def dataset(self) -> tuple[str, str] | None:
        """(name, version) as its metadata (else its lock) names it."""
        for named in (
            (self.metadata.dataset_name, self.metadata.dataset_version) if self.metadata else None,
            (self.lock.dataset.name, self.lock.dataset.version) if self.lock and self.lock.dataset else None,
        ):
            if named and named[0] and named[1]:
                return named[0], named[1]
        return None

    @property
    def agent(self) -> str | None:
        meta = self.metadata.agent_name if self.metadata else None
        return meta or (self.lock.agent.name if self.lock and self.lock.agent else None)

    @property
    def model(self) -> str | None:
        meta = self.metadata.model_name if self.metadata else None
        return meta or (self.lock.agent.model_name if self.lock and self.lock.agent else None)


@dataclass
class TbSubmission:
    runs: list[TbRun]
    claims: list[Claim]
    declared: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @cached_property
    def attempts(self) -> int:
        """The most attempts of a task any run made (read once: the runs do not change)."""
        return max((r.attempts for r in self.runs), default=1)

    def trial_number(self, index: int, attempt: int) -> int:
        """The site's trial number of attempt `attempt` of the `index`-th run (0-based): runs in order, then
        attempts, so trial t is of run (t - 1) // attempts."""
        return index * self.attempts + attempt


def _kinds(name: str, doc: Any, kind: type) -> Any:
    try:
        return msgspec.convert(doc, kind, strict=True)
    except msgspec.ValidationError as exc:
        why, _, where = str(exc).partition(" - at `$")
        where = where.rstrip("`").lstrip(".")
        raise TbenchError(f"{name}: {where}: {why[:1].lower()}{why[1:]}" if where else f"{name}: {why}") from None


def _load(name: str, data: bytes, budget: Budget | None) -> Any:
    try:
        return loads(name, data, budget)
    except JsonRefused as exc:
        raise TbenchError(str(exc)) from exc


def _base(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _seconds(start: str | None, end: str | None) -> float | None:
    try:
        if start and end:
            seconds = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
            return seconds if seconds >= 0 else None
    except (ValueError, TypeError):
        return None
    return None


ATTEMPT = re.compile(r"\.(\d+)-of-\d+\.")
NOT_KEY = re.compile(r"[^A-Za-z0-9_.-]+")


def _time(value: str | None) -> str | None:
    """An ISO time a database can store (years 1970 to 9998), else None."""
    try:
        when = datetime.fromisoformat(value or "")
        return value if 1970 <= (when.astimezone(UTC) if when.tzinfo else when).year <= 9998 else None
    except (ValueError, OverflowError):
        return None


def _trial(run: str, t: TrialFile, attempt: int, cast: tuple[str, bytes] | None) -> Trial:
    tokens = (t.total_input_tokens, t.total_output_tokens)
    text = None
    if cast is not None:
        try:
            text = cast_transcript(cast[1])
        except CastError as exc:
            raise TbenchError(f"{cast[0]}: {exc}") from None
    return Trial(
        run=run,
        task=t.task_id,
        attempt=attempt,
        resolved=t.is_resolved,
        failure_mode=t.failure_mode or "",
        tests={str(k): str(v) for k, v in (t.parser_results or {}).items()},
        tokens_input=None if tokens[0] in (None, NOT_REPORTED_TOKENS) else tokens[0],
        tokens_output=None if tokens[1] in (None, NOT_REPORTED_TOKENS) else tokens[1],
        started_at=_time(t.trial_started_at),
        agent_seconds=_seconds(t.agent_started_at, t.agent_ended_at),
        test_seconds=_seconds(t.test_started_at, t.test_ended_at),
        recording_path=t.recording_path or "",
        recording=cast[1] if cast is not None else None,
        recording_text=text,
    )


def _attempts(trials: list[TrialFile]) -> list[int]:
    """Each trial's attempt: from its name ("task.2-of-5.run"), else its place among the task's trials."""
    seen: dict[str, int] = {}
    out = []
    for t in trials:
        seen[t.task_id] = seen.get(t.task_id, 0) + 1
        found = ATTEMPT.search(t.trial_name or "")
        out.append(int(found.group(1)) if found else seen[t.task_id])
    return out


def takes(name: str) -> bool:
    """The files of a submitted folder the reader reads (everything else a run folder holds is left)."""
    base = _base(name)
    return base in (RESULTS, METADATA, LOCK, CLAIMS, CAST) or base.endswith(SUMMARY_SUFFIX)


def recognises(names: list[str]) -> bool:
    """Whether these are `tb run` folders: a run's metadata or lock, or a run summary sent alone."""
    return any(_base(n) in (METADATA, LOCK) or _base(n).endswith(SUMMARY_SUFFIX) for n in names)


def _run_of(runs: dict[str, TbRun], folder: str) -> TbRun:
    if folder not in runs:
        runs[folder] = TbRun(id=_base(folder) or "run", folder=folder)
    return runs[folder]


def _read_file(
    path: str, data: bytes, budget: Budget | None, runs: dict, trial_files: dict, summaries: frozenset[str]
) -> None:
    """One file into `runs` (by folder) or `trial_files` (by path); `summaries`: the folders holding a run's
    metadata or lock, whose results.json is the run's summary."""
    base = _base(path)
    if base == METADATA:
        _run_of(runs, _parent(path)).metadata = _typed(path, data, budget, MetadataFile)
    elif base == LOCK:
        _run_of(runs, _parent(path)).lock = _typed(path, data, budget, LockFile)
    elif base.endswith(SUMMARY_SUFFIX):
        folder = f"{_parent(path)}/{base.removesuffix(SUMMARY_SUFFIX)}".lstrip("/")
        run = _run_of(runs, folder)
        run.summary, run.summary_file = (
            _typed(path, data, budget, SummaryHeadFile if budget is None else SummaryFile),
            (path, data),
        )
    elif base == RESULTS:
        # A run's summary beside its metadata or lock is tried as one first, a trial's results as a trial's: each
        # read once (trying the other kind first reads a whole summary only to find it no trial).
        kinds = (SummaryHeadFile, TrialFile) if _parent(path) in summaries else (TrialFile, SummaryHeadFile)
        for kind in kinds if budget is None else ():
            found = _fast(data, kind)
            if isinstance(found, TrialFile):
                trial_files[path] = found
                return
            if found is not None:
                run = _run_of(runs, _parent(path))
                run.summary, run.summary_file = found, (path, data)
                return
        doc = _load(path, data, budget)
        if isinstance(doc, dict) and "task_id" in doc:
            trial_files[path] = _kinds(path, doc, TrialFile)
        elif isinstance(doc, dict):
            _run_of(runs, _parent(path)).summary = _kinds(path, doc, SummaryFile)
        else:
            raise TbenchError(f"{path}: neither a trial's results nor a run's summary")


def _typed(path: str, data: bytes, budget: Budget | None, kind: type) -> Any:
    """A file read as `kind`: in one pass when it was counted already (`_fast`), else counted, parsed and its
    fields' kinds checked, any refusal naming the field."""
    found = _fast(data, kind) if budget is None else None
    slow = SummaryFile if kind is SummaryHeadFile else kind  # (a summary's refusal names the field of its results too)
    return found if found is not None else _kinds(path, _load(path, data, budget), slow)


DECODERS: dict[type, msgspec.json.Decoder] = {
    kind: msgspec.json.Decoder(kind, strict=True)
    for kind in (TrialFile, SummaryFile, SummaryHeadFile, MetadataFile, LockFile)
}


def _fast(data: bytes, kind: type) -> Any:
    """A file counted already, read as `kind` in one pass (its kinds checked as it parses); None for anything
    else (a NUL, a number JSON cannot hold, a field of the wrong kind, another kind of file): then read as the
    others are, whose refusals name the field."""
    if b"\\u0000" in data:  # (NaN and Infinity are no JSON: msgspec refuses them itself)
        return None
    try:
        found = DECODERS[kind].decode(data)
    except msgspec.DecodeError:
        return None
    if not isinstance(found, SummaryFile | SummaryHeadFile):
        return found
    readable = found.accuracy is None or math.isfinite(found.accuracy)  # 1e999: refused by the slow path
    return found if readable and (found.results or found.n_resolved is not None) else None


def _suffixes(casts: dict[str, bytes]) -> dict[str, str]:
    """Each recording's path by every tail of it ("run/task/trial/sessions/agent.cast" and shorter)."""
    out: dict[str, str] = {}
    for path in casts:
        parts = path.split("/")
        for i in range(len(parts)):
            out.setdefault("/".join(parts[i:]), path)
    return out


def _cast_for(
    trial_dir: str, recording_path: str, casts: dict[str, bytes], tails: dict[str, str]
) -> tuple[str, bytes] | None:
    """The recording sent for a trial: in its folder's sessions/, else the file at the path it names."""
    direct = f"{trial_dir}/sessions/{CAST}".lstrip("/")
    if trial_dir and direct in casts:
        return direct, casts[direct]
    found = tails.get(recording_path.lstrip("/")) if recording_path else None
    return (found, casts[found]) if found is not None else None


def _trials_of(run: TbRun, files: dict[str, TrialFile], casts: dict[str, bytes], tails: dict[str, str]) -> None:
    """The run's trials: its trial folders' results, else its summary's results, else its summary's ids."""
    own = sorted(files.items())
    if own:
        attempts = _attempts([t for _, t in own])
        run.trials = [
            _trial(run.id, t, a, _cast_for(_parent(p), t.recording_path or "", casts, tails))
            for (p, t), a in zip(own, attempts, strict=True)
        ]
        run.trials_from = "trial folders"
    elif run.summary is not None and run.summary.results:
        if isinstance(run.summary, SummaryHeadFile) and run.summary_file is not None:
            run.summary = _typed(*run.summary_file, None, SummaryFile)  # its inline results now: its trials
        inline: list[TrialFile] = list(run.summary.results)  # type: ignore[arg-type]  # read as SummaryFile just above
        attempts = _attempts(inline)
        run.trials = [
            _trial(run.id, t, a, _cast_for("", t.recording_path or "", casts, tails))
            for t, a in zip(inline, attempts, strict=True)
        ]
        run.trials_from = "its summary"
    elif run.summary is not None and (run.summary.resolved_ids or run.summary.unresolved_ids):
        ids = [(i, True) for i in run.summary.resolved_ids or []] + [
            (i, False) for i in run.summary.unresolved_ids or []
        ]
        run.trials = [Trial(run.id, task, 1, resolved) for task, resolved in ids]
        run.trials_from = "its summary's ids"


def read_runs(
    files: dict[str, bytes],
    budget: Budget | None = None,
    claims: dict[str, str] | None = None,
    *,
    counted: bool = False,
    recording_limit: int | None = None,
) -> TbSubmission:
    """`files` by their path in the submitted folder (those `takes` keeps). `claims`: the figures claimed on the
    upload form ({"accuracy": "0.505", "accuracy stderr": "0.0135"}), over those of claims.json. `counted`: the
    .json files were counted within `budget` as they arrived (then only the others, tb.lock, are counted here).
    `recording_limit`: the bytes a recording may hold (a larger one is refused before it is read)."""
    budget = budget or Budget(max_bytes=sum(len(d) for d in files.values()))
    runs: dict[str, TbRun] = {}
    trial_files: dict[str, TrialFile] = {}
    casts = {p: d for p, d in files.items() if _base(p) == CAST}
    over = [
        f"{p}: the recording is {len(d):,} bytes, over {recording_limit:,}"
        for p, d in casts.items()
        if recording_limit is not None and len(d) > recording_limit
    ]
    if over:
        raise TbenchError("; ".join(over))
    summaries = frozenset(_parent(p) for p in files if _base(p) in (METADATA, LOCK))
    for path, data in sorted(files.items()):
        if _base(path) not in (CAST, CLAIMS):
            own = None if counted and path.endswith(".json") else budget
            _read_file(path, data, own, runs, trial_files, summaries)
    by_run: dict[str, dict[str, TrialFile]] = {}
    for path, trial in trial_files.items():  # a trial's folder is <run>/<task>/<trial>/
        by_run.setdefault("/".join(path.split("/")[:-3]), {})[path] = trial
    for folder in by_run:
        _run_of(runs, folder)
    tails = _suffixes(casts)
    for run in runs.values():
        run.id = _run_key(run.metadata.run_id if run.metadata and run.metadata.run_id else run.id)
        _trials_of(run, by_run.get(run.folder, {}), casts, tails)
    if not runs:
        raise TbenchError("no run found: send the folders `tb run` writes (run_metadata.json, tb.lock, results.json)")
    ordered = sorted(runs.values(), key=lambda r: ((r.metadata.start_time or "") if r.metadata else "", _natural(r.id)))
    if len({r.id for r in ordered}) != len(ordered):
        raise TbenchError("two runs have one run id: " + ", ".join(sorted(r.id for r in ordered)))
    sent, declared = _claims(files, {r.folder for r in ordered}, None if counted else budget)
    given = [_claim(CLAIM_NAMES.get(k, k), v, "the upload form") for k, v in (claims or {}).items() if str(v).strip()]
    named = {c.name for c in given}
    return TbSubmission(ordered, given + [c for c in sent if c.name not in named], declared, _notes(ordered))


def _run_key(text: str) -> str:
    """A run id as a run's key may hold it: letters, digits, `_`, `.` and `-`."""
    return NOT_KEY.sub("-", text).strip("-.") or "run"


def _natural(text: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def _claim(name: str, value: Any, where: str) -> Claim:
    try:
        exact = Decimal(str(value).strip())
    except (InvalidOperation, ValueError):
        raise TbenchError(f"{where}: {name} {value!r} is not a number") from None
    if not exact.is_finite() or not 0 <= exact <= 1:
        raise TbenchError(f"{where}: {name} {value!r} is not a share between 0 and 1")
    return Claim(name, "", name, None, float(exact), decimals_of(exact), "")


def _claims(files: dict[str, bytes], folders: set[str], budget: Budget | None) -> tuple[list[Claim], dict[str, Any]]:
    """The claims and declared fields of the claims.json at the folder's top (not one inside a run's folder)."""
    top = sorted(
        (p for p in files if _base(p) == CLAIMS and not any(f and p.startswith(f"{f}/") for f in folders)),
        key=lambda p: (p.count("/"), p),
    )
    if not top:
        return [], {}
    path = top[0]
    _load(path, files[path], budget)  # counted, and refused when not JSON
    doc = json.loads(files[path], parse_float=Decimal)
    entries: list[Any] = doc["claims"] if isinstance(doc, dict) and isinstance(doc.get("claims"), list) else [doc]
    if len(entries) != 1 or not isinstance(entries[0], dict):
        raise TbenchError(f'{path}: one claim, {{"claims": [{{"agent", "model", ..., "accuracy", "stderr"}}]}}')
    entry = entries[0]
    claims = [_claim(name, entry[key], path) for key, name in CLAIM_NAMES.items() if entry.get(key) is not None]
    declared = {k: str(v) for k, v in entry.items() if k not in CLAIM_NAMES and isinstance(v, str | int | bool)}
    return claims, declared


def _notes(runs: list[TbRun]) -> list[str]:
    trials = [t for r in runs for t in r.trials]
    out = []
    if trials and all(t.tokens_input is None and t.tokens_output is None for t in trials):
        out.append("no trial reports its tokens (the harness wrote 0): stored as unknown")
    referenced = [t for t in trials if t.recording_path]
    if referenced:
        sent = sum(1 for t in referenced if t.recording is not None)
        out.append(f"terminal recordings: {sent} sent of the {len(referenced)} the trials reference")
    for source in ("its summary", "its summary's ids"):
        named = [r.id for r in runs if r.trials_from == source]
        if named:
            out.append(
                f"run{'s' if len(named) > 1 else ''} {', '.join(named)}: trials read from {source} (no trial folders)"
            )
    return out


__all__ = ["CastError", "TbenchError", "read_runs"]
