"""The checks of a submission from an outside team, and its claimed figures against the recomputed ones (its tier:
`scoring.tiers`). Pure: the submission comes in as `SubmittedFile`s (one per trajectory file, each with its
simulations), the track as a `TrackInput`; each check answers with its name, whether it passed, and its reason
in words. A check that cannot be run never passes.

Every check is named in `CHECKS` with its label and its kind. A **protocol** check decides whether the results
were obtained as the track asks (task versions, trials, limits, ...): while one fails, the submission is flagged
and no editor may verify it. A **disclosure** check compares what the submission says about itself with what its
runs show (the declared model and user simulator): a failed one flags the submission until an editor verifies
it with a note acknowledging what differs, and the pages show what ran, with what was declared beside it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .submission_attempts import attempts_declared
from .submission_types import Check, SubmittedFile
from .submission_types import by_family as _by_family
from .submission_types import task_ids as _ids
from .tau2 import Claim, declared_problems

PROTOCOL, DISCLOSURE = "protocol", "disclosure"


@dataclass(frozen=True)
class CheckRule:
    """What a check is called in words and what a failure of it stops: a protocol check blocks verifying; a
    disclosure check asks the verifying editor to acknowledge it."""

    label: str
    kind: str = PROTOCOL


# Every check, in the order `check` runs them and the pages list them.
CHECKS: dict[str, CheckRule] = {
    "declared_fields": CheckRule("Declared fields present"),
    "declared_models": CheckRule("Declared model and user simulator are the ones run", DISCLOSURE),
    "tasks_covered": CheckRule("Every required task has runs"),
    "trials_as_required": CheckRule("Trials per task as required and equal"),
    "attempts_declared": CheckRule(
        "Every attempt within the declared trials, none left out of the score on the submitter's word"
    ),
    "one_run_one_agent": CheckRule("One run of one agent per task and trial"),
    "task_versions": CheckRule("Every run is of the benchmark's own task, in a version the track takes"),
    "limits_respected": CheckRule("Limits respected"),
    "transcripts_present": CheckRule("Transcripts present"),
    "graded_as_filed": CheckRule("Every run was graded as the task it is filed under"),
}


def register_checks(rules: dict[str, CheckRule]) -> None:
    """Add a format's own checks (their labels and kinds) to `CHECKS`, where the pages and the tiers read them."""
    taken = set(rules) & set(CHECKS)
    if taken:
        raise ValueError(f"checks named already: {', '.join(sorted(taken))}")
    CHECKS.update(rules)


def check_rule(name: str) -> CheckRule:
    """The registry's entry for `name`; one it does not know (stored before a rename) is a protocol check."""
    return CHECKS.get(name) or CheckRule(name.replace("_", " "))


@dataclass(frozen=True)
class Figure:
    name: str
    claimed: float | None  # None: recomputed, not claimed (no claim: nothing agrees)
    recomputed: float | None
    agrees: bool | None  # None: not verifiable, or not claimed; never agreeing

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TaskSet:
    """One version of the benchmark's own task set, as the checks read it: per family, per task id, what a run's
    task must be to be this version's task (`token`: τ², the fingerprint of its definition; a bundle,
    `v:{version}`) and the stored task version it is."""

    version: str  # the task set's version, e.g. "2025-06-10"
    tasks: dict[str, dict[str, tuple[str, str]]]  # family -> task id -> (token, stored task version)


@dataclass
class TrackInput:
    required: dict[str, list[str]]  # family -> required task ids (the round's task set)
    # The versions of the task set the benchmark holds, its current one first, and those the track accepts.
    task_sets: list[TaskSet] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    trials_min: int = 1
    limits: dict[str, Any] = field(default_factory=dict)
    families_required: list[str] = field(default_factory=list)
    protocol: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Ran:
    """What a submission ran, read from the benchmark's own task sets: the version whose tasks its runs match
    best (the current one on a tie), and per family and task id the stored task version of each run that is
    that version's task. A run of any other task (a definition missing, or not the benchmark's) is not held."""

    task_set: TaskSet | None
    held: dict[tuple[str, str], str]  # (family, task id) -> stored task version


def _held(task_set: TaskSet, files: list[SubmittedFile]) -> dict[tuple[str, str], str]:
    held = {}
    for f in files:
        own = task_set.tasks.get(f.family, {})
        sent = f.task_fingerprints or {}
        for s in f.sims:
            token, version = own.get(s.task, ("", ""))
            if token and sent.get(s.task) == token:
                held[(f.family, s.task)] = version
    return held


def version_ran(track: TrackInput, files: list[SubmittedFile]) -> Ran:
    """The version of the benchmark's task set the files ran, found by content among the versions it holds:
    the one holding the most of the runs' tasks as the files define them (the current one on a tie). Each
    run is matched by its task id to the benchmark's own task in that version, never to the submitter's list."""
    best = Ran(None, {})
    for task_set in track.task_sets:
        held = _held(task_set, files)
        if best.task_set is None or len(held) > len(best.held):
            best = Ran(task_set, held)
    return best


def held_only(files: list[SubmittedFile], ran: Ran) -> list[SubmittedFile]:
    """The files as the counting checks read them: a run of a task the benchmark does not hold (in the version
    ran) never counts."""
    out = []
    for f in files:
        sims = [s if (f.family, s.task) in ran.held else replace(s, counted=False, held=False) for s in f.sims]
        out.append(replace(f, sims=sims))
    return out


def required_in(track: TrackInput, ran: Ran) -> dict[str, list[str]]:
    """The track's required tasks that the version ran holds (the round's own set when nothing was matched)."""
    if ran.task_set is None:
        return track.required
    return {
        family: [i for i in ids if i in ran.task_set.tasks.get(family, {})] for family, ids in track.required.items()
    }


def declared_fields(declared: dict, protocol: list[dict]) -> Check:
    missing = declared_problems(declared, protocol)
    if missing:
        return Check("declared_fields", False, "missing: " + ", ".join(missing))
    return Check("declared_fields", True, f"all {6 + len(protocol)} declared")


def tasks_covered(
    required_tasks: dict[str, list[str]], families_required: list[str], files: list[SubmittedFile], declared: dict
) -> Check:
    by_family = _by_family(files)
    omitted = ((declared.get("methodology") or {}).get("verification") or {}).get("omitted_questions")
    parts, failed = [], False
    for family in sorted(set(by_family) | set(families_required)):
        required = required_tasks.get(family)
        if not required:
            parts.append(f"{family}: not a task family of this track")
            failed = True
            continue
        sims = [s for f in by_family.get(family, []) for s in f.sims]
        counted = {s.task for s in sims if s.counted}
        not_held = {s.task for s in sims if not s.held}
        infra_only = {s.task for s in sims} - counted - not_held
        missing = [t for t in required if t not in counted]
        extra = sorted({s.task for s in sims} - set(required))
        text = f"{family}: {len(required) - len(missing)} of {len(required)}"
        if missing:
            failed = True
            named = [
                f"{t} (only infrastructure errors)"
                if t in infra_only
                else f"{t} (not the benchmark's task)"
                if t in not_held
                else t
                for t in missing
            ]
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


def task_versions(track: TrackInput, files: list[SubmittedFile], ran: Ran) -> Check:
    """The version of the task set the files ran is one the track accepts, and every run is of the benchmark's
    own task in that version (matched by its id, its definition the benchmark's: `version_ran`)."""
    if ran.task_set is None:
        return Check("task_versions", False, "cannot be checked: the benchmark holds no task set")
    version = ran.task_set.version
    current = track.task_sets[0].version
    parts, failed = [], False
    if version not in track.accepted:
        failed = True
        parts.append(
            f"ran task set {version}, which this track does not accept (it accepts {', '.join(track.accepted)})"
        )
    for family, group in sorted(_by_family(files).items()):
        runs = [s for f in group for s in f.sims]
        foreign = {s.task for s in runs if (family, s.task) not in ran.held}
        if not foreign:
            parts.append(f"{family}: {len(runs)} of {len(runs)} runs of the benchmark's own tasks")
            continue
        failed = True
        why = (
            "the file carries no task definitions"
            if any(f.task_fingerprints is None for f in group)
            else "their definitions missing or not the benchmark's"
        )
        count = sum(1 for s in runs if s.task in foreign)
        parts.append(
            f"{family}: {count} of {len(runs)} runs are of tasks the benchmark does not hold in task set "
            f"{version} ({why}), not counted: {_ids(foreign)}"
        )
    head = f"task set {version}" + ("" if version == current else f" (the current one is {current})")
    return Check("task_versions", not failed, f"{head}: " + "; ".join(parts) if parts else head)


DATED = re.compile(r"[-_@]?(\d{4}-\d{2}-\d{2}|\d{8})$")


def _words(name: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", DATED.sub("", name.strip().lower()))


def _within(hay: list[str], needle: list[str]) -> bool:
    return bool(needle) and any(hay[i : i + len(needle)] == needle for i in range(len(hay) - len(needle) + 1))


def names_same_model(declared: str, ran: str) -> bool:
    """Whether a declared name names the model the runs used: the model's words (its provider prefix before a
    "/" and a release date left out, case and punctuation too) run inside the declared name's. "Button (Claude
    Opus 4.6)" names claude-opus-4-6, gpt-4.1 names openai/gpt-4.1-2025-04-14; "Orchestrator 8B" does not name
    gpt-4.1-mini, nor gpt-4.1 gpt-4.1-mini."""
    return _within(_words(declared), _words(ran.rsplit("/", 1)[-1]))


def _llms(files: list[SubmittedFile], side: str) -> list[str]:
    found = {(f.info or {}).get(side, {}).get("llm") for f in files if isinstance((f.info or {}).get(side), dict)}
    return sorted(str(x) for x in found if x)


def declared_models(declared: dict, files: list[SubmittedFile]) -> Check:
    """The declared model (`model_name`) and user simulator (`methodology.user_simulator`) are the ones the
    trajectories ran (their `info.agent_info.llm` and `info.user_info.llm`)."""
    given = declared.get("methodology")
    methodology: dict = given if isinstance(given, dict) else {}
    pairs = (
        ("model_name", declared.get("model_name"), "agent", _llms(files, "agent_info")),
        ("user_simulator", methodology.get("user_simulator"), "user simulator", _llms(files, "user_info")),
    )
    parts, failed, ok, values = [], False, [], []
    for field_, said, side, ran in pairs:
        what = "model" if field_ == "model_name" else "user simulator"
        values.append({"what": what, "ran": ", ".join(ran), "declared": said.strip() if isinstance(said, str) else ""})
        if not isinstance(said, str) or not said.strip():
            parts.append(f"cannot be checked: no {field_} declared")
            failed = True
        elif not ran:
            parts.append(f"cannot be checked: the files name no {side} model")
            failed = True
        elif not all(names_same_model(said, r) for r in ran):
            parts.append(f"declared {field_} {said!r}; the files' {side} ran {', '.join(ran)}")
            failed = True
        else:
            ok.append(f"{what} {', '.join(ran)}")
    if failed:
        return Check("declared_models", False, "; ".join(parts), values)
    return Check("declared_models", True, ", ".join(ok) + ", as declared")


def limits_respected(track: TrackInput, files: list[SubmittedFile]) -> Check:
    """Each file's `info` limits within the track's. A track with no limits (a bundle's or an Inspect log's
    track reads none: `submissions.reading.track_input`) has nothing to check, so it passes whatever the files
    say; with limits, a file that does not give them cannot be checked and fails."""
    if not track.limits:
        return Check("limits_respected", True, "the track sets no limits")
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
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
                parts.append(f"{f.family}: cannot be checked: {f.name} gives {limit} {value!r}, not a whole number")
                failed = True
            elif allowed is not None and value > allowed:
                parts.append(f"{f.family}: {limit} {value}; the track allows at most {allowed}")
                failed = True
    if not failed:
        limits = ", ".join(f"{k} {v}" for k, v in sorted(track.limits.items()))
        return Check("limits_respected", True, f"within the track's limits ({limits})")
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


def graded_as_filed(files: list[SubmittedFile]) -> Check:
    """Every run was graded as the task it is filed under (`Sim.graded_as`: τ²'s reward checks the actions of
    the task it graded). A run filed under another task's id puts its result on that task: its pages, the task
    page, the per-task figures and the tasks download would all say what it did on a task it never ran."""
    parts = []
    for family, group in sorted(_by_family(files).items()):
        runs = [s for f in group for s in f.sims]
        moved = [s for s in runs if s.graded_as is not None]
        if not moved:
            continue
        shown = ", ".join(
            f"task {s.task} as {'a task the file does not define' if s.graded_as == '' else f'task {s.graded_as}'}"
            for s in moved[:6]
        ) + (", …" if len(moved) > 6 else "")
        parts.append(f"{family}: {len(moved)} of {len(runs)} runs were graded as another task ({shown})")
    if parts:
        return Check("graded_as_filed", False, "; ".join(parts) + "; their task ids do not name the tasks they ran")
    return Check(
        "graded_as_filed", True, "every run whose grading names its task was graded as the task it is filed under"
    )


def check(track: TrackInput, files: list[SubmittedFile], declared: dict | None) -> list[Check]:
    """Every check, in the order the page lists them. `declared`: submission.json (contact included), or None
    for a format without one (a bundle, an Inspect log: the site's form declares the agent). The counting
    checks read only runs of the benchmark's own tasks in the version the files ran (`version_ran`)."""
    ran = version_ran(track, files)
    counted = held_only(files, ran)
    out = [declared_fields(declared, track.protocol), declared_models(declared, files)] if declared is not None else []
    return out + [
        tasks_covered(required_in(track, ran), track.families_required, counted, declared or {}),
        trials_as_required(track, counted),
        attempts_declared(counted),
        one_run_one_agent(files),
        task_versions(track, files, ran),
        limits_respected(track, files),
        transcripts_present(counted),
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


def failed_disclosures(checks: list[dict]) -> list[dict]:
    """The failed disclosure checks: verifying the submission asks the editor to acknowledge each."""
    return [c for c in checks if not c["passed"] and check_rule(c["name"]).kind == DISCLOSURE]


def ran_instead(checks: list[dict]) -> list[dict[str, str]]:
    """What the runs ran beside what was declared, for each thing a failed disclosure compares
    ([{"what", "ran", "declared"}]): the pages show what ran, the declared value beside it."""
    return [v for c in failed_disclosures(checks) for v in c.get("values") or []]
