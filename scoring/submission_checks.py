"""The checks of a submission from an outside team, its claimed figures against the recomputed ones, and its
tier. Pure: the submission comes in as `SubmittedFile`s (one per trajectory file, each with its simulations),
the track as a `TrackInput`; each check answers with its name, whether it passed, and its reason in words. A
check that cannot be run never passes.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from .tau2 import TAU2_INFRA, Claim, Tau2File, declared_problems, task_fingerprint

TIERS = ("team", "self-reported", "verified", "flagged")
# The boards' default view: flagged rows are one click away (`?tier=flagged` or `?tier=all`).
DEFAULT_VIEW = ("team", "verified", "self-reported")


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Figure:
    name: str
    claimed: float
    recomputed: float | None
    agrees: bool | None  # None: not verifiable, never agreeing

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Sim:
    """One simulation (or run) as sent: its task id within the family, its trial (1-based; None when the file
    did not say), seed, whether it counts (not an infrastructure error, has a reward), and its transcript."""

    task: str
    trial: int | None
    seed: Any = None
    counted: bool = True
    infra: bool = False
    has_transcript: bool = True


@dataclass
class SubmittedFile:
    name: str
    family: str
    sims: list[Sim]
    info: dict | None = None
    # Task id -> fingerprint of the task definitions the file carries; None when it carries none.
    task_fingerprints: dict[str, str] | None = None
    agent: str | None = None  # the agent and user models with their arguments, as one comparable text
    user: str | None = None


@dataclass(frozen=True)
class TaskVersions:
    current: str  # the task's current version
    fingerprints: dict[str, str]  # fingerprint -> version, every stored version that has one


@dataclass
class TrackInput:
    required: dict[str, list[str]]  # family -> required task ids (the round's task set)
    versions: dict[str, dict[str, TaskVersions]] = field(default_factory=dict)  # family -> task id -> versions
    trials_min: int = 1
    limits: dict[str, Any] = field(default_factory=dict)
    families_required: list[str] = field(default_factory=list)
    protocol: list[dict] = field(default_factory=list)
    accept_older_versions: bool = False


def _ids(ids: list[str] | set[str], cap: int = 12) -> str:
    ordered = sorted(ids, key=lambda t: (len(t), t))
    shown = ", ".join(ordered[:cap])
    return shown + (", …" if len(ordered) > cap else "")


def _by_family(files: list[SubmittedFile]) -> dict[str, list[SubmittedFile]]:
    out: dict[str, list[SubmittedFile]] = defaultdict(list)
    for f in files:
        out[f.family].append(f)
    return out


def declared_fields(declared: dict, protocol: list[dict]) -> Check:
    missing = declared_problems(declared, protocol)
    if missing:
        return Check("declared_fields", False, "missing: " + ", ".join(missing))
    return Check("declared_fields", True, f"all {6 + len(protocol)} declared")


def tasks_covered(track: TrackInput, files: list[SubmittedFile], declared: dict) -> Check:
    by_family = _by_family(files)
    omitted = ((declared.get("methodology") or {}).get("verification") or {}).get("omitted_questions")
    parts, failed = [], False
    for family in sorted(set(by_family) | set(track.families_required)):
        required = track.required.get(family)
        if not required:
            parts.append(f"{family}: not a task family of this track")
            failed = True
            continue
        sims = [s for f in by_family.get(family, []) for s in f.sims]
        counted = {s.task for s in sims if s.counted}
        infra_only = {s.task for s in sims} - counted
        missing = [t for t in required if t not in counted]
        extra = sorted({s.task for s in sims} - set(required))
        text = f"{family}: {len(required) - len(missing)} of {len(required)}"
        if missing:
            failed = True
            named = [f"{t} (only infrastructure errors)" if t in infra_only else t for t in missing]
            declared_note = "" if omitted is None else f" (declared omitted_questions: {str(omitted).lower()})"
            text = (
                f"{family}: {len(missing)} of {len(required)} required tasks have no runs: {_ids(named)}{declared_note}"
            )
        if extra:
            text += f"; not in the task set, not counted: {_ids(extra)}"
        parts.append(text)
    return Check("tasks_covered", not failed, "; ".join(parts) or "no runs")


def trials_as_required(track: TrackInput, files: list[SubmittedFile]) -> Check:
    parts, failed = [], False
    for family, group in sorted(_by_family(files).items()):
        sims = [s for f in group for s in f.sims]
        per_task = Counter(s.task for s in sims if s.counted)
        infra = sum(1 for s in sims if s.infra)
        declared = [f.info.get("num_trials") for f in group if f.info]
        if not per_task:
            parts.append(f"{family}: no counted runs")
            failed = True
            continue
        counts = Counter(per_task.values())
        if len(counts) > 1:
            failed = True
            said = ", ".join(
                f"{n} on task{'s' if counts[n] > 1 else ''} {_and(t for t, c in per_task.items() if c == n)}"
                for n in sorted(counts, reverse=True)
            )
            num = f"num_trials {declared[0]}; " if declared else ""
            parts.append(
                f"{family}: counted trials per task differ: {said} ({num}{infra} infrastructure errors left out)"
            )
            continue
        n = next(iter(counts))
        if n < track.trials_min:
            failed = True
            parts.append(f"{family}: {n} trial{'s' if n != 1 else ''} per task; the track requires {track.trials_min}")
        else:
            parts.append(f"{family}: {n} trial{'s' if n != 1 else ''} per task")
    return Check("trials_as_required", not failed, "; ".join(parts) or "no runs")


def _and(items) -> str:
    ordered = sorted(items, key=lambda t: (len(t), t))
    return ordered[0] if len(ordered) == 1 else ", ".join(ordered[:-1]) + " and " + ordered[-1]


def mixed_families(files: list[SubmittedFile]) -> dict[str, list[str]]:
    """Per family, why its runs are not one run of one agent (several files, a task and trial twice, several
    seeds in one trial, different models across the submission's files); a family absent is fine."""
    out: dict[str, list[str]] = defaultdict(list)
    for family, group in _by_family(files).items():
        seen: dict[tuple[str, int], list[SubmittedFile]] = defaultdict(list)
        for f in group:
            for s in f.sims:
                if s.trial is not None:
                    seen[(s.task, s.trial)].append(f)
        twice = [(key, fs) for key, fs in seen.items() if len(fs) > 1]
        if twice:
            (task, trial), fs = min(twice, key=lambda kv: (len(kv[0][0]), kv[0]))
            where = ", ".join(f"{f.name}: {f.agent or 'model not given'}" for f in fs)
            out[family].append(f"{len(fs)} runs of task {task} trial {trial} ({where})")
        elif len(group) > 1:
            out[family].append(f"{len(group)} files ({', '.join(f.name for f in group)})")
        for f in group:
            seeds = defaultdict(set)
            for s in f.sims:
                if s.seed is not None and s.trial is not None:
                    seeds[s.trial].add(s.seed)
            several = sorted(t for t, found in seeds.items() if len(found) > 1)
            if several:
                out[family].append(f"{f.name}: trial {several[0]} ran with {len(seeds[several[0]])} seeds")
    for side in ("agent", "user"):
        models = {getattr(f, side) for f in files if getattr(f, side)}
        if len(models) > 1:
            for family in {f.family for f in files}:
                out[family].append(f"the {side} model differs across files ({', '.join(sorted(models))})")
    return dict(out)


def one_run_one_agent(files: list[SubmittedFile]) -> Check:
    mixed = mixed_families(files)
    if not mixed:
        return Check("one_run_one_agent", True, "one run of one agent per task and trial")
    parts = [f"{family}: {'; '.join(why)}" for family, why in sorted(mixed.items())]
    return Check("one_run_one_agent", False, "; ".join(parts) + "; best-of across runs or models is not one run")


def task_versions_current(track: TrackInput, files: list[SubmittedFile]) -> Check:
    parts, failed = [], False
    for family, group in sorted(_by_family(files).items()):
        if any(f.task_fingerprints is None for f in group):
            parts.append(f"{family}: cannot be checked: the file carries no task definitions")
            failed = True
            continue
        stored = track.versions.get(family, {})
        sent = {t: fp for f in group for t, fp in (f.task_fingerprints or {}).items() if t in stored}
        if not sent:
            parts.append(f"{family}: cannot be checked: no submitted task is in the task set")
            failed = True
            continue
        differ, older = [], []
        for task, fp in sent.items():
            versions = stored[task]
            ran = versions.fingerprints.get(fp)
            if ran == versions.current:
                continue
            if ran is not None and track.accept_older_versions:
                older.append(f"ran on {ran}, current {versions.current}")
            else:
                differ.append(task)
        if differ:
            failed = True
            current = ", ".join(sorted({stored[t].current for t in differ}))
            parts.append(
                f"{family}: {len(differ)} of {len(sent)} tasks differ from the current version {current}: "
                + _ids(differ)
            )
        elif older:
            parts.append(f"{family}: {len(older)} of {len(sent)} tasks " + "; ".join(sorted(set(older))))
        else:
            parts.append(f"{family}: {len(sent)} of {len(sent)} tasks current")
    return Check("task_versions_current", not failed, "; ".join(parts) or "no runs")


def limits_respected(track: TrackInput, files: list[SubmittedFile]) -> Check:
    parts, failed = [], False
    for f in files:
        if f.info is None:
            parts.append(f"{f.family}: cannot be checked: no info, so no max_steps/max_errors")
            failed = True
            continue
        for limit, allowed in sorted(track.limits.items()):
            value = f.info.get(limit)
            if value is None:
                parts.append(f"{f.family}: cannot be checked: {f.name} gives no {limit}")
                failed = True
            elif allowed is not None and value > allowed:
                parts.append(f"{f.family}: {limit} {value}; the track allows at most {allowed}")
                failed = True
    if not failed:
        limits = ", ".join(f"{k} {v}" for k, v in sorted(track.limits.items()))
        return Check("limits_respected", True, f"within the track's limits ({limits})" if limits else "no limits")
    return Check("limits_respected", False, "; ".join(parts))


def transcripts_present(files: list[SubmittedFile]) -> Check:
    parts = []
    for family, group in sorted(_by_family(files).items()):
        bare = [s for f in group for s in f.sims if s.counted and not s.has_transcript]
        if bare:
            runs = ", ".join(f"task {s.task} trial {s.trial}" for s in bare[:12]) + (", …" if len(bare) > 12 else "")
            parts.append(f"{family}: {len(bare)} run{'s have' if len(bare) != 1 else ' has'} no transcript: {runs}")
    if parts:
        return Check("transcripts_present", False, "; ".join(parts))
    return Check("transcripts_present", True, "every counted run has its transcript")


def check(track: TrackInput, files: list[SubmittedFile], declared: dict | None) -> list[Check]:
    """Every check, in the order the page lists them. `declared`: submission.json (contact included), or None
    for a format without one (a bundle, an Inspect log: the site's form declares the agent)."""
    out = [declared_fields(declared, track.protocol)] if declared is not None else []
    return out + [
        tasks_covered(track, files, declared or {}),
        trials_as_required(track, files),
        one_run_one_agent(files),
        task_versions_current(track, files),
        limits_respected(track, files),
        transcripts_present(files),
    ]


def agrees(claimed: float, decimals: int, recomputed: float) -> bool:
    """Within the claim's rounding: half a unit of its last written decimal (at most 6), plus float noise."""
    return abs(recomputed - claimed) <= 0.5 * 10 ** -min(decimals, 6) + 1e-9


def figures(claims: list[Claim], computed: dict[str, dict[str, Any]]) -> list[Figure]:
    """Each claim beside its figure recomputed from the stored runs (`passk.family_figures`, per family); a
    claim whose family has no counted run, or whose k passes the smallest trial count, is not verifiable."""
    out = []
    for c in claims:
        fam = computed.get(c.family)
        value = None
        if fam and fam.get("tested"):
            if c.kind == "cost":
                value = fam.get("cost")
            else:
                share = fam["pass^k"].get(c.k)
                value = None if share is None else share * 100
        out.append(Figure(c.name, c.value, value, None if value is None else agrees(c.value, c.decimals, value)))
    return out


def tier(checks: list[dict], figures_: list[dict], *, flagged: bool = False, verified: bool = False) -> str:
    """Flagged by an editor, a failed check or a differing figure; else verified by an editor; else
    self-reported. A figure that is not verifiable flags nothing."""
    if flagged or any(not c["passed"] for c in checks) or any(f["agrees"] is False for f in figures_):
        return "flagged"
    return "verified" if verified else "self-reported"


def blocking(checks: list[dict], figures_: list[dict]) -> list[str]:
    """Why an editor may not verify: each failed check and each differing figure."""
    return [f"{c['name']}: {c['detail']}" for c in checks if not c["passed"]] + [
        f"{f['name']}: claimed {f['claimed']}, recomputed {f['recomputed']}" for f in figures_ if f["agrees"] is False
    ]


def _model(info: dict | None, side: str) -> str | None:
    part = (info or {}).get(side)
    if not isinstance(part, dict) or not part.get("llm"):
        return None
    args = part.get("llm_args")
    return str(part["llm"]) + (f" {json.dumps(args, sort_keys=True)}" if args else "")


def from_tau2(f: Tau2File) -> SubmittedFile:
    """A τ² trajectory file as the checks read it: trials 1-based (τ²'s count from 0; a simulation without
    one is numbered in file order per task), infrastructure errors and unrewarded simulations not counted."""
    numbered: Counter[str] = Counter()
    sims = []
    for s in f.simulations:
        task = str(s["task_id"])
        numbered[task] += 1
        trial = s["trial"] + 1 if isinstance(s.get("trial"), int) else numbered[task]
        infra = s.get("termination_reason") in TAU2_INFRA
        reward = (s.get("reward_info") or {}).get("reward") if isinstance(s.get("reward_info"), dict) else None
        sims.append(Sim(task, trial, s.get("seed"), not infra and reward is not None, infra, bool(s.get("messages"))))
    prints = (
        None if f.tasks is None else {str(t.get("id")): task_fingerprint(t) for t in f.tasks if isinstance(t, dict)}
    )
    return SubmittedFile(
        f.name, f.domain, sims, f.info, prints, _model(f.info, "agent_info"), _model(f.info, "user_info")
    )
