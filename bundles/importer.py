"""Reading a results bundle into the database.

`bundle_import` validates the whole document first (scoring.bundle) and writes in one transaction, so a bad
bundle writes nothing. It is an upsert keyed on the bundle's own keys (benchmark slug, agent slug, task key,
round key, run id, verdict role, vote id), so importing the same bundle twice leaves the database as it was.
Nothing absent from a bundle is deleted: a bundle adds and corrects, it never loses data. The boards it
touches turn stale in the same transaction (leaderboard.stale).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from leaderboard.models import (
    Agent,
    Benchmark,
    ChangelogEntry,
    Entry,
    Organization,
    Round,
    RoundParameter,
    Task,
    TaskVersion,
)
from leaderboard.services.versions import task_set_grown
from leaderboard.stale import snapshots_mark_stale
from runs.models import Run
from runs.services.round_rules import RoundRulesBroken, require_rules, rerun_once_breaches, rounds_facts
from runs.services.search import notes_index
from runs.services.transcripts import transcript_files_delete
from scoring.bundle import BundleError, check_bundle
from scoring.round_rules import refusal_lines

from .app_builds import app_builds_write, read_app_builds
from .evidence_files import evidence_files_write, read_evidence_files
from .fields import (
    BLANK_STRING_FIELDS,
    DATETIME_FIELDS,
    ENTRY_FIELDS,
    PRIVATE_RUN_FIELDS,
    RUN_DEFAULTS,
    RUN_SCALARS,
    parse_day,
    parse_time,
)
from .report import ImportReport
from .run_children import write_run_children
from .shared import (
    SharedReport,
    agent_new_values,
    agent_values,
    benchmark_values,
    org_slug,
    round_names,
    shared_changes,
    shown,
    task_values,
    version_values,
)
from .submission_mode import submission_problems
from .transcript_files import read_transcripts, transcripts_write
from .upsert import Rows, set_fields, upsert
from .votes_write import write_votes


def _validate_dates(doc: dict) -> list[str]:
    problems = []

    def check(value: Any, path: str) -> None:
        if value is None:
            return
        try:
            parse_time(value)
        except (ValueError, TypeError):
            problems.append(f"{path}: {value!r} is not a date or an ISO 8601 time")

    for i, t in enumerate(doc.get("tasks") or []):
        check(t.get("published_at"), f"tasks[{i}].published_at")
    for i, r in enumerate(doc.get("rounds") or []):
        for key in ("published_at", "preview_started_at", "starts_on"):
            check(r.get(key), f"rounds[{i}].{key}")
        if r.get("status") == "published" and not r.get("published_at"):
            problems.append(f"rounds[{i}].published_at: is required for a published round")
    for i, run in enumerate(doc.get("runs") or []):
        for key in ("due_at", "started_at"):
            check(run.get(key), f"runs[{i}].{key}")
    for i, v in enumerate(doc.get("votes") or []):
        check(v.get("cast_at"), f"votes[{i}].cast_at")
    return problems


CONFIRM_HINT = (
    "an editor confirms such a change with `import_bundle --update-shared-agents` or the admin import page's "
    '"Update shared rows" box'
)


def bundle_import(
    *, doc: Any, folder: Path | None = None, update_shared: bool = False, by_key: bool = False, by=None, submission=None
) -> ImportReport:
    """Validate `doc` and write it in one transaction; raise `BundleError` (nothing written) on bad input.

    `folder` is the bundle file's folder: app builds (`{"kind": "app", "path": ...}` evidence) and evidence
    files (`{"kind": "screenshot", "path": ...}`) are read from there. Without it (a document with no file,
    e.g. an upload) they are left out.

    Rows other boards read (agents, organizations, the benchmark's settings, tasks of published rounds:
    `bundles.shared`) are never changed by an upload key (`by_key`), and by an editor's import only with
    `update_shared` when a published round reads them; the rounds they feed then turn stale and each published
    one gets a changelog entry by `by` (a user, or None for a command). With `submission` (a SubmissionScope) it
    writes as a key, into that scope only (`bundles.submission_mode`), and logs no per-run corrections."""
    check_bundle(doc)
    problems = _validate_dates(doc) + (submission_problems(doc, submission) if submission else [])
    by_key = by_key or submission is not None
    builds = read_app_builds(doc, folder, problems) if folder is not None else {}
    files = read_evidence_files(doc, folder, problems) if folder is not None else {}
    transcripts = read_transcripts(doc, folder, problems)
    if problems:
        raise BundleError(problems)
    written: list[str] = []  # transcript files: removed again if the transaction fails
    try:
        return _import(
            doc, builds, files, transcripts, written, update_shared=update_shared, by_key=by_key, by=by, sub=submission
        )
    except IntegrityError as exc:
        transcript_files_delete(written)
        refusal = guard_refusal(exc)
        if refusal is None:
            raise
        # The checks above read the guards' rules (a published task version: `TaskVersion.frozen_changes`); this
        # answers what they did not foresee (a stored row the bundle leaves out, a concurrent edit) the same way.
        raise BundleError([f"(database): {refusal}; nothing was written"]) from exc
    except BaseException:
        transcript_files_delete(written)
        raise


# PostgreSQL's SQLSTATE for a check violation: raised by the site's triggers (leaderboard migration 0004, runs
# migration 0002) and by CHECK constraints.
CHECK_VIOLATION = "23514"


def guard_refusal(exc: IntegrityError) -> str | None:
    """What a database guard said when it refused a write (a trigger or a CHECK constraint on PostgreSQL, the
    same rule in a model's `save()` elsewhere); None for any other integrity error, which is the site's bug."""
    cause = exc.__cause__
    if cause is None:  # raised by the site's own code (Run.save keeps the triggers' rules where there are none)
        return str(exc)
    if getattr(cause, "sqlstate", None) == CHECK_VIOLATION:
        diag = getattr(cause, "diag", None)
        return getattr(diag, "message_primary", None) or str(cause).splitlines()[0]
    return None


def _import(
    doc: dict,
    builds: dict,
    files: dict,
    transcripts: dict,
    written: list[str],
    *,
    update_shared: bool,
    by_key: bool,
    by,
    sub=None,
) -> ImportReport:
    with transaction.atomic():
        imports_one_at_a_time()
        shared = shared_changes(doc)
        refused = shared_problems(shared, by_key=by_key, update_shared=update_shared)
        if refused:
            raise BundleError(refused)
        before = rounds_facts(_rounds_named(doc))
        report = _write(doc, by_key=by_key, submission=sub is not None, by=by)
        _round_rules_kept(before, doc)
        app_builds_write(builds, report, doc["benchmark"]["slug"])
        evidence_files_write(files, report, doc["benchmark"]["slug"])
        transcripts_write(transcripts, report, doc["benchmark"]["slug"], written)
        shared_rounds = _shared_logged(shared, doc["benchmark"]["slug"], by)
        # A round that changed (published, say) may make agents public, and their votes with them.
        bench_ids = {Benchmark.objects.get(slug=report.benchmark).id} if report.round_ids else set()
        bench_ids |= {r.benchmark_id for r in shared_rounds}
        round_ids = report.round_ids | {r.id for r in shared_rounds}
        snapshots_mark_stale(round_ids=round_ids, rating_task_ids=report.rating_tasks, benchmark_ids=bench_ids)
        # Files beside the bundle (evidence, app builds) change what a run page and a vote screen show, not
        # what a board counts.
        shown = _rounds_of_files(doc["benchmark"]["slug"], builds, files, transcripts) - round_ids
        if shown:
            snapshots_mark_stale(round_ids=shown, boards=False)
    return report


def _rounds_named(doc: dict):
    keys = [r["key"] for r in doc.get("rounds") or []]
    return Round.objects.filter(benchmark__slug=doc["benchmark"]["slug"], key__in=keys).select_related("benchmark")


def _round_rules_kept(before: dict, doc: dict) -> None:
    """The round rules (`scoring.round_rules`) asked of the rounds the bundle names as they now stand, inside the
    import's transaction: a change that breaks one is refused whole, naming the rule, the round and each run."""
    try:
        require_rules(before, rounds_facts(_rounds_named(doc)))
    except RoundRulesBroken as broken:
        raise BundleError(broken.lines) from None


def _rounds_of_files(benchmark: str, *attached: dict) -> set[int]:
    """The rounds whose runs got a file beside the bundle (keys start with round key, run id)."""
    keys = {key[:2] for files in attached for key in files}
    rounds = dict(Round.objects.filter(benchmark__slug=benchmark).values_list("key", "id"))
    return {rounds[round_key] for round_key, _ in keys if round_key in rounds}


# Any 64-bit number no other lock of the site's uses; it reads "bundles" in ASCII.
IMPORT_LOCK = 0x62756E646C6573


def imports_one_at_a_time() -> None:
    """Wait, inside the caller's transaction, until no other import is writing. An import finds a row by its key
    and inserts it when missing (organizations and agents, which every benchmark shares; rounds, tasks and
    entries): two at once both found a new organization or round missing, and the second INSERT failed on the
    unique key (five 500s of six parallel uploads). A PostgreSQL advisory lock held to the transaction's end
    makes the second wait for the first to commit, then find its rows (READ COMMITTED reads them); SQLite
    writes one transaction at a time already."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [IMPORT_LOCK])


def shared_problems(shared: SharedReport, *, by_key: bool, update_shared: bool) -> list[str]:
    """Why the changes in `shared` may not be written, one line per field (empty when they may)."""
    problems = list(shared.frozen)
    for c in shared.changes:
        if by_key and c.field == "published_at":
            # Publishing a task's wording is the editor's step (`task_version_publish`), as a round's is.
            problems.append(
                f"{c.path}: {c.label}: published_at is set when an editor publishes the wording; an upload key "
                f"sends it as stored ({shown(c.old)}), not {shown(c.new)}"
            )
        elif by_key and (not c.label.startswith("task ") or c.published):
            problems.append(
                f"{c.path}: {c.label} is stored with {c.field} {shown(c.old)}; an upload key does not change "
                f"it (the bundle says {shown(c.new)}): leave the field out or send the stored value; " + CONFIRM_HINT
            )
        elif not by_key and c.published and not update_shared:
            problems.append(
                f"{c.path}: {c.describe()} would change published round(s) {round_names(c.published)}; "
                "nothing was written: leave the field out or send the stored value, or " + CONFIRM_HINT
            )
    return problems


def _shared_logged(shared: SharedReport, benchmark_slug: str, by) -> list[Round]:
    """One changelog entry per published round a confirmed shared change moved; the rounds it moved."""
    rounds: dict[int, Round] = {}
    per_round: dict[int, list[str]] = {}
    for c in shared.changes:
        for r in c.rounds:
            rounds[r.id] = r
        for r in c.published:
            per_round.setdefault(r.id, []).append(c.describe())
    now = timezone.now()
    for round_id, described in per_round.items():
        ChangelogEntry.objects.create(
            round=rounds[round_id],
            what="Changed by an import of " + benchmark_slug + ": " + "; ".join(described),
            why="An editor confirmed a change to rows this round shares (a bundle of " + benchmark_slug + ").",
            who=by if getattr(by, "pk", None) else None,
            who_role="editor",
            created_at=now,
        )
    return list(rounds.values())


def _write(doc: dict, *, by_key: bool = False, submission: bool = False, by=None) -> ImportReport:
    writer = _Writer(doc, by_key=by_key, submission=submission, by=by)
    writer.benchmark_and_agents()
    writer.tasks()
    writer.rounds()
    writer.runs()
    writer.changelog()
    write_votes(doc, writer.benchmark, writer.task_rows, writer.agent_rows, writer.report)
    return writer.report


@dataclass
class _Writer:
    """One import, section by section; each step keeps what the later ones refer to (agents by slug, tasks and
    rounds by key, entries by (round, agent), runs by id)."""

    doc: dict
    # An upload key's import: a stored round keeps its status and its preview and publication times (the
    # editor's steps; `bundles.uploads` refuses a bundle that would change them).
    by_key: bool = False
    submission: bool = False  # a submission's runs: its service logs one changelog line for them all
    by: Any = None  # the editor importing (None: a command or a key)
    report: ImportReport = field(init=False)
    benchmark: Benchmark = field(init=False)
    agent_rows: dict[str, Agent] = field(default_factory=dict)
    task_rows: dict[str, Task] = field(default_factory=dict)
    round_rows: dict[str, Round] = field(default_factory=dict)
    entries: dict[tuple[str, str], Entry] = field(default_factory=dict)
    run_rows: dict[tuple[str, str], Run] = field(default_factory=dict)  # by (round key, run id)
    changed_tasks: bool = False
    # Rounds published before this import: a change to their runs is a correction and goes into their changelog.
    was_published: set[int] = field(default_factory=set)
    corrected: dict[int, set[str]] = field(default_factory=dict)
    pending_changelog: list[tuple[Round, dict]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.report = ImportReport(benchmark=self.doc["benchmark"]["slug"])

    def benchmark_and_agents(self) -> None:
        """The benchmark and the agents, with only the fields the bundle gives (`bundles.shared`): what is
        stored elsewhere was checked before writing (`shared_problems`)."""
        b, report = self.doc["benchmark"], self.report
        bench = Benchmark.objects.filter(slug=b["slug"]).first()
        values = benchmark_values(b)
        if bench is None:
            self.benchmark, _ = upsert(Benchmark, {"slug": b["slug"]}, values, report, "benchmarks")
        else:
            self.benchmark = bench
            if set_fields(bench, values):
                bench.save()
                report.count("benchmarks", created=False)
        orgs: dict[str, Organization] = {}
        for a in self.doc.get("agents") or []:
            name = a.get("organization")
            if name and org_slug(name) not in orgs:
                orgs[org_slug(name)], _ = upsert(
                    Organization, {"slug": org_slug(name)}, {"name": name}, report, "organizations"
                )
            agent = Agent.objects.filter(slug=a["slug"]).first()
            values = agent_values(a) if agent is not None else agent_new_values(a)
            if "organization" in values:
                values["organization"] = orgs[org_slug(values["organization"])] if values["organization"] else None
            self.agent_rows[a["slug"]], _ = upsert(Agent, {"slug": a["slug"]}, values, report, "agents")

    def tasks(self) -> None:
        tasks = self.doc.get("tasks") or []
        # An upload lists the tasks its runs need, in any order: a stored task keeps its place in the list.
        kept = (
            set(Task.objects.filter(benchmark=self.benchmark, key__in=[t["key"] for t in tasks]).values_list("key"))
            if self.by_key
            else set()
        )
        stored = set(Task.objects.filter(benchmark=self.benchmark).values_list("key", flat=True))
        for pos, t in enumerate(tasks):
            values = task_values(t, pos)
            if (t["key"],) in kept:
                del values["position"]
            task, changed = upsert(Task, {"benchmark": self.benchmark, "key": t["key"]}, values, self.report, "tasks")
            self.changed_tasks |= changed
            self.task_rows[t["key"]] = task
            for h in list(t.get("history") or []) + [t]:
                upsert(
                    TaskVersion,
                    {"task": task, "version": h.get("version") or "1.0"},
                    version_values(t, h),
                    self.report,
                    "task versions",
                )
        added = [t["key"] for t in tasks if t["key"] not in stored]
        if added and stored:
            # 000 §9 "Adding tasks is a minor version change (v1.1)": the admin's rule (`task_set_grown`).
            why = f"Added by an import of {self.benchmark.slug}."
            task_set_grown(self.benchmark, added, by=self.by, why=why)

    def rounds(self) -> None:
        self.was_published = set(
            Round.objects.published().filter(benchmark=self.benchmark).values_list("id", flat=True)
        )
        for r in self.doc.get("rounds") or []:
            values = {
                "name": r.get("name") or "",
                "status": r["status"],
                "starts_on": parse_day(r.get("starts_on")),
                "preview_started_at": parse_time(r.get("preview_started_at")),
                "published_at": parse_time(r.get("published_at")),
            }
            if r.get("tasks") is not None:
                values["task_keys"] = list(r["tasks"])
            stored = Round.objects.filter(benchmark=self.benchmark, key=r["key"]).exists()
            if r.get("task_set_version") or not stored:
                # A new round left without one is run on the benchmark's current task set (`task_set_grown`).
                values["task_set_version"] = r.get("task_set_version") or self.benchmark.task_set_version or "1.0"
            if self.by_key and stored:
                for editors_own in ("status", "preview_started_at", "published_at"):
                    del values[editors_own]
            rnd, changed = upsert(Round, {"benchmark": self.benchmark, "key": r["key"]}, values, self.report, "rounds")
            self.round_rows[r["key"]] = rnd
            if changed or self.changed_tasks:
                self.report.round_ids.add(rnd.id)
            self.round_children(r, rnd)

    def round_children(self, r: dict, rnd: Round) -> None:
        for e in r.get("entries") or []:
            entry, changed = upsert(
                Entry,
                {"round": rnd, "agent": self.agent_rows[e["agent"]]},
                {f: e.get(f) or "" for f in ENTRY_FIELDS},
                self.report,
                "entries",
            )
            self.entries[(r["key"], e["agent"])] = entry
            if changed:
                self.report.round_ids.add(rnd.id)
        for task_key, values in (r.get("parameters") or {}).items():
            for name, value in values.items():
                upsert(
                    RoundParameter,
                    {"round": rnd, "task": self.task_rows[task_key], "name": name},
                    {"value": str(value)},
                    self.report,
                    "round parameters",
                )
        self.pending_changelog.extend((rnd, ch) for ch in r.get("changelog") or [])

    def runs(self) -> None:
        round_ids = [rnd.id for rnd in self.round_rows.values()]
        rows = Rows(Run, Run.objects.filter(round_id__in=round_ids), lambda r: (r.round_id, r.key), self.report, "runs")
        # A run's id is unique in its round (two rounds may share ids): runs are keyed by (round, id).
        docs_by_id = {(run["round"], str(run["id"])): run for run in self.doc.get("runs") or []}
        # Originals first and saved, so a re-run can point at a saved run.
        for reruns in (False, True):
            if reruns:
                self.reruns_once(docs_by_id)
            for key, run_doc in docs_by_id.items():
                if (run_doc.get("rerun_of") is not None) != reruns:
                    continue
                rnd = self.round_rows[run_doc["round"]]
                values = _run_values(run_doc, self.entries, self.task_rows, self.run_rows)
                run, changed = rows.put((rnd.id, key[1]), {"round": rnd, "key": key[1]}, values)
                self.run_rows[key] = run
                if changed:
                    self.mark_changed(rnd.id, key[1])
            rows.flush()
        changed_children = write_run_children(self.run_rows, docs_by_id, round_ids, self.report)
        for rnd_id, run_key in changed_children:
            self.mark_changed(rnd_id, run_key)
        # Reviewers' notes are searchable (runs.services.search): rewritten for every run of the bundle (a note
        # alone feeds no board, so it is not among the changed inputs).
        notes_index(self.run_rows[key].pk for key in docs_by_id if key in self.run_rows)
        for rnd in self.round_rows.values():
            rnd.task_set_freeze()

    def reruns_once(self, docs: dict[tuple[str, str], dict]) -> None:
        """Before the re-runs are written: a run is re-run once (the rule's own check), so a second re-run of a
        stored run is refused in words, not by the database's unique key."""
        incoming: dict[str, dict[str, str]] = {}
        for (round_key, run_key), run_doc in docs.items():
            if run_doc.get("rerun_of") is not None:
                incoming.setdefault(round_key, {})[run_key] = str(run_doc["rerun_of"])
        refused = [b for key, pairs in incoming.items() for b in rerun_once_breaches(self.round_rows[key], pairs)]
        if refused:
            raise BundleError(refusal_lines(refused))

    def mark_changed(self, round_id: int, run_key: str) -> None:
        self.report.round_ids.add(round_id)
        if round_id in self.was_published:
            self.corrected.setdefault(round_id, set()).add(run_key)

    def changelog(self) -> None:
        for rnd, ch in self.pending_changelog:
            at = parse_time(ch.get("at")) or rnd.published_at or timezone.now()
            run = Run.objects.filter(round=rnd, key=str(ch["run"])).first() if ch.get("run") else None
            upsert(
                ChangelogEntry,
                {"round": rnd, "what": ch["what"], "created_at": at},
                {"why": ch.get("why") or "", "who_role": ch.get("who") or "", "run": run},
                self.report,
                "changelog entries",
            )
        for rnd in self.round_rows.values():
            if self.corrected.get(rnd.id) and not self.submission:
                keys = sorted(self.corrected[rnd.id])
                ChangelogEntry.objects.create(
                    round=rnd,
                    run=self.run_rows[(rnd.key, keys[0])] if len(keys) == 1 else None,
                    who_role="import",
                    why="Re-imported from a bundle.",
                    created_at=timezone.now(),
                    what=f"Run{'s' if len(keys) != 1 else ''} {', '.join(keys)} changed by a bundle re-import.",
                )


def _run_values(run_doc: dict, entries: dict, tasks: dict, runs: dict[tuple[str, str], Run]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for f in RUN_SCALARS:
        if f in PRIVATE_RUN_FIELDS and f not in run_doc:
            continue  # the public download leaves them out: importing it keeps what is stored
        value = run_doc.get(f, RUN_DEFAULTS.get(f))
        if f in DATETIME_FIELDS:
            value = parse_time(value)
        elif f in BLANK_STRING_FIELDS and value is None:
            value = ""
        values[f] = value
    values["judge_scores"] = list(run_doc.get("judge_scores") or [])
    values["judge"] = run_doc.get("judge")
    values["marks"] = [{"at_seconds": m["at_seconds"], "label": m["label"].strip()} for m in run_doc.get("marks") or []]
    values["entry"] = entries[(run_doc["round"], run_doc["agent"])]
    values["task"] = tasks[run_doc["task"]]
    rerun_of = run_doc.get("rerun_of")
    values["rerun_of"] = runs[(run_doc["round"], str(rerun_of))] if rerun_of is not None else None
    return values
