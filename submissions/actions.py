"""An editor's verdict on a submission (verify, flag, unflag) and its withdrawal: each an event of its
history, each recomputing its tier. Verify and flag are an editor's; withdraw also the submitting
organization's members'. Who may act is checked here, not only by the page or the admin."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from leaderboard.models import Entry, Tier
from leaderboard.roles import user_is_editor, user_organization_id
from leaderboard.stale import snapshots_mark_stale
from scoring.submission_checks import failed_disclosures
from scoring.tiers import blocking

from .models import EventKind, Submission, SubmissionEvent, SubmissionStatus
from .services import remove_runs, tier_set


def _editor(user) -> None:
    if not user_is_editor(user):
        raise PermissionDenied("an editor's step")


def _required(**values: str) -> None:
    missing = [name for name, value in values.items() if not (value or "").strip()]
    if missing:
        raise ValidationError(f"{' and '.join(missing)} required")


def acknowledgment_asked(submission: Submission) -> str:
    """What verifying `submission` asks the editor to acknowledge in a note (each failed disclosure check with
    its reason), or "" when nothing."""
    owed = failed_disclosures(submission.checks or [])
    if not owed:
        return ""
    return "what differs from what was declared: " + "; ".join(f"{c['name']}: {c['detail']}" for c in owed)


def submission_verify(*, submission: Submission, by, note: str, link: str, disclosure_note: str = "") -> Submission:
    """An editor reproduced or audited it: refused while a protocol check fails or a figure differs (the reasons
    listed); where a disclosure check failed, only with a note acknowledging it (`disclosure_note`), kept and
    shown beside what ran."""
    _editor(by)
    _required(note=note, link=link)
    reasons = blocking(submission.checks, submission.figures)
    if reasons:
        raise ValidationError("cannot verify while these stand: " + "; ".join(reasons))
    asked = acknowledgment_asked(submission)
    if asked and not disclosure_note.strip():
        raise ValidationError({"disclosure_note": f"verifying needs a note acknowledging {asked}"})
    with transaction.atomic():
        submission.verified_note, submission.verified_link = note.strip(), link.strip()
        submission.disclosure_note = disclosure_note.strip() if asked else ""
        event_note = f"{note.strip()} (acknowledged: {submission.disclosure_note})" if asked else note
        SubmissionEvent.objects.create(
            submission=submission, kind=EventKind.VERIFIED, by=by, note=event_note, link=link
        )
        tier_set(submission)
    return submission


def submission_flag(*, submission: Submission, by, reason: str, link: str) -> Submission:
    _editor(by)
    _required(reason=reason, link=link)
    with transaction.atomic():
        submission.flag_reason, submission.flag_link = reason.strip(), link.strip()
        submission.verified_note = submission.verified_link = submission.disclosure_note = ""
        SubmissionEvent.objects.create(submission=submission, kind=EventKind.FLAGGED, by=by, note=reason, link=link)
        tier_set(submission)
    return submission


def submission_unflag(*, submission: Submission, by, note: str = "") -> Submission:
    _editor(by)
    with transaction.atomic():
        submission.flag_reason = submission.flag_link = ""
        SubmissionEvent.objects.create(submission=submission, kind=EventKind.UNFLAGGED, by=by, note=note)
        tier_set(submission)
    return submission


def may_withdraw(user, submission: Submission) -> bool:
    if user_is_editor(user):
        return True
    return user_organization_id(user) == submission.organization_id


def submission_withdraw(*, submission: Submission, by, note: str = "") -> Submission:
    """Its runs leave the board; its record stays, withdrawn."""
    if not may_withdraw(by, submission):
        raise PermissionDenied("only an editor or the submitting organization withdraws a submission")
    with transaction.atomic():
        if submission.status == SubmissionStatus.LIVE:
            remove_runs(submission)
            entry = Entry.objects.filter(round=submission.round, agent=submission.agent)
            entry.filter(runs__isnull=True).delete()
            entry.update(tier=Tier.TEAM)
            snapshots_mark_stale(round_ids=[submission.round_id])
        submission.status = SubmissionStatus.WITHDRAWN
        submission.save(update_fields=["status"])
        SubmissionEvent.objects.create(submission=submission, kind=EventKind.WITHDRAWN, by=by, note=note)
    return submission
