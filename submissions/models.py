"""Submissions from outside teams: the track a benchmark opens on a round, each submission as it was sent and as
it was checked, and its history."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import storages
from django.db import models
from django.db.models import Q
from django.utils import timezone

from leaderboard.models import Tier

# τ²-bench's limits (its `src/tau2/config.py`), the defaults of a new track.
DEFAULT_LIMITS = {"max_steps": 200, "max_errors": 10}
# What a submitter declares (τ²'s submission schema, and the protocol: scaffold, standard or custom, modified
# prompts, omitted tasks, user simulator): a dotted path into submission.json, and its label.
DEFAULT_PROTOCOL = [
    {"field": "submission_type", "label": "Standard or custom"},
    {"field": "methodology.notes", "label": "Scaffold"},
    {"field": "methodology.verification.modified_prompts", "label": "Modified prompts"},
    {"field": "methodology.verification.omitted_questions", "label": "Omitted tasks"},
    {"field": "methodology.user_simulator", "label": "User simulator"},
]


def default_limits() -> dict:
    return dict(DEFAULT_LIMITS)


def default_protocol() -> list:
    return [dict(p) for p in DEFAULT_PROTOCOL]


def default_formats() -> list:
    """A new track takes every format the site reads (`submissions.formats`): none named."""
    return []


class TrackQuerySet(models.QuerySet):
    def open(self) -> TrackQuerySet:
        """The tracks taking submissions now, the newest opened first."""
        return self.filter(is_open=True).order_by("-opened_at", "-id")


class SubmissionTrack(models.Model):
    """A round open to submissions: its required tasks are the round's `task_keys`, with at least `trials_min`
    trials each. A submission is checked against the version of the benchmark's task set its runs ran; the
    track takes its round's version, the versions it names, or with `accept_older_versions` any version the
    benchmark holds. Runs of another version than the round's go to that version's own round beside it
    (`submissions.services.version_round`), so no board compares two versions."""

    round = models.OneToOneField("leaderboard.Round", on_delete=models.CASCADE, related_name="track")
    is_open = models.BooleanField(default=True)
    opened_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    description = models.TextField(blank=True)
    trials_min = models.PositiveIntegerField(default=1)
    limits = models.JSONField(default=default_limits, blank=True, help_text='e.g. {"max_steps": 200, "max_errors": 10}')
    protocol = models.JSONField(default=default_protocol, blank=True, help_text='[{"field": ..., "label": ...}]')
    families_required = models.JSONField(
        default=list, blank=True, help_text="Task families a submission must cover. Empty: any, each one complete."
    )
    formats = models.JSONField(
        default=default_formats,
        blank=True,
        help_text='The formats taken, by key (e.g. ["tau2"]); empty: every format the site reads.',
    )
    accept_older_versions = models.BooleanField(
        default=False, help_text="Take runs of any version of the task set the benchmark holds."
    )
    task_set_versions = models.JSONField(
        default=list,
        blank=True,
        help_text='Versions of the task set taken besides the round\'s, e.g. ["2025-06-10"].',
    )

    objects = TrackQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Submission track of {self.round}"

    def clean(self) -> None:
        """The versions the track names are versions of the task set its benchmark holds."""
        named = self.task_set_versions
        if not isinstance(named, list) or not all(isinstance(v, str) for v in named):
            raise ValidationError({"task_set_versions": 'A list of versions, e.g. ["2025-06-10"].'})
        bench = self.round.benchmark
        held = set(TaskSetVersion.objects.filter(benchmark=bench).values_list("version", flat=True))
        unknown = [v for v in named if v not in held | {bench.task_set_version}]
        if unknown:
            why = f"{bench.name} holds no task set {', '.join(unknown)} (import_tau2_tasks --version)"
            raise ValidationError({"task_set_versions": why})


class TaskSetVersion(models.Model):
    """One version of a benchmark's task set as its team released it (τ²-bench's of 2025-06-10, say): the version
    of each of its tasks, by key. A benchmark may hold several; its current one is named by the benchmark's
    `task_set_version`. A submission is checked against the one its runs ran, and each round holds runs of
    one version only (its `task_set_version`), so a board never compares two."""

    NAMED_BY = ("benchmark", "version")

    benchmark = models.ForeignKey("leaderboard.Benchmark", on_delete=models.CASCADE, related_name="task_sets")
    version = models.CharField(max_length=20, help_text='The task set\'s version, e.g. "2025-06-10".')
    tasks = models.JSONField(default=dict, blank=True, help_text="Task key -> the task's version in this set.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["benchmark", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "version"], name="task_set_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark} task set {self.version}"


class SubmissionStatus(models.TextChoices):
    LIVE = "live"
    SUPERSEDED = "superseded"
    WITHDRAWN = "withdrawn"


class Via(models.TextChoices):
    SITE = "site"
    API = "api"
    COMMAND = "command"


class SubmissionQuerySet(models.QuerySet):
    def live(self) -> SubmissionQuerySet:
        """The submissions whose runs are on their round's boards (not superseded, not withdrawn)."""
        return self.filter(status=SubmissionStatus.LIVE)


def submissions_storage():
    """The private "submissions" storage of settings.STORAGES: each upload as it was sent."""
    return storages["submissions"]


class Submission(models.Model):
    benchmark = models.ForeignKey("leaderboard.Benchmark", on_delete=models.CASCADE, related_name="submissions")
    round = models.ForeignKey("leaderboard.Round", on_delete=models.CASCADE, related_name="submissions")
    agent = models.ForeignKey("leaderboard.Agent", on_delete=models.PROTECT, related_name="submissions")
    organization = models.ForeignKey("leaderboard.Organization", on_delete=models.PROTECT, related_name="submissions")
    format = models.CharField(max_length=20, help_text="A key of the format registry (submissions.formats).")
    status = models.CharField(max_length=20, choices=SubmissionStatus.choices, default=SubmissionStatus.LIVE)
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    via = models.CharField(max_length=20, choices=Via.choices)
    api_key = models.ForeignKey("leaderboard.ApiKey", null=True, blank=True, on_delete=models.SET_NULL)
    # submission.json without contact_info.email (public); the contact (private, never published).
    declared = models.JSONField(default=dict, blank=True)
    contact = models.JSONField(default=dict, blank=True)
    claims = models.JSONField(default=list, blank=True, help_text="[{name, value, decimals, unit}]")
    files_info = models.JSONField(default=list, blank=True)
    notes = models.JSONField(default=list, blank=True)
    checks = models.JSONField(default=list, blank=True, help_text="[{name, passed, detail}]")
    # Every run sent (platform failures included) and those the submitter reported as platform failures (left out
    # of the score on its word, not verified); None for a submission taken before they were counted.
    runs_sent = models.PositiveIntegerField(null=True, blank=True)
    platform_failures = models.PositiveIntegerField(null=True, blank=True)
    figures = models.JSONField(default=list, blank=True, help_text="[{name, claimed, recomputed, agrees}]")
    tier = models.CharField(max_length=20, choices=Tier.choices, default=Tier.SELF_REPORTED)
    verified_note = models.TextField(blank=True)
    verified_link = models.URLField(max_length=2000, blank=True)
    disclosure_note = models.TextField(
        blank=True,
        help_text="The verifying editor's note acknowledging a failed disclosure check (a declared model or user "
        "simulator other than the ones run); required to verify such a submission, shown beside what ran.",
    )
    flag_reason = models.TextField(blank=True)
    flag_link = models.URLField(max_length=2000, blank=True)
    archive = models.FileField(upload_to="submissions/%Y/%m/", blank=True, storage=submissions_storage)
    created_at = models.DateTimeField(default=timezone.now)

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "agent"], condition=Q(status="live"), name="submission_one_live_per_round_agent"
            ),
        ]

    def __str__(self) -> str:
        return f"Submission {self.pk} by {self.organization} ({self.agent})"

    def get_absolute_url(self) -> str:
        return f"/b/{self.benchmark.slug}/submissions/{self.pk}/"

    @property
    def platform_failures_said(self) -> str:
        """ "N of M runs reported as platform failures by the submitter; ..." ("" when not counted)."""
        if self.runs_sent is None or self.platform_failures is None:
            return ""
        return platform_failures_said(self.platform_failures, self.runs_sent)

    @property
    def is_live(self) -> bool:
        return self.status == SubmissionStatus.LIVE


def platform_failures_said(failures: int, runs: int) -> str:
    """How many of a submission's runs its submitter reported as platform failures, in the words the page, the
    API and `import_submission` give."""
    said = f"{failures} of {runs} run{'s' if runs != 1 else ''} reported as platform failures by the submitter"
    return said + ("; left out of the score, not verified" if failures else "; every run is in the score")


class EventKind(models.TextChoices):
    SUBMITTED = "submitted"
    CHECKED = "checked"
    FLAGGED = "flagged"
    UNFLAGGED = "unflagged"
    VERIFIED = "verified"
    WITHDRAWN = "withdrawn"
    SUPERSEDED = "superseded"


class SubmissionEvent(models.Model):
    """One step of a submission's history, shown on its page."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=EventKind.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    note = models.TextField(blank=True)
    link = models.URLField(max_length=2000, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["submission", "at", "id"]

    def __str__(self) -> str:
        return f"{self.submission} {self.kind}"
