"""A submission as sent, read into what the checks see (`scoring.submission_checks.SubmittedFile`s) and the
runs the round gets (bundle `runs[]` documents), by format: a τ²-bench folder, a results bundle, or Inspect
logs. Refusals (nothing is written) raise `SubmissionRefused` with every problem."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from bundles.inspect_logs import InspectLogError, logs_to_bundle, read_logs
from bundles.submission_mode import review_record_problems
from bundles.zip_inflate import entry_chunks
from leaderboard.models import Benchmark, Round, Task, TaskVersion
from scoring.bounded_json import Budget, JsonRefused, counted
from scoring.bundle import BundleError, DocumentError, check_bundle, parse_document
from scoring.submission_checks import Ran, Sim, SubmittedFile, TaskSet, TrackInput, from_tau2
from scoring.tau2 import Claim, Tau2Error, read_submission
from scoring.tau2_runs import run_doc

from .models import SubmissionTrack, TaskSetVersion


class SubmissionRefused(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Read:
    """A submission read: what it declares, claims and sent, as the checks see it, and its runs by family
    (run documents still to be given the submission's id: `runs(prefix, agent)`)."""

    format: str
    declared: dict | None = None  # submission.json, contact included (None for bundles and Inspect logs)
    contact: dict = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)
    files: list[SubmittedFile] = field(default_factory=list)
    files_info: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    model_name: str = ""
    entry: dict = field(default_factory=dict)  # the entry's conditions (model, ...)
    _tau2: Any = None
    _runs: list[dict] = field(default_factory=list)  # bundle and Inspect runs as sent (round and agent replaced)

    def runs(self, *, prefix: str, round_key: str, agent: str, versions: dict[str, str], skip: set[str]) -> list[dict]:
        """The runs the round gets: every simulation of a family not in `skip`, of a task the benchmark holds in
        the version ran (`versions`: run task key -> the stored version of that task; a run of any other
        task is not written)."""
        if self._tau2 is None:
            return [
                {**r, "round": round_key, "agent": agent, "id": f"{prefix}-{r['id']}"}
                for r in self._runs
                if versions.get(r["task"]) == (r.get("task_version") or "1.0") and _family_of(r, self.files) not in skip
            ]
        out = []
        for f, checked in zip(self._tau2.files, self.files, strict=True):
            if f.domain in skip:
                continue
            for sim, seen in zip(f.simulations, checked.sims, strict=True):
                key = f"{f.domain}-{sim['task_id']}"
                if key in versions:
                    out.append(
                        run_doc(
                            sim,
                            prefix=prefix,
                            domain=f.domain,
                            trial=seen.trial or 1,
                            round_key=round_key,
                            agent=agent,
                            version=versions[key],
                        )
                    )
        return out


def _family_of(run: dict, files: list[SubmittedFile]) -> str:
    return next((f.family for f in files if any(s.task == run["task"] for s in f.sims)), "")


def json_budget() -> Budget:
    """What one submission's JSON files may hold in all (settings: SUBMISSION_MAX_BYTES, _JSON_VALUES, _DEPTH)."""
    return Budget(
        max_bytes=settings.SUBMISSION_MAX_BYTES,
        max_values=settings.SUBMISSION_MAX_JSON_VALUES,
        max_depth=settings.SUBMISSION_MAX_JSON_DEPTH,
    )


def read_tau2(files: dict[str, bytes], families: tuple[str, ...]) -> Read:
    try:
        sub = read_submission(files, families, json_budget())
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
    return Read("tau2", declared, sub.contact, sub.claims, checked, info, notes, model, {"model": model}, sub)


def read_bundle(raw: bytes, *, inspect_logs: list | None = None, benchmark: str = "", round_key: str = "") -> Read:
    """A results bundle (or the bundle Inspect logs make): its runs, as the checks see them, by task family."""
    if inspect_logs is not None:
        try:
            _count_logs(inspect_logs)
            doc = logs_to_bundle(read_logs(inspect_logs), benchmark=benchmark, round_key=round_key).doc
        except JsonRefused as exc:
            raise SubmissionRefused([str(exc)]) from exc
        except InspectLogError as exc:
            raise SubmissionRefused(exc.problems) from exc
    else:
        try:
            counted("bundle", (raw,), json_budget())
            doc = parse_document(raw)
            check_bundle(doc)
        except JsonRefused as exc:
            raise SubmissionRefused([str(exc)]) from exc
        except DocumentError as exc:
            raise SubmissionRefused([f"(bundle): {exc}"]) from exc
        except BundleError as exc:
            raise SubmissionRefused(exc.problems) from exc
    refused = review_record_problems(doc)
    if refused:
        raise SubmissionRefused(refused)
    agents = doc.get("agents") or []
    if len(agents) != 1:
        raise SubmissionRefused([f"agents: a submission holds the runs of one agent ({len(agents)} given)"])
    entries = [e for r in doc.get("rounds") or [] for e in r.get("entries") or []]
    runs = [r for r in doc.get("runs") or []]
    fmt = "inspect" if inspect_logs is not None else "bundle"
    return Read(fmt, model_name=str(agents[0].get("name") or ""), entry=dict(entries[0]) if entries else {}, _runs=runs)


def _count_logs(logs: list) -> None:
    """Count every JSON document of the Inspect logs (a .json log, or each entry of an .eval zip, as it
    inflates) against one submission's budget before Inspect reads any of them."""
    budget = json_budget()
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


def bundle_files(read: Read, task_families: dict[str, str]) -> None:
    """A bundle's or Inspect log's runs as the checks see them: one "file" per task family; a run's task
    version stands for its content (`v:{version}`)."""
    by_family: dict[str, SubmittedFile] = {}
    for r in read._runs:
        family = task_families.get(r["task"], "(not in the task set)")
        f = by_family.setdefault(family, SubmittedFile(f"{read.format}: {family}", family, [], None, {}))
        counted = r.get("status", "completed") != "infra_error" and r.get("score") is not None
        transcript = bool(r.get("transcript")) or any(e.get("kind") == "transcript" for e in r.get("evidence") or [])
        f.sims.append(Sim(r["task"], r.get("trial") or 1, None, counted, r.get("status") == "infra_error", transcript))
        assert f.task_fingerprints is not None
        f.task_fingerprints[r["task"]] = f"v:{r.get('task_version') or '1.0'}"
    read.files = list(by_family.values())


def task_sets(bench: Benchmark, *, tau2: bool) -> list[TaskSet]:
    """The versions of `bench`'s task set, as the checks read them: its current one first (each task at its
    current version; the tasks of the current version's stored set, or every task when none is stored), then
    the other stored ones, newest first. A task's token is the fingerprint of its definition for τ² (a task
    version without one matches nothing), else `v:{version}`."""
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
            ident = key.removeprefix(f"{family}-") if tau2 else key
            token = prints.get((key, task_version), "") if tau2 else f"v:{task_version}"
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


def track_input(track: SubmissionTrack, *, tau2: bool) -> tuple[TrackInput, dict[str, str]]:
    """The track as the checks see it (task ids within each family for τ², task keys otherwise), with the
    benchmark's task sets, and each task's family by key."""
    rnd: Round = track.round
    tasks = {t.key: t for t in Task.objects.filter(benchmark=rnd.benchmark)}
    required: dict[str, list[str]] = {}
    for key in rnd.task_keys:
        task = tasks.get(key)
        if task is None:
            continue
        family = task.family or key
        required.setdefault(family, []).append(key.removeprefix(f"{family}-") if tau2 else key)
    sets = task_sets(rnd.benchmark, tau2=tau2)
    limits = dict(track.limits or {}) if tau2 else {}
    families = {key: (t.family or key) for key, t in tasks.items()}
    return (
        TrackInput(
            required,
            sets,
            accepted_versions(track, sets),
            track.trials_min,
            limits,
            list(track.families_required or []),
            list(track.protocol or []),
        ),
        families,
    )


def run_versions(read: Read, ran: Ran) -> dict[str, str]:
    """Per run task key, the stored version of the benchmark's task the runs of it ran (only tasks held)."""
    return {(ident if read._tau2 is None else f"{family}-{ident}"): v for (family, ident), v in ran.held.items()}


def parse_bundle_or_none(raw: bytes) -> Any:
    return parse_document(raw)
