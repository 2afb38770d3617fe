"""A submission as sent, read into what the checks see (`scoring.submission_checks.SubmittedFile`s) and the
runs the round gets (bundle `runs[]` documents): the `Read` every format's reader gives (`submissions.formats`),
and the readers of a τ²-bench folder, a results bundle and Inspect logs. Refusals (nothing is written) raise
`SubmissionRefused` with every problem."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

from django.conf import settings

from bundles.inspect_logs import InspectLogError, logs_to_bundle, read_logs
from bundles.submission_mode import review_record_problems
from bundles.zip_inflate import entry_chunks
from leaderboard.models import Benchmark, Round, Task, TaskVersion
from scoring.bounded_json import Budget, JsonRefused, counted
from scoring.bundle import BundleError, DocumentError, check_bundle, parse_document
from scoring.submission_checks import Ran, TaskSet, TrackInput
from scoring.submission_types import Sim, SubmittedFile
from scoring.tau2 import Claim, Tau2Error, read_submission
from scoring.tau2_runs import from_tau2, run_doc

from .models import SubmissionTrack, TaskSetVersion


class SubmissionRefused(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Read:
    """A submission read by its format's reader: what it declares, claims and sent, as the checks see it, and
    the runs the round gets (`run_docs`: bundle `runs[]` documents still to be given the submission's id, round,
    agent and the stored version of their task: `runs`). `native`: the format's own reading, for its checks and
    figures."""

    format: str
    declared: dict | None = None  # what the submission declares of itself, contact included (None: nothing)
    contact: dict = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    files: list[SubmittedFile] = field(default_factory=list)
    files_info: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    model_name: str = ""
    entry: dict = field(default_factory=dict)  # the entry's conditions (model, ...)
    run_docs: list[RunDoc] = field(default_factory=list)
    native: Any = None

    def runs(self, *, prefix: str, round_key: str, agent: str, versions: dict[str, str], skip: set[str]) -> list[dict]:
        """The runs the round gets: every run of a family not in `skip`, of a task the benchmark holds in the
        version ran (`versions`: run task key -> the stored version of that task; a run of any other task, or
        one naming another version of it, is not written)."""
        out = []
        for family, doc in self.run_docs:
            held = versions.get(doc["task"])
            if held is None or family in skip or doc.get("task_version", held) != held:
                continue
            named = {"id": f"{prefix}-{doc['id']}", "round": round_key, "agent": agent, "task_version": held}
            out.append({**doc, **named, **_rerun_of(doc, prefix)})
        return out


# A run as its reader made it: its task family, and its bundle `runs[]` document (id, task, trial, ...).
RunDoc = tuple[str, dict]


@dataclass(frozen=True)
class ReadContext:
    """What a reader may know of where the submission goes: the benchmark's task families (a τ² file's domain
    is told by them), each stored task's family by key, the benchmark and round, the JSON budget, the largest
    recording (or other evidence file) taken, and the figures the sender claimed on the form or the API
    ({name: the number as written})."""

    families: tuple[str, ...] = ()
    task_families: dict[str, str] = field(default_factory=dict)
    benchmark: str = ""
    round_key: str = ""
    budget: Budget | None = None
    evidence_max_bytes: int | None = None
    claims: dict[str, str] = field(default_factory=dict)
    # Whether its .json files were counted within the JSON budget as they arrived (a folder or a zip, read by
    # `submissions.files`): a reader need not count them again.
    counted: bool = False


def _rerun_of(run: dict, prefix: str) -> dict:
    """A re-run names the run it re-runs by that run's id as stored (the round rules then ask for its dispute)."""
    return {"rerun_of": f"{prefix}-{run['rerun_of']}"} if run.get("rerun_of") is not None else {}


def json_budget() -> Budget:
    """What one submission's JSON files may hold in all (settings: SUBMISSION_MAX_BYTES, _JSON_VALUES, _DEPTH)."""
    return Budget(
        max_bytes=settings.SUBMISSION_MAX_BYTES,
        max_values=settings.SUBMISSION_MAX_JSON_VALUES,
        max_depth=settings.SUBMISSION_MAX_JSON_DEPTH,
    )


def read_tau2(files: dict[str, bytes], ctx: ReadContext) -> Read:
    try:
        sub = read_submission(files, ctx.families, ctx.budget or json_budget())
    except Tau2Error as exc:
        raise SubmissionRefused([str(exc)]) from exc
    checked = [from_tau2(f) for f in sub.files]
    declared = dict(sub.declared)
    if isinstance(declared.get("contact_info"), dict):
        declared["contact_info"] = {**declared["contact_info"], **sub.contact}
    info = [
        {
            "file": f.name,
            "domain": f.domain,
            "simulations": len(f.simulations),
            "agent": (f.info or {}).get("agent_info", {}).get("llm") if f.info else None,
            "agent_implementation": (f.info or {}).get("agent_info", {}).get("implementation") if f.info else None,
            "user": (f.info or {}).get("user_info", {}).get("llm") if f.info else None,
            "num_trials": (f.info or {}).get("num_trials"),
            "git_commit": (f.info or {}).get("git_commit"),
        }
        for f in sub.files
    ]
    notes = list(sub.notes)
    if any(s.get("trial") is None for f in sub.files for s in f.simulations):
        notes.append("some simulations carry no trial: numbered in file order per task")
    model = str(sub.declared.get("model_name") or "")
    placeholders = _placeholder_times(sub.files)
    notes += placeholders.values()
    runs = [
        (f.domain, _measured(run_doc(sim, domain=f.domain, trial=seen.trial or 1), f.name not in placeholders))
        for f, checked_file in zip(sub.files, checked, strict=True)
        for sim, seen in zip(f.simulations, checked_file.sims, strict=True)
    ]
    return Read("tau2", declared, sub.contact, sub.claims, checked, info, notes, model, {"model": model}, runs, sub)


def _placeholder_times(files) -> dict[str, str]:
    """Per results file whose simulations all carry one start time and one duration (two or more of them: real runs
    never start at the same microsecond and last the same to the float), the note that says so. Such times were
    written in place of measurements: its runs are stored with no time rather than shown as measured."""
    found = {}
    for f in files:
        times = {(s.get("start_time"), s.get("duration")) for s in f.simulations}
        if len(f.simulations) >= 2 and len(times) == 1 and times != {(None, None)}:
            ((start, duration),) = times
            same = " and ".join(
                f"{what} {value}" for what, value in (("start", start), ("duration", duration)) if value is not None
            )
            found[f.name] = (
                f"{f.domain}: every one of its {len(f.simulations)} simulations carries {same}: placeholders, not "
                "measurements; its runs are stored without a time"
            )
    return found


def _measured(doc: dict, measured: bool) -> dict:
    if not measured:
        doc["wall_seconds"] = None
        doc.pop("started_at", None)
    return doc


def read_bundle(files: dict[str, bytes], ctx: ReadContext) -> Read:
    """A results bundle (one JSON file): its runs, as the checks see them, by task family."""
    if len(files) != 1:
        raise SubmissionRefused(["a bundle submission is one JSON file"])
    raw = next(iter(files.values()))
    try:
        counted("bundle", (raw,), ctx.budget or json_budget())
        doc = parse_document(raw)
        check_bundle(doc)
    except JsonRefused as exc:
        raise SubmissionRefused([str(exc)]) from exc
    except DocumentError as exc:
        raise SubmissionRefused([f"(bundle): {exc}"]) from exc
    except BundleError as exc:
        raise SubmissionRefused(exc.problems) from exc
    return _bundle_read("bundle", doc, ctx)


def read_inspect(files: dict[str, bytes], ctx: ReadContext) -> Read:
    """Inspect logs (.eval or .json), as the bundle the Inspect import makes of them, with the epochs they
    declare."""
    logs = [(name, BytesIO(data)) for name, data in files.items()]
    try:
        _count_logs(logs, ctx.budget or json_budget())
        named = read_logs(logs)
        doc = logs_to_bundle(named, benchmark=ctx.benchmark, round_key=ctx.round_key).doc
    except JsonRefused as exc:
        raise SubmissionRefused([str(exc)]) from exc
    except InspectLogError as exc:
        raise SubmissionRefused(exc.problems) from exc
    read = _bundle_read("inspect", doc, ctx)
    # Each log declares its epochs: the trials per task the attempts check counts its samples against.
    epochs = [e for n in named if isinstance(e := n.log.eval.config.epochs, int) and e > 0]
    for f in read.files:
        f.trials_declared = max(epochs, default=None)
    return read


def _bundle_read(fmt: str, doc: dict, ctx: ReadContext) -> Read:
    refused = review_record_problems(doc)
    if refused:
        raise SubmissionRefused(refused)
    agents = doc.get("agents") or []
    if len(agents) != 1:
        raise SubmissionRefused([f"agents: a submission holds the runs of one agent ({len(agents)} given)"])
    entries = [e for r in doc.get("rounds") or [] for e in r.get("entries") or []]
    runs = [{**r, "task_version": r.get("task_version") or "1.0"} for r in doc.get("runs") or []]
    families = [ctx.task_families.get(r["task"], NOT_IN_TASK_SET) for r in runs]
    return Read(
        fmt,
        model_name=str(agents[0].get("name") or ""),
        entry=dict(entries[0]) if entries else {},
        files=bundle_files(fmt, runs, families),
        run_docs=list(zip(families, runs, strict=True)),
    )


NOT_IN_TASK_SET = "(not in the task set)"


def _count_logs(logs: list, budget: Budget) -> None:
    """Count every JSON document of the Inspect logs (a .json log, or each entry of an .eval zip, as it
    inflates) against one submission's budget before Inspect reads any of them."""
    for name, stream in logs:
        data = stream.getvalue()
        if data[:2] != b"PK":
            counted(name, (data,), budget, keep=False)
            continue
        try:
            with zipfile.ZipFile(stream) as z:
                entries = [i for i in z.infolist() if i.filename.endswith(".json")]
            for info in entries:
                counted(f"{name}: {info.filename}", entry_chunks(stream, info), budget, keep=False)
        except JsonRefused:
            raise
        except Exception:  # noqa: BLE001 - not a zip Inspect can read either: it says why
            pass
        stream.seek(0)


def bundle_files(fmt: str, runs: list[dict], families: list[str]) -> list[SubmittedFile]:
    """A bundle's or Inspect log's runs as the checks see them: one "file" per task family; a run's task
    version stands for its content (`v:{version}`)."""
    by_family: dict[str, SubmittedFile] = {}
    for r, family in zip(runs, families, strict=True):
        f = by_family.setdefault(family, SubmittedFile(f"{fmt}: {family}", family, [], None, {}))
        counted = r.get("status", "completed") != "infra_error" and r.get("score") is not None
        transcript = bool(r.get("transcript")) or any(e.get("kind") == "transcript" for e in r.get("evidence") or [])
        f.sims.append(Sim(r["task"], r.get("trial") or 1, None, counted, r.get("status") == "infra_error", transcript))
        assert f.task_fingerprints is not None
        f.task_fingerprints[r["task"]] = f"v:{r['task_version']}"
    return list(by_family.values())


def task_sets(bench: Benchmark, *, by_definition: bool) -> list[TaskSet]:
    """The versions of `bench`'s task set, as the checks read them: its current one first (each task at its
    current version; the tasks of the current version's stored set, or every task when none is stored), then
    the other stored ones, newest first. A task's token is the fingerprint of its definition for a format whose
    runs carry their tasks' definitions (τ²: a task version without one matches nothing), else `v:{version}`."""
    tasks = {t.key: t for t in Task.objects.filter(benchmark=bench)}
    prints = dict(
        ((key, version), fp)
        for key, version, fp in TaskVersion.objects.filter(task__benchmark=bench).values_list(
            "task__key", "version", "fingerprint"
        )
    )
    current = bench.task_set_version or "1.0"
    stored = list(TaskSetVersion.objects.filter(benchmark=bench).order_by("-created_at", "-id"))
    in_current = next((ts.tasks for ts in stored if ts.version == current), None)
    sets = [(current, {key: t.version for key, t in tasks.items() if in_current is None or key in in_current})]
    sets += [(ts.version, dict(ts.tasks)) for ts in stored if ts.version != current]
    out = []
    for version, members in sets:
        by_family: dict[str, dict[str, tuple[str, str]]] = {}
        for key, task_version in members.items():
            task = tasks.get(key)
            if task is None:
                continue
            family = task.family or key
            ident = key.removeprefix(f"{family}-") if by_definition else key
            token = prints.get((key, task_version), "") if by_definition else f"v:{task_version}"
            by_family.setdefault(family, {})[ident] = (token, task_version)
        out.append(TaskSet(version, by_family))
    return out


def accepted_versions(track: SubmissionTrack, sets: list[TaskSet]) -> list[str]:
    """The task set versions the track takes: its round's, those it names, or with `accept_older_versions`
    every version the benchmark holds."""
    named = [track.round.task_set_version or "1.0", *(track.task_set_versions or [])]
    if track.accept_older_versions:
        named += [ts.version for ts in sets]
    return list(dict.fromkeys(named))


def track_input(track: SubmissionTrack, *, by_definition: bool) -> TrackInput:
    """The track as the checks see it, with the benchmark's task sets: task ids within each family and the
    track's limits for a format whose runs carry their tasks' definitions (τ²), task keys otherwise."""
    rnd: Round = track.round
    tasks = {t.key: t for t in Task.objects.filter(benchmark=rnd.benchmark)}
    required: dict[str, list[str]] = {}
    for key in rnd.task_keys:
        task = tasks.get(key)
        if task is None:
            continue
        family = task.family or key
        required.setdefault(family, []).append(key.removeprefix(f"{family}-") if by_definition else key)
    sets = task_sets(rnd.benchmark, by_definition=by_definition)
    limits = dict(track.limits or {}) if by_definition else {}
    return TrackInput(
        required,
        sets,
        accepted_versions(track, sets),
        track.trials_min,
        limits,
        list(track.families_required or []),
        list(track.protocol or []),
    )


def read_context(track: SubmissionTrack, claims: dict[str, str] | None = None, *, counted: bool = False) -> ReadContext:
    """What the formats' readers may know of the track's benchmark (`ReadContext`)."""
    rnd: Round = track.round
    rows = list(Task.objects.filter(benchmark=rnd.benchmark).values_list("key", "family"))
    return ReadContext(
        families=tuple(sorted({family for _, family in rows} - {""})),
        task_families={key: family or key for key, family in rows},
        benchmark=rnd.benchmark.slug,
        round_key=rnd.key,
        budget=json_budget(),
        evidence_max_bytes=settings.EVIDENCE_FILE_MAX_BYTES,
        claims=dict(claims or {}),
        counted=counted,
    )


def run_versions(ran: Ran, *, by_definition: bool) -> dict[str, str]:
    """Per run task key, the stored version of the benchmark's task the runs of it ran (only tasks held)."""
    return {(f"{family}-{ident}" if by_definition else ident): v for (family, ident), v in ran.held.items()}
