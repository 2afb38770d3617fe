"""A stored submission checked again: its upload, kept as it was sent, read and checked by the checks the site runs
today, against the track it was taken on. A check added since it was taken (`graded_as_filed`, say) or changed
since then may now fail where the stored record says nothing or says it passed; the record takes the new checks,
and the tier follows (a failed protocol check flags a submission an editor had verified: `scoring.tiers.tier`).

What it does not do: the runs stay as they were stored, and so do the figures recomputed from them (a check reads
the files; a figure reads the stored runs, which the checks do not change). A submission that is no longer live
(superseded, withdrawn) takes its new checks into its record and history only: its tier and the boards' entry,
which is a newer submission's or none, stay as they are. The track is read as it stands today. Only a submission
whose format reads a folder can be checked again: its upload is kept whole as a zip. One sent as loose files
through the API keeps no upload, and a single file loses the name its format reads; both are reported and left as
they are.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.db import transaction

from leaderboard.models import ChangelogEntry, Entry, Tier

from . import formats
from .files import sent_as
from .models import EventKind, Submission, SubmissionEvent, SubmissionStatus, SubmissionTrack
from .reading import SubmissionRefused, read_context, track_input
from .services import entry_as_ran, tier_of, tier_set, version_round_key

log = logging.getLogger(__name__)


@dataclass
class Rechecked:
    submission: Submission
    # (check name, its stored record or None, its record now or None), for each check whose record changed
    changes: list[tuple[str, dict | None, dict | None]] = field(default_factory=list)
    tier_before: str = ""
    tier_after: str = ""  # the tier with the checks of now (a live submission's; another keeps its own)
    problem: str = ""  # why it could not be checked again ("" when it was)

    @property
    def head(self) -> str:
        sub = self.submission
        return f"submission {sub.pk} ({sub.organization.name}, {sub.agent.slug})"

    @property
    def what(self) -> str:
        """What changed (or why nothing could be checked), without the head."""
        if self.problem:
            return f"not checked again: {self.problem}"
        if not self.changes:
            return "unchanged"
        said = "; ".join(_change_said(name, before, after) for name, before, after in self.changes)
        moved = self.tier_after != self.tier_before
        return f"{said}; tier {self.tier_before} -> {self.tier_after}" if moved else f"{said}; tier {self.tier_after}"

    def __str__(self) -> str:
        return f"{self.head}: {self.what}"


def _change_said(name: str, before: dict | None, after: dict | None) -> str:
    if after is None:
        return f"{name}: no longer checked"
    state = "passes" if after["passed"] else f"fails: {after['detail']}"
    if before is None:
        return f"{name} (new): {state}"
    return f"{name}: {'passed' if before['passed'] else 'failed'}, now {state}"


def track_of(sub: Submission) -> SubmissionTrack | None:
    """The track the submission was taken on: its round's, else the track beside whose round its task set
    version's round was made (`services.version_round`)."""
    tracks = list(SubmissionTrack.objects.filter(round__benchmark=sub.benchmark).select_related("round__benchmark"))
    version = sub.round.task_set_version
    return next((t for t in tracks if t.round_id == sub.round_id), None) or next(
        (t for t in tracks if sub.round.key == version_round_key(t.round.key, version)), None
    )


def _changes(stored: list[dict], now: list[dict]) -> list[tuple[str, dict | None, dict | None]]:
    before, after = {c["name"]: c for c in stored}, {c["name"]: c for c in now}
    changes = []
    for name in [*after, *(n for n in before if n not in after)]:
        old, new = before.get(name), after.get(name)
        if old is None or new is None or (old["passed"], old["detail"]) != (new["passed"], new["detail"]):
            changes.append((name, old, new))
    return changes


def _tier_with(sub: Submission, checks: list[dict]) -> str:
    return tier_of(sub, checks) if sub.status == SubmissionStatus.LIVE else sub.tier


def _checks_now(sub: Submission, result: Rechecked) -> tuple[list[dict], dict] | None:
    """The submission's checks read again from its kept upload, with its entry as the files say it ran; None (and
    `result.problem` said) when it cannot be."""
    try:
        fmt = formats.get(sub.format)
    except SubmissionRefused:
        result.problem = f"its format {sub.format!r} is no longer read by the site"
        return None
    track = track_of(sub)
    if not fmt.folder:
        result.problem = f"{fmt.label} is not read from a folder: its checks stand as taken"
    elif not sub.archive:
        result.problem = "no upload was kept (sent as loose files)"
    elif track is None:
        result.problem = "the track it was taken on is gone"
    if result.problem or track is None:
        return None
    try:
        with sub.archive.open("rb") as kept:
            data = kept.read()
    except Exception as exc:  # noqa: BLE001 - a storage's own errors (S3's included): this one is reported
        log.warning("recheck: submission %s: its upload cannot be read", sub.pk, exc_info=True)
        result.problem = f"its kept upload cannot be read from the storage ({type(exc).__name__})"
        return None
    try:
        read = fmt.read(sent_as(fmt, sub.archive.name, data), read_context(track, counted=True))
        checks = [c.as_dict() for c in fmt.checks(track_input(track, by_definition=fmt.by_definition), read)]
    except SubmissionRefused as refused:
        result.problem = "its upload is refused today: " + "; ".join(refused.problems)
        return None
    except Exception as exc:  # noqa: BLE001 - a reader's failure on one upload never stops a run over many
        log.exception("recheck: submission %s: its upload could not be read", sub.pk)
        result.problem = f"its upload could not be read ({type(exc).__name__}; logged)"
        return None
    return checks, entry_as_ran(read.entry, checks)


def submission_recheck(sub: Submission, *, apply: bool = True, by=None) -> Rechecked:
    """Check `sub` again from its kept upload; with `apply`, store the checks that changed and say so in its
    history; a live one also takes its tier (and its boards' entry the tier and the model as ran) and a line in its
    round's changelog."""
    result = Rechecked(sub, tier_before=sub.tier, tier_after=sub.tier)
    now = _checks_now(sub, result)
    if now is None:
        return result
    checks, entry = now
    result.changes = _changes(sub.checks, checks)
    result.tier_after = _tier_with(sub, checks)
    if result.changes and apply:
        _store(result, checks, entry, by)
    return result


def _store(result: Rechecked, checks: list[dict], entry: dict, by) -> None:
    with transaction.atomic():
        # Read again, locked: an editor's verdict or a withdrawal made while the upload was read stands.
        sub = Submission.objects.select_for_update().select_related("round", "agent", "organization")
        sub = sub.get(pk=result.submission.pk)
        result.submission, result.tier_before = sub, sub.tier
        result.changes = _changes(sub.checks, checks)
        if not result.changes:
            result.tier_after = sub.tier
            return
        sub.checks = checks
        live = sub.status == SubmissionStatus.LIVE
        if live:
            if model := entry.get("model"):
                entries = Entry.objects.filter(round=sub.round, agent=sub.agent)
                entries.exclude(model=str(model)[:200]).update(model=str(model)[:200])
            tier_set(sub)  # saves it, copies the tier to its entry, marks the round's boards stale
        else:
            sub.save(update_fields=["checks"])
        result.tier_after = sub.tier
        turned_flagged = sub.tier == Tier.FLAGGED and result.tier_before != Tier.FLAGGED
        SubmissionEvent.objects.create(
            submission=sub,
            kind=EventKind.FLAGGED if turned_flagged else EventKind.CHECKED,
            by=by if getattr(by, "pk", None) else None,
            note=f"Checked again: {result.what}",
        )
        if live:
            ChangelogEntry.objects.create(
                round=sub.round,
                what=f"Submission {sub.pk} by {sub.organization.name} checked again: {result.what}",
                why="Its upload, kept as sent, read by the checks the site runs today.",
                who_role="submission",
            )
