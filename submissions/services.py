"""Taking a submission from an outside team: read it, check it, write its runs into the track's round through
the bundle import's submission mode, recompute the figures it claims from the stored runs, and give it (and
its entry on the boards) its tier. A new live submission of the same agent in the same round supersedes the
old one in the same transaction: the old runs leave the board, the old record, checks and figures stay.

The editor's verify, flag, unflag and the withdraw (editors, or the submitting organization's members) are
events of the submission's history; each recomputes the tier."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from bundles.export import task_doc
from bundles.importer import bundle_import
from bundles.submission_mode import SubmissionScope
from leaderboard.models import (
    Agent,
    Benchmark,
    ChangelogEntry,
    Entry,
    Organization,
    Round,
    RoundStatus,
    Task,
    Tier,
)
from leaderboard.ratelimit import limit_hit
from leaderboard.stale import snapshots_mark_stale
from runs.inputs import run_input
from runs.models import Evidence, EvidenceKind, Run
from scoring.bundle import BundleError
from scoring.submission_checks import mixed_families, ran_instead
from scoring.tiers import tier
from scoring.types import TaskInput

from . import formats
from .formats import Format
from .models import EventKind, Submission, SubmissionEvent, SubmissionStatus, SubmissionTrack, TaskSetVersion
from .names import agent_name_holder, name_taken_problem
from .reading import Read, SubmissionRefused, read_context, run_versions, track_input


@dataclass
class Upload:
    format: str  # a key of the format registry (`submissions.formats`)
    files: dict[str, bytes]  # a folder's files by their path in it (those its format reads), or the files sent
    archive: bytes | None = None  # the upload as sent, kept privately
    claims: dict[str, str] = field(default_factory=dict)  # figures claimed on the form or the API, as written
    counted: bool = False  # its .json files counted within the JSON budget as they arrived (`submissions.files`)


def open_track(benchmark: Benchmark, round_key: str | None = None) -> SubmissionTrack:
    """The benchmark's open track: the one on round `round_key`, else the newest opened (the upload form names
    its round; the API's answer and the command's output say which). SubmissionRefused when there is none."""
    track = (
        SubmissionTrack.objects.open()
        .filter(round__benchmark=benchmark, **({"round__key": round_key} if round_key else {}))
        .select_related("round__benchmark")
        .first()
    )
    if track is None:
        where = f"round {round_key!r} of {benchmark.slug}" if round_key else benchmark.slug
        raise SubmissionRefused([f"{where} has no open submission track"])
    return track


def track_or_none(benchmark: Benchmark) -> SubmissionTrack | None:
    """The track `open_track` takes, or None when the benchmark has no open track."""
    try:
        return open_track(benchmark)
    except SubmissionRefused:
        return None


def _read(upload: Upload, track: SubmissionTrack) -> tuple[Format, Read]:
    fmt = formats.get(upload.format)
    if track.formats and fmt.key not in track.formats:
        taken = ", ".join(formats.label(k) for k in track.formats)
        raise SubmissionRefused([f"format {fmt.label!r}: this track takes {taken}"])
    return fmt, fmt.read(upload.files, read_context(track, upload.claims, counted=upload.counted))


def _agent(
    benchmark: Benchmark, organization: Organization, agent_slug: str | None, agent_name: str | None, read: Read
) -> tuple[str, str]:
    """The agent's slug and display name: an agent of the organization's, or a new one named `agent_name` (else
    after model_name); refused when another organization's, or when its name looks like another agent's on the
    benchmark's boards (`names`)."""
    named = " ".join((agent_name or "").split()) or read.model_name
    slug = agent_slug or slugify(named)[:100]
    if not slug:
        raise SubmissionRefused(["agent: name the agent (no model_name to name it after)"])
    agent = Agent.objects.filter(slug=slug).first()
    if agent is not None and agent.organization_id != organization.pk:
        raise SubmissionRefused([f"agent: {slug!r} is not an agent of {organization.name}"])
    name = agent.name if agent else (named or slug)[:200]
    holder = agent_name_holder(benchmark=benchmark, name=name, agent_slug=slug)
    if holder is not None:
        raise SubmissionRefused(["agent: " + name_taken_problem(holder, name)])
    return slug, name


def submit(
    *,
    benchmark: Benchmark,
    organization: Organization,
    upload: Upload,
    via: str,
    agent: str | None = None,
    agent_name: str | None = None,
    round_key: str | None = None,
    by=None,
    api_key=None,
) -> Submission:
    """Check and take `upload` for the agent `agent` (a slug), or a new one named `agent_name`; raise
    `SubmissionRefused` (nothing written) when it cannot be read at all or would write outside the submitter's
    scope."""
    track = open_track(benchmark, round_key)
    fmt, read = _read(upload, track)
    track_in = track_input(track, by_definition=fmt.by_definition)
    slug, name = _agent(benchmark, organization, agent, agent_name, read)
    checks = [c.as_dict() for c in fmt.checks(track_in, read)]
    ran = fmt.ran(track_in, read)
    taken = ran.task_set is not None and ran.task_set.version in track_in.accepted
    held_back = set(mixed_families(read.files))
    with transaction.atomic():
        # One submission to a track at a time: the agent, its entry, the version's round and the live submission
        # they replace are read and written by one of them only (three first submissions of one new agent at
        # once are taken one after the other, each superseding the one before).
        SubmissionTrack.objects.select_for_update().filter(pk=track.pk).first()
        rnd = version_round(track, ran.task_set.version) if taken and ran.task_set else track.round
        sub = Submission.objects.create(
            benchmark=benchmark,
            round=rnd,
            agent=_agent_row(slug, name, organization),
            organization=organization,
            via=via,
            submitted_by=by if getattr(by, "pk", None) else None,
            api_key=api_key,
            checks=checks,
            status=SubmissionStatus.SUPERSEDED,  # live once the old one is superseded, below
            **_as_read(read),
        )
        SubmissionEvent.objects.create(submission=sub, kind=EventKind.SUBMITTED, by=sub.submitted_by)
        old = _supersede(sub)
        sub.status = SubmissionStatus.LIVE
        sub.save(update_fields=["status"])
        versions = run_versions(ran, by_definition=fmt.by_definition) if taken else {}
        runs = read.runs(prefix=f"s{sub.pk}", round_key=rnd.key, agent=slug, versions=versions, skip=held_back)
        recordings = {doc["id"]: rec["data"] for doc in runs if (rec := doc.pop("recording", None)) and rec["data"]}
        _write(sub, rnd, entry_as_ran(read.entry, checks), runs, organization, slug, name)
        recordings_write(rnd, recordings)
        _figures_and_tier(sub, fmt, read)
        if upload.archive:
            sub.archive.save(f"submission-{sub.pk}.zip", ContentFile(upload.archive), save=True)
        _log(sub, len(runs), old)
    return sub


def version_round_key(track_round_key: str, version: str) -> str:
    """The key of the round beside a track's round that holds its runs of task set `version`."""
    return slugify(f"{track_round_key}-{version}")[:100]


def version_round(track: SubmissionTrack, version: str) -> Round:
    """The round that holds the track's runs of task set `version`: the track's own round for its version, else
    one beside it made the first time (published, keyed `{round}-{version}`, its task set the version's tasks
    of the track's families), so a board only ever compares runs of one version and says which."""
    rnd = track.round
    if version == (rnd.task_set_version or "1.0"):
        return rnd
    key = version_round_key(rnd.key, version)
    found = Round.objects.filter(benchmark=rnd.benchmark, key=key).first()
    if found is not None:
        return found
    families = set(Task.objects.filter(benchmark=rnd.benchmark, key__in=rnd.task_keys).values_list("family", flat=True))
    stored = TaskSetVersion.objects.filter(benchmark=rnd.benchmark, version=version).first()
    keys = set(stored.tasks) if stored else set()
    tasks = rnd.benchmark.tasks.filter(key__in=keys, family__in=families).order_by("position", "key")
    return Round.objects.create(
        benchmark=rnd.benchmark,
        key=key,
        name=f"{rnd.name or rnd.key} (task set {version})",
        status=RoundStatus.PUBLISHED,
        # Just before the track's round, so that round (its own version's) stays the benchmark's latest board.
        published_at=(rnd.published_at or timezone.now()) - timedelta(seconds=1),
        task_set_version=version,
        task_keys=list(tasks.values_list("key", flat=True)),
    )


def _as_read(read: Read) -> dict:
    """The submission's record of what it sent: its format, declared fields (the contact apart), claims, files,
    notes, and how many runs it sent and reported as platform failures."""
    return {
        "format": read.format,
        "declared": {k: v for k, v in (read.declared or {}).items() if k != "contact_info"}
        | _public_contact(read.declared),
        "contact": read.contact,
        "claims": [c.as_dict() for c in read.claims],
        "files_info": read.files_info,
        "notes": read.notes,
        "runs_sent": sum(len(f.sims) for f in read.files),
        "platform_failures": sum(1 for f in read.files for s in f.sims if s.infra),
    }


def _public_contact(declared: dict | None) -> dict:
    contact = (declared or {}).get("contact_info")
    if not isinstance(contact, dict):
        return {}
    return {"contact_info": {k: v for k, v in contact.items() if k != "email"}}


def _agent_row(slug: str, name: str, organization: Organization) -> Agent:
    """The organization's agent `slug`, made now when new; refused when another organization's (made by a
    submission to another benchmark meanwhile)."""
    agent, _ = Agent.objects.get_or_create(slug=slug, defaults={"name": name[:200], "organization": organization})
    if agent.organization_id != organization.pk:
        raise SubmissionRefused([f"agent: {slug!r} is not an agent of {organization.name}"])
    return agent


def rate_wait(*, organization: Organization, sender: str) -> tuple[float, str]:
    """Count one submission against the sender's window (an account or an API key: SUBMISSION_RATE_LIMIT), then,
    when it passes, its organization's (SUBMISSION_ORG_RATE_LIMIT, every account and key of it together), per
    SUBMISSION_RATE_WINDOW_SECONDS: the seconds to wait and whose limit it is ("sender" or "org"), or (0, "")
    when it may go on. An unreachable cache lets it through (the database is the source of truth)."""
    window = max(1, settings.SUBMISSION_RATE_WINDOW_SECONDS)
    for whose, key, limit in (
        ("sender", f"submit:{sender}", settings.SUBMISSION_RATE_LIMIT),
        ("org", f"submit:org:{organization.pk}", settings.SUBMISSION_ORG_RATE_LIMIT),
    ):
        wait = limit_hit(key, limit=limit, window=window) if limit > 0 else 0.0
        if wait:
            return wait, whose
    return 0.0, ""


def _supersede(sub: Submission) -> Submission | None:
    old = (
        Submission.objects.select_for_update()
        .live()
        .filter(round=sub.round, agent=sub.agent)
        .exclude(pk=sub.pk)
        .first()
    )
    if old is None:
        return None
    remove_runs(old)
    old.status = SubmissionStatus.SUPERSEDED
    old.save(update_fields=["status"])
    SubmissionEvent.objects.create(submission=old, kind=EventKind.SUPERSEDED, note=f"by submission {sub.pk}")
    return old


def remove_runs(sub: Submission) -> int:
    """The submission's runs leave the round (its record, checks and figures stay)."""
    runs = Run.objects.filter(round=sub.round, entry__agent=sub.agent, key__startswith=f"s{sub.pk}-")
    count = runs.count()
    runs.filter(rerun_of__isnull=False).delete()
    runs.delete()
    return count


def entry_as_ran(entry: dict, checks: list[dict]) -> dict:
    """The entry's conditions as its runs ran them: where a disclosure check found the declared model is not the
    one run, the model is the one run (the declared one stays on the submission, shown beside it)."""
    ran = {v["what"]: v["ran"] for v in ran_instead(checks) if v["ran"]}
    return {**entry, "model": ran["model"]} if "model" in ran else entry


def _write(sub: Submission, rnd: Round, entry: dict, runs: list[dict], org: Organization, slug: str, name: str) -> None:
    bench = rnd.benchmark
    doc = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {"slug": bench.slug, "name": bench.name, "methodology": bench.methodology},
        "agents": [{"slug": slug, "name": name}],  # made (with its organization) before: `_agent_row`
        "tasks": _stored_tasks(bench, {r["task"] for r in runs}),
        "rounds": [
            {
                "key": rnd.key,
                "name": rnd.name,
                "status": rnd.status,
                "task_set_version": rnd.task_set_version,
                "starts_on": rnd.starts_on.isoformat() if rnd.starts_on else None,
                "published_at": rnd.published_at.isoformat() if rnd.published_at else None,
                "entries": [{"agent": slug, **{k: str(v)[:200] for k, v in entry.items() if k in ENTRY_KEYS}}],
            }
        ],
        "runs": runs,
    }
    scope = SubmissionScope(bench.slug, rnd.key, org.pk, org.name, frozenset(bench.tasks.values_list("key", flat=True)))
    try:
        bundle_import(doc=doc, submission=scope)
    except BundleError as exc:
        raise SubmissionRefused(exc.problems) from exc


ENTRY_KEYS = ("product_version", "plan", "region", "network", "model", "cli")
RECORDING_CAPTION = "Terminal recording (asciinema)"


def recordings_write(rnd: Round, recordings: dict[str, bytes]) -> None:
    """Each run's terminal recording, as sent, stored as its evidence (served as every evidence file is:
    `runs.views.evidence_file`) and played on its page by asciinema's player."""
    runs = {r.key: r for r in Run.objects.filter(round=rnd, key__in=list(recordings))}
    for key, data in recordings.items():
        if key in runs:
            evidence = Evidence(run=runs[key], kind=EvidenceKind.RECORDING, caption=RECORDING_CAPTION)
            evidence.file.save("agent.cast", ContentFile(data), save=True)


def _stored_tasks(bench: Benchmark, keys: set[str]) -> list[dict]:
    """The tasks the runs need, exactly as stored (a submission changes no task)."""
    return [task_doc(t) for t in bench.tasks.filter(key__in=keys).prefetch_related("versions")]


def _figures_and_tier(sub: Submission, fmt: Format, read: Read) -> None:
    """Each figure the submission claims beside the one recomputed from its stored runs (over the round's own
    task set, by the format's rule: `Format.figures`), then its tier."""
    rnd = sub.round
    tasks = [
        TaskInput(key=t.key, family=t.family or None, evaluation=t.evaluation or None)
        for t in Task.objects.filter(benchmark=sub.benchmark, key__in=rnd.task_keys)
    ]
    runs = [run_input(r) for r in Run.objects.filter(round=rnd, entry__agent=sub.agent).select_related("task")]
    threshold = sub.benchmark.pass_mark
    params = {"pass_threshold": threshold} if threshold is not None else {}
    sub.figures = [f.as_dict() for f in fmt.figures(read, tasks, runs, params)]
    tier_set(sub)


def tier_of(sub: Submission, checks: list[dict]) -> str:
    """The tier `sub` has with these checks, its figures and the editors' verdicts on it."""
    verdicts = {"verified": bool(sub.verified_note), "acknowledged": bool(sub.disclosure_note)}
    return tier(checks, sub.figures, flagged=bool(sub.flag_reason), **verdicts)


def tier_set(sub: Submission) -> None:
    """The submission's tier from its checks, figures and the editor's verdict, copied to its entry; the round's
    boards turn stale."""
    if sub.status != SubmissionStatus.LIVE:
        sub.save()
        return
    sub.tier = tier_of(sub, sub.checks)
    sub.save()
    Entry.objects.filter(round=sub.round, agent=sub.agent).update(tier=sub.tier)
    snapshots_mark_stale(round_ids=[sub.round_id])


def _log(sub: Submission, runs: int, old: Submission | None) -> None:
    replaced = f", replacing submission {old.pk}" if old else ""
    ChangelogEntry.objects.create(
        round=sub.round,
        what=f"Submission {sub.pk} by {sub.organization.name}: {runs} runs added, {sub.tier}{replaced}",
        why="A submission from an outside team, checked against its own runs.",
        who_role="submission",
    )
    SubmissionEvent.objects.create(
        submission=sub,
        kind=EventKind.FLAGGED if sub.tier == Tier.FLAGGED else EventKind.CHECKED,
        note="; ".join(c["name"] for c in sub.checks if not c["passed"]),
    )
