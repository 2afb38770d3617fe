"""The rules about what a round may hold, each written once as a check of the round as it would be stored after a
change (`RoundFacts`), whatever door the change came by: the admin's forms and actions, `import_bundle` and the
admin's import page, the upload API, submissions, the Inspect import and re-imports of any of them
(`runs.services.round_rules` loads the stored state and runs them; docs/doors.md lists the doors).

A change is refused when it breaks a rule that held before it (`breaches_added`): the rules are asked of the
whole round after the change (a re-import that moves a weekly round's week leaves its stored runs outside), and a
breach already stored (written before a rule was enforced) does not block every later change of its round, only
the changes that add to it. `refusal_lines` words the refusal: the rule with its seed's sentence, the round, and
each run.

Pure: plain data in, plain data out; `recount` asks the rules that change what a board counts of a download
(`document_problems`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from . import methodologies
from .bundle_run_checks import bundle_day, bundle_time

# --- the facts a rule reads ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class VerdictFacts:
    role: str  # tester, second, third
    note: str = ""
    at: datetime | None = None  # when it was recorded (aware)


@dataclass(frozen=True)
class RunFacts:
    key: str
    task: str
    task_version: str = "1.0"
    status: str = "completed"
    started_at: datetime | None = None
    due_at: datetime | None = None
    rerun_of: str | None = None  # the key of the run it re-runs
    trial: int = 1
    verdicts: tuple[VerdictFacts, ...] = ()
    disputes: tuple[str, ...] = ()  # each dispute's status: open, accepted, rejected


@dataclass(frozen=True)
class RoundFacts:
    benchmark: str
    key: str
    methodology: str
    status: str = "draft"
    starts_on: date | None = None
    preview_started_at: datetime | None = None
    published_at: datetime | None = None
    preview_hours: int = 0  # the benchmark's vendor window
    runs: tuple[RunFacts, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.benchmark}/{self.key}"

    @property
    def rules(self) -> methodologies.Methodology:
        return methodologies.get(self.methodology)


@dataclass(frozen=True)
class Breach:
    """One way a round breaks a rule: `detail` names each run in `runs`; `subject` tells two breaches of one rule
    and round apart (a run, a verdict, a task)."""

    rule: str
    round: str
    detail: str
    runs: tuple[str, ...] = ()
    subject: str = ""

    @property
    def identity(self) -> tuple[str, str, str, tuple[str, ...]]:
        return (self.rule, self.round, self.subject, self.runs)


Check = Callable[["RoundFacts | None", RoundFacts], list[Breach]]


@dataclass(frozen=True)
class RoundRule:
    key: str
    name: str
    seed: str  # where the rule is written, e.g. "004" or "000 §6"
    quote: str  # the seed's own sentence
    check: Check
    counts: bool  # whether it changes what a board counts (`recount` asks these of a download)

    @property
    def header(self) -> str:
        return f'{self.name} ({self.seed}: "{self.quote}")'


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --- 1. the same week ----------------------------------------------------------------------------------------

# 004 "Same conditions": "The agents in one table are run in the same week." A round's week is the seven days
# from 00:00 UTC on its `starts_on`: a run that started at 23:59:59 UTC on the seventh day is in it, one that
# started at 00:00:00 UTC on the eighth day (or before the first) is not.
WEEK = timedelta(days=7)
NEVER_STARTED = "not_started"  # a run of this status has no start time, and needs none


def round_week(starts_on: date) -> tuple[datetime, datetime]:
    """A round's week as (first instant, first instant after it): 00:00 UTC on `starts_on`, and seven days on (a
    week running past the last day a date can hold ends with that day)."""
    start = datetime.combine(starts_on, time(), UTC)
    end = start + WEEK if starts_on <= date.max - WEEK else datetime.max.replace(tzinfo=UTC)
    return start, end


def week_shown(starts_on: date) -> tuple[datetime, datetime]:
    """A round's week as a reader is told it: its first and its last instant (UTC), 23:59:59.999999 on the
    seventh day, shown to the second."""
    start, end = round_week(starts_on)
    return start, end - timedelta(microseconds=1)


def week_problem(starts_on: date, started_at: datetime) -> str | None:
    """Why a run that started at `started_at` (aware) is not in the week of its round, which starts on
    `starts_on`, in words; None when it is."""
    start, end = round_week(starts_on)
    if start <= started_at < end:
        return None
    first, last = week_shown(starts_on)
    return f"started {_utc(started_at)}, outside the round's week ({_utc(first).removesuffix(' UTC')} to {_utc(last)})"


def _same_week(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    """Every run of a weekly round started in the round's week; a round without a start date, or a run without a
    start time (one that never started aside), cannot be checked and is refused."""
    if not after.rules.same_week:
        return []
    if after.starts_on is None:
        keys = tuple(sorted(r.key for r in after.runs))
        named = f" ({len(keys)} run{'s' if len(keys) != 1 else ''}: {', '.join(keys)})" if keys else ""
        why = "the round has no start date (starts_on), so its week is unknown and no run can be checked against it"
        return [Breach("same_week", after.label, why + named, keys, "starts_on")]
    out = []
    for run in after.runs:
        if run.started_at is None:
            if run.status != NEVER_STARTED:
                why = f"run {run.key} has no start time (started_at), so its week cannot be checked"
                out.append(Breach("same_week", after.label, why, (run.key,), "started_at"))
        elif problem := week_problem(after.starts_on, run.started_at):
            out.append(Breach("same_week", after.label, f"run {run.key} {problem}", (run.key,), "week"))
    return out


# --- 2. re-runs ----------------------------------------------------------------------------------------------


def rerun_once(label: str, pairs: Iterable[tuple[str, str]]) -> list[Breach]:
    """A run has at most one re-run: `pairs` are (re-run, the run it re-runs) in the round `label`."""
    by_original: dict[str, list[str]] = {}
    for rerun, original in pairs:
        by_original.setdefault(original, []).append(rerun)
    out = []
    for original, reruns in sorted(by_original.items()):
        if len(reruns) > 1:
            keys = tuple(sorted(reruns))
            why = f"run {original} would have {len(keys)} re-runs ({', '.join(keys)}); a run is re-run once"
            out.append(Breach("rerun", label, why, (original, *keys), f"once:{original}"))
    return out


def _reruns(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    """A re-run is of a run whose dispute an editor accepted, takes that run's trial, and a run has at most one
    (`rerun_once`).

    The trial: where an agent has several trials of a task its latest counts (`common.latest`), so a re-run
    numbered below the run it re-runs would leave an older trial counting in its place, and one numbered above
    would push a later trial out: "the re-run counts" where the disputed run counted, and only there."""
    runs = {r.key: r for r in after.runs}
    out = []
    for run in after.runs:
        original = runs.get(run.rerun_of) if run.rerun_of is not None else None
        if original is not None and run.trial != original.trial:
            why = (
                f"run {run.key} re-runs {original.key} (trial {original.trial}) as trial {run.trial}; a re-run takes"
                f" the trial of the run it re-runs (trial {original.trial})"
            )
            out.append(Breach("rerun", after.label, why, (run.key, original.key), f"trial:{run.key}"))
        if original is None or "accepted" in original.disputes:
            continue
        said = ", ".join(sorted(original.disputes))
        has = f"its dispute{'s were' if len(original.disputes) > 1 else ' was'} {said}" if said else "it has no dispute"
        why = f"run {run.key} re-runs {original.key}, whose dispute no editor accepted ({has})"
        out.append(Breach("rerun", after.label, why, (run.key, original.key), run.key))
    return out + rerun_once(after.label, [(r.key, r.rerun_of) for r in after.runs if r.rerun_of is not None])


# --- 3. the vendor window ------------------------------------------------------------------------------------


def _published_now(before: RoundFacts | None, after: RoundFacts) -> bool:
    """Whether the change publishes the round (or moves its publication or its preview)."""
    if after.status != "published":
        return False
    if before is None or before.status != "published":
        return True
    return (before.published_at, before.preview_started_at) != (after.published_at, after.preview_started_at)


def _vendor_window(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    """A round is published no sooner than its benchmark's window after its vendor preview started."""
    hours = after.preview_hours
    if not hours or after.published_at is None or not _published_now(before, after):
        return []
    window = f"the benchmark's vendor window is {hours} hours"
    if after.preview_started_at is None:
        why = f"published {_utc(after.published_at)} with no vendor preview; {window}"
        return [Breach("vendor_window", after.label, why, (), "publication")]
    given = after.published_at - after.preview_started_at
    if given >= timedelta(hours=hours):
        return []
    why = (
        f"published {_utc(after.published_at)}, {given.total_seconds() / 3600:g} hours after its vendor preview "
        f"started ({_utc(after.preview_started_at)}); {window}"
    )
    return [Breach("vendor_window", after.label, why, (), "publication")]


# --- 4. the tester's note ------------------------------------------------------------------------------------


def _tester_note(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    return [
        Breach("tester_note", after.label, f"the tester's verdict on run {run.key} has no note", (run.key,), run.key)
        for run in after.runs
        for v in run.verdicts
        if v.role == "tester" and not (v.note or "").strip()
    ]


# --- 5. effects that are due later ---------------------------------------------------------------------------

ROLE_WORDS = {"tester": "tester", "second": "second reviewer", "third": "third reviewer"}


def _effects_due(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    out = []
    for run in after.runs:
        for v in run.verdicts:
            if run.due_at is not None and v.at is not None and v.at < run.due_at:
                why = (
                    f"the {ROLE_WORDS.get(v.role, v.role)}'s verdict on run {run.key} is dated {_utc(v.at)}, before "
                    f"its effects are due ({_utc(run.due_at)})"
                )
                out.append(Breach("effects_due", after.label, why, (run.key,), f"{run.key}:{v.role}"))
    return out


# --- 7. one prompt for every agent ---------------------------------------------------------------------------


def _one_prompt(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    """A weekly round's runs of one task all ran one version of it (its prompt, word for word)."""
    if not after.rules.same_week:
        return []
    by_task: dict[str, dict[str, list[str]]] = {}
    for run in after.runs:
        by_task.setdefault(run.task, {}).setdefault(run.task_version, []).append(run.key)
    out = []
    for task, versions in sorted(by_task.items()):
        if len(versions) < 2:
            continue
        named = "; ".join(f"v{v}: {', '.join(sorted(keys))}" for v, keys in sorted(versions.items()))
        keys = tuple(sorted(k for ks in versions.values() for k in ks))
        why = f"task {task} is run in {len(versions)} versions ({named})"
        out.append(Breach("one_prompt", after.label, why, keys, task))
    return out


RULES: tuple[RoundRule, ...] = (
    RoundRule("same_week", "Same week", "004", "The agents in one table are run in the same week.", _same_week, True),
    RoundRule(
        "rerun",
        "Re-run after an accepted dispute",
        "000 §6",
        "A disputed run may be re-run once. Both runs are published and the re-run counts.",
        _reruns,
        True,
    ),
    RoundRule(
        "vendor_window",
        "Vendor window",
        "000 §6",
        "Vendors receive their results 48 hours before publication",
        _vendor_window,
        False,
    ),
    RoundRule(
        "tester_note",
        "The tester's note",
        "000 §5",
        "The tester records an outcome with a short note.",
        _tester_note,
        False,
    ),
    RoundRule(
        "effects_due",
        "Effects that are due later",
        "000 §2",
        "Tasks that observe later effects ... are judged when those effects are due.",
        _effects_due,
        True,
    ),
    RoundRule(
        "one_prompt",
        "One prompt for every agent",
        "004",
        "The prompt is the same, word for word, for every agent.",
        _one_prompt,
        True,
    ),
)
BY_KEY = {r.key: r for r in RULES}


def round_breaches(after: RoundFacts, before: RoundFacts | None = None) -> list[Breach]:
    """Every rule's breaches in `after` (the round as it would be stored), `before` being the round as stored."""
    return [b for rule in RULES for b in rule.check(before, after)]


def breaches_added(before: RoundFacts | None, after: RoundFacts) -> list[Breach]:
    """The breaches the change from `before` (None: a new round) to `after` adds: what a door refuses."""
    held = {b.identity for b in round_breaches(before)} if before is not None else set()
    return [b for b in round_breaches(after, before) if b.identity not in held]


def refusal_lines(breaches: list[Breach]) -> list[str]:
    """The refusal in words, one line per rule and round: the rule and its seed's sentence, the round, and each
    breach naming its runs."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for b in breaches:
        grouped.setdefault((b.rule, b.round), []).append(b.detail)
    return [f"{BY_KEY[rule].header}: round {rnd}: {'; '.join(details)}" for (rule, rnd), details in grouped.items()]


# --- a document's rounds (for `recount`) ---------------------------------------------------------------------


def _run_facts(run: dict) -> RunFacts:
    rerun = run.get("rerun_of")
    return RunFacts(
        key=str(run["id"]),
        task=run["task"],
        task_version=run.get("task_version") or "1.0",
        status=run.get("status") or "completed",
        started_at=bundle_time(run.get("started_at")),
        due_at=bundle_time(run.get("due_at")),
        rerun_of=str(rerun) if rerun is not None else None,
        trial=run.get("trial") or 1,
        verdicts=tuple(
            VerdictFacts(v["role"], v.get("note") or "", bundle_time(v.get("at"))) for v in run.get("verdicts") or []
        ),
        disputes=tuple(d.get("status") or "open" for d in run.get("disputes") or []),
    )


def document_facts(doc: dict) -> list[RoundFacts]:
    """Each round of a valid bundle as the rules read it."""
    bench = doc["benchmark"]
    hours = (bench.get("params") or {}).get("preview_hours") or 0
    runs: dict[str, list[RunFacts]] = {}
    for run in doc.get("runs") or []:
        runs.setdefault(run["round"], []).append(_run_facts(run))
    out = []
    for r in doc.get("rounds") or []:
        out.append(
            RoundFacts(
                benchmark=bench["slug"],
                key=r["key"],
                methodology=bench["methodology"],
                status=r.get("status") or "draft",
                starts_on=bundle_day(r.get("starts_on")),
                preview_started_at=bundle_time(r.get("preview_started_at")),
                published_at=bundle_time(r.get("published_at")),
                preview_hours=int(hours),
                runs=tuple(sorted(runs.get(r["key"], ()), key=lambda f: f.key)),
            )
        )
    return out


def document_problems(doc: dict) -> list[str]:
    """The breaches of the rules that change what a board counts, in a valid bundle's rounds as they stand."""
    counted = [b for f in document_facts(doc) for b in round_breaches(f) if BY_KEY[b.rule].counts]
    return refusal_lines(counted)
