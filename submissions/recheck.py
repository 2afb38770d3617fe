"""A stored submission checked again: its upload, kept as it was sent, read and checked by the checks the site runs
today, against the track it was taken on. A check added since it was taken (`graded_as_filed`, say) or changed
since then may now fail where the stored record says nothing or says it passed; the record takes the new checks,
and the tier follows (a failed protocol check flags a submission an editor had verified: `scoring.tiers.tier`).

What it does not do: the runs stay as they were stored, and so do the figures recomputed from them (a check reads
the files; a figure reads the stored runs, which the checks do not change). Only a submission whose format reads a
folder can be checked again: its upload is kept whole as a zip. One sent as loose files through the API keeps no
upload, and a single file loses the name its format reads; both are reported and left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils.text import slugify

from leaderboard.models import ChangelogEntry, Entry, Tier

from . import formats
from .files import sent_as
from .models import EventKind, Submission, SubmissionEvent, SubmissionTrack
from .reading import SubmissionRefused, read_context, track_input
from .services import entry_as_ran, tier_set


@dataclass
class Rechecked:
    submission: Submission
    # (check name, its stored record or None, its record now or None), for each check whose record changed
    changes: list[tuple[str, dict | None, dict | None]] = field(default_factory=list)
    tier_before: str = ""
    problem: str = ""  # why it could not be checked again ("" when it was)

    def __str__(self) -> str:
        sub = self.submission
        head = f"submission {sub.pk} ({sub.organization.name}, {sub.agent.slug})"
        if self.problem:
            return f"{head}: not checked again: {self.problem}"
        if not self.changes:
            return f"{head}: unchanged"
        said = "; ".join(_change_said(name, before, after) for name, before, after in self.changes)
        tier = f"; tier {self.tier_before} -> {sub.tier}" if sub.tier != self.tier_before else f"; tier {sub.tier}"
        return f"{head}: {said}{tier}"


def _change_said(name: str, before: dict | None, after: dict | None) -> str:
    if after is None:
        return f"{name}: no longer checked"
    state = "passes" if after["passed"] else f"fails: {after['detail']}"
    if before is None:
        return f"{name} (new): {state}"
    return f"{name}: {'passed' if before['passed'] else 'failed'}, now {state}"


def track_of(sub: Submission) -> SubmissionTrack | None:
    """The track the submission was taken on: its round's, or the track beside whose round its task set version's
    round was made (`services.version_round`)."""
    for track in SubmissionTrack.objects.filter(round__benchmark=sub.benchmark).select_related("round__benchmark"):
        version = sub.round.task_set_version
        if track.round_id == sub.round_id or sub.round.key == slugify(f"{track.round.key}-{version}")[:100]:
            return track
    return None


def submission_recheck(sub: Submission, *, apply: bool = True, by=None) -> Rechecked:
    """Check `sub` again from its kept upload; with `apply`, store the checks that changed, its tier, its entry's
    model as ran, and say so in its history and its round's changelog."""
    result = Rechecked(sub, tier_before=sub.tier)
    fmt = formats.get(sub.format)
    track = track_of(sub)
    if not fmt.folder:
        result.problem = f"{fmt.label} is not read from a folder: its checks stand as taken"
    elif not sub.archive:
        result.problem = "no upload was kept (sent as loose files)"
    elif track is None:
        result.problem = "the track it was taken on is gone"
    if result.problem:
        return result
    assert track is not None
    try:
        with sub.archive.open("rb") as kept:
            data = kept.read()
        read = fmt.read(sent_as(fmt, sub.archive.name, data), read_context(track, counted=True))
        checks = [c.as_dict() for c in fmt.checks(track_input(track, by_definition=fmt.by_definition), read)]
    except OSError:
        result.problem = "its kept upload cannot be read from the storage"
        return result
    except SubmissionRefused as refused:
        result.problem = "its upload is refused today: " + "; ".join(refused.problems)
        return result
    before = {c["name"]: c for c in sub.checks}
    now = {c["name"]: c for c in checks}
    for name in [*now, *(n for n in before if n not in now)]:
        old, new = before.get(name), now.get(name)
        if old is None or new is None or (old["passed"], old["detail"]) != (new["passed"], new["detail"]):
            result.changes.append((name, old, new))
    if not result.changes or not apply:
        return result
    with transaction.atomic():
        sub.checks = checks
        model = entry_as_ran(read.entry, checks).get("model")
        if model:
            Entry.objects.filter(round=sub.round, agent=sub.agent).exclude(model=str(model)[:200]).update(
                model=str(model)[:200]
            )
        tier_set(sub)
        said = str(result)
        SubmissionEvent.objects.create(
            submission=sub,
            kind=EventKind.FLAGGED
            if sub.tier == Tier.FLAGGED and result.tier_before != Tier.FLAGGED
            else EventKind.CHECKED,
            by=by if getattr(by, "pk", None) else None,
            note="Checked again: " + said.split(": ", 1)[1],
        )
        ChangelogEntry.objects.create(
            round=sub.round,
            what=f"Submission {sub.pk} by {sub.organization.name} checked again: " + said.split(": ", 1)[1],
            why="Its upload, kept as sent, read by the checks the site runs today.",
            who_role="submission",
        )
    return result
