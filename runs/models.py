"""Runs and what is said about them: verdicts, evidence, checks, disputes."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import storages
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import in_published_round
from scoring.addresses import is_link_address
from scoring.common import budget_tokens, major
from scoring.types import RUN_COUNT_FIELDS, RUN_COUNT_PAIRS, RUN_MEASURE_FIELDS, STATUS_WORDS


class RunStatus(models.TextChoices):
    # Labels in the words the standings use (`scoring.types.STATUS_WORDS`).
    COMPLETED = "completed"
    TIMEOUT = "timeout"
    BUDGET_EXHAUSTED = "budget_exhausted", STATUS_WORDS["budget_exhausted"]
    OVER_BUDGET = "over_budget", STATUS_WORDS["over_budget"]
    INFRA_ERROR = "infra_error", STATUS_WORDS["infra_error"]
    REGION_BLOCKED = "region_blocked", STATUS_WORDS["region_blocked"]
    UNSUPPORTED = "unsupported"
    NOT_STARTED = "not_started", STATUS_WORDS["not_started"]


class Outcome(models.TextChoices):
    PASS = "pass"
    PARTIAL = "partial"
    FAIL = "fail"
    VIOLATION = "violation"
    UNSUPPORTED = "unsupported"


class ExecutionMode(models.TextChoices):
    # 002, "Sandbox" (`scoring.run_setup.SCORED_SETUP`): the seed's two modes; blank is not recorded.
    DOCKER = "docker", "Docker"
    LOCAL = "local", "Local mode (fallback)"


class RunQuerySet(models.QuerySet):
    def published(self) -> RunQuerySet:
        return self.filter(in_published_round())

    def with_verdicts(self) -> RunQuerySet:
        """Each run's task and verdicts, loaded with the runs: what a page or answer that shows a run's public
        verdicts (`verdicts_public`) reads."""
        return self.select_related("task").prefetch_related("verdicts")


def _nonneg(field: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gte": 0}), name=f"run_{field}_not_negative"
    )


def _le(passed: str, total: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=(
            Q(**{f"{passed}__isnull": True}) | Q(**{f"{total}__isnull": True}) | Q(**{f"{passed}__lte": F(total)})
        ),
        name=f"run_{passed}_le_total",
    )


class Run(models.Model):
    """One attempt of an agent at a task in a round.

    `round` is stored beside `entry` for fast filtering; a database trigger (migration 0002) refuses a run
    whose round differs from its entry's, so a run outside its round's entries cannot exist; it also refuses a
    re-run of a re-run, and a run that has a re-run becoming one.
    """

    key = models.CharField(max_length=200, help_text="The run id in the bundle.")
    round = models.ForeignKey("leaderboard.Round", on_delete=models.CASCADE, related_name="runs")
    entry = models.ForeignKey("leaderboard.Entry", on_delete=models.PROTECT, related_name="runs")
    task = models.ForeignKey("leaderboard.Task", on_delete=models.PROTECT, related_name="runs")
    task_version = models.CharField(max_length=20, default="1.0")
    trial = models.PositiveIntegerField(default=1)
    language = models.CharField(max_length=20, blank=True)
    status = models.CharField(max_length=20, choices=RunStatus.choices, default=RunStatus.COMPLETED)
    outcome = models.CharField(
        max_length=20,
        choices=Outcome.choices,
        blank=True,
        help_text="The final outcome (set from the verdicts when there are any).",
    )
    rerun_of = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="rerun")
    score = models.FloatField(null=True, blank=True, help_text="A score given as is (e.g. a published one).")
    auto_pass_rate = models.FloatField(null=True, blank=True)
    tests_passed = models.IntegerField(null=True, blank=True)
    tests_total = models.IntegerField(null=True, blank=True)
    judge_scores = models.JSONField(default=list, blank=True)
    judge = models.JSONField(
        null=True,
        blank=True,
        help_text="The judge's details as published: criteria by name, narrative, whether a fallback scored it.",
    )
    marks = models.JSONField(
        default=list, blank=True, help_text="Moments of the recording: [{at_seconds, label}], e.g. an intervention."
    )
    heuristic = models.FloatField(null=True, blank=True)
    app_started = models.BooleanField(null=True, blank=True)
    api_checks_passed = models.IntegerField(null=True, blank=True)
    api_checks_total = models.IntegerField(null=True, blank=True)
    browser_steps_passed = models.IntegerField(null=True, blank=True)
    browser_steps_total = models.IntegerField(null=True, blank=True)
    tokens_input = models.BigIntegerField(null=True, blank=True)
    tokens_output = models.BigIntegerField(null=True, blank=True)
    tokens_cache_write = models.BigIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    plan_label = models.CharField(max_length=200, blank=True)
    wall_seconds = models.FloatField(null=True, blank=True)
    first_output_seconds = models.FloatField(null=True, blank=True)
    steps = models.IntegerField(null=True, blank=True)
    interventions = models.IntegerField(null=True, blank=True)
    checks_version = models.CharField(max_length=100, blank=True)
    judge_model = models.CharField(
        max_length=200,
        blank=True,
        help_text="Scored runs: the model that judged it (002: Claude Sonnet by default). Blank: not recorded.",
    )
    execution_mode = models.CharField(
        max_length=20,
        choices=ExecutionMode.choices,
        blank=True,
        help_text="Scored runs: Docker, or local mode (fallback; results may vary with the host). Blank: not recorded.",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(
        null=True, blank=True, help_text="For tasks that observe later effects: judged once this is past."
    )
    preview_url = models.URLField(
        max_length=2000, blank=True, help_text="A live preview of the app (shown sandboxed on the vote screen)."
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["round", "entry__agent__name", "task__position", "task__key", "trial", "id"]
        constraints = [
            models.UniqueConstraint(fields=["round", "key"], name="run_key_unique_in_round"),
            models.CheckConstraint(condition=~Q(rerun_of=F("id")), name="run_not_its_own_rerun"),
            models.CheckConstraint(condition=Q(trial__gte=1), name="run_trial_positive"),
            models.CheckConstraint(condition=Q(status__in=[s.value for s in RunStatus]), name="run_status_valid"),
            models.CheckConstraint(
                condition=Q(outcome="") | Q(outcome__in=[o.value for o in Outcome]), name="run_outcome_valid"
            ),
            models.CheckConstraint(
                condition=Q(execution_mode="") | Q(execution_mode__in=[m.value for m in ExecutionMode]),
                name="run_execution_mode_valid",
            ),
            *[_nonneg(f) for f in (*RUN_COUNT_FIELDS, *RUN_MEASURE_FIELDS)],
            *[_le(passed, total) for passed, total in RUN_COUNT_PAIRS],
            models.CheckConstraint(
                condition=Q(heuristic__isnull=True) | (Q(heuristic__gte=0) & Q(heuristic__lte=1)),
                name="run_heuristic_0_1",
            ),
            models.CheckConstraint(
                condition=Q(auto_pass_rate__isnull=True) | (Q(auto_pass_rate__gte=0) & Q(auto_pass_rate__lte=1)),
                name="run_auto_pass_rate_0_1",
            ),
        ]
        indexes = [models.Index(fields=["round", "status"]), models.Index(fields=["task", "round"])]

    def __str__(self) -> str:
        return self.key

    def get_absolute_url(self) -> str:
        return reverse("run", args=[self.round.benchmark.slug, self.round.key, self.key])

    def clean(self) -> None:
        """A form's word on the rule the database guards (migration 0002's trigger): the run's round is its
        entry's round, so an editor who picks another round's entry is told, not refused by the database."""
        if self.entry_id is not None and self.round_id is not None and self.entry.round_id != self.round_id:
            raise ValidationError(f"Run {self.key}: its entry is in another round than the run.", code="entry_round")

    @property
    def agent(self):
        return self.entry.agent

    @property
    def tokens(self) -> int | None:
        """Tokens counted against the budget, by scoring's one rule (`budget_tokens`): input + cache writes +
        output; unknown when input or output is unknown ("missing usage never counts as zero")."""
        return budget_tokens(self.tokens_input, self.tokens_output, self.tokens_cache_write)

    @property
    def is_stale(self) -> bool:
        """Recorded under an older major version of the task than the current one."""
        return major(self.task_version) < major(self.task.version)


class VerdictRole(models.TextChoices):
    TESTER = "tester"
    SECOND = "second", "second reviewer"
    THIRD = "third", "third reviewer"


class Verdict(models.Model):
    """A reviewer's outcome for a run. Roles: the tester, a blind second reviewer, and a third reviewer who
    decides when the first two disagree."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="verdicts")
    role = models.CharField(max_length=10, choices=VerdictRole.choices)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="verdicts"
    )
    outcome = models.CharField(max_length=20, choices=Outcome.choices)
    matched = models.JSONField(
        default=list, blank=True, help_text="Every outcome row the run matched; the lowest applies."
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "role"], name="verdict_one_per_role"),
            models.UniqueConstraint(
                fields=["run", "reviewer"], condition=Q(reviewer__isnull=False), name="verdict_reviewer_once_per_run"
            ),
            models.CheckConstraint(condition=Q(role__in=[r.value for r in VerdictRole]), name="verdict_role_valid"),
            models.CheckConstraint(condition=Q(outcome__in=[o.value for o in Outcome]), name="verdict_outcome_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.outcome}"


class EvidenceKind(models.TextChoices):
    RECORDING = "recording"
    SCREENSHOT = "screenshot"
    LOG = "log"
    AUDIO = "audio"
    TRANSCRIPT = "transcript"
    OTHER = "other"


def evidence_storage():
    """The "evidence" storage of settings.STORAGES: the local disk, or object storage shared by every server."""
    return storages["evidence"]


class Evidence(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="evidence")
    kind = models.CharField(max_length=20, choices=EvidenceKind.choices)
    url = models.URLField(max_length=2000, blank=True)
    file = models.FileField(upload_to="evidence/%Y/%m/", blank=True, storage=evidence_storage)
    caption = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["run", "id"]
        verbose_name_plural = "evidence"
        constraints = [
            models.CheckConstraint(condition=~Q(url="") | ~Q(file=""), name="evidence_has_url_or_file"),
        ]

    def __str__(self) -> str:
        return self.caption or self.kind

    @property
    def href(self) -> str:
        """A stored file's address is always the site's own (`runs.views.evidence_file`, which checks who may
        see it), never the storage's (a bucket's signed URL would skip those rules)."""
        if self.file:
            return reverse("evidence_file", args=[self.file.name.removeprefix("evidence/")])
        return self.url

    @property
    def link(self) -> str:
        """`href` when a page may render it as a link, else "": a row stored before imports refused other
        schemes (or written around them) never becomes a `javascript:` or `data:` link."""
        return self.href if is_link_address(self.href) else ""


class CheckKind(models.TextChoices):
    START = "start", "app start"
    API = "api", "API call"
    PAGE = "page", "page"
    BROWSER = "browser", "browser step"
    TEST = "test", "test"


class CheckResult(models.Model):
    """One check of the checker, in order, with what it got (the run page shows every check)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="checks")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=10, choices=CheckKind.choices)
    name = models.CharField(max_length=300)
    passed = models.BooleanField()
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "position", "id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.name} ({'passed' if self.passed else 'failed'})"


class DisputeReason(models.TextChoices):
    WRONG_VERSION = "wrong_version", "wrong version"
    WRONG_PLAN = "wrong_plan", "wrong plan"
    ENVIRONMENT = "environment", "environment problem"
    OTHER = "other"


class DisputeStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class Dispute(models.Model):
    """A vendor's factual claim on a run during the preview, and what the editors decided."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="disputes")
    reason = models.CharField(max_length=20, choices=DisputeReason.choices)
    note = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=DisputeStatus.choices, default=DisputeStatus.OPEN)
    filed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="disputes_filed"
    )
    filed_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="disputes_decided"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)

    class Meta:
        ordering = ["-filed_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=[s.value for s in DisputeStatus]), name="dispute_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} on {self.run}"


class AppBuild(models.Model):
    """A run's app as a static build (`index.html` plus assets), unpacked under MEDIA_ROOT in a directory with
    a random name. It is served only through a vote matchup's one-time aliases, sandboxed
    (`voting.views.preview_app`); the front web server must not serve `MEDIA_ROOT/app-builds/`."""

    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="app_build")
    directory = models.CharField(max_length=100, unique=True, help_text="Relative to MEDIA_ROOT.")
    files = models.PositiveIntegerField()
    size = models.PositiveIntegerField(help_text="Bytes, all files together.")
    sha256 = models.CharField(max_length=64, help_text="Of the build's file names and contents, in order.")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"app build of {self.run}"


class Transcript(models.Model):
    """A run's transcript: the input, every message (role, text, tool calls and their results), the final
    output, every scorer's value and explanation, the sample's error or limit, and per-model usage. Kept
    outside the tables the boards read: the messages are stored compressed, in pages of `page_size`, through
    the "transcripts" storage under `path`; `meta` holds the sample-level facts shown beside them. The format
    of a message is the one documented in docs/transcripts.md."""

    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="transcript")
    source = models.CharField(max_length=20, help_text="Where it came from: inspect or bundle.")
    path = models.CharField(max_length=300, help_text="The storage name prefix of its pages.")
    message_count = models.PositiveIntegerField(default=0)
    page_size = models.PositiveIntegerField(default=100)
    raw_bytes = models.BigIntegerField(default=0, help_text="The messages' size as JSON, uncompressed.")
    stored_bytes = models.BigIntegerField(default=0, help_text="Compressed, all pages together.")
    meta = models.JSONField(default=dict, blank=True)
    digest = models.CharField(max_length=64, blank=True, help_text="Of the document: the same one is not stored again.")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"transcript of {self.run}"


class SearchKind(models.TextChoices):
    MESSAGE = "message"
    JUDGE = "judge"
    NOTE = "note"
    MARK = "mark"


class SearchEntry(models.Model):
    """One text of a run a reader can search: a transcript message (anchor "m-<index>"), a judge's narrative
    (anchor "judge"), a reviewer's note (anchor "verdict-<id>"), a mark on the recording (anchor
    "mark-<second>"). Visibility follows the run's round."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="search_entries")
    kind = models.CharField(max_length=10, choices=SearchKind.choices)
    anchor = models.CharField(max_length=40)
    text = models.TextField()

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "anchor"], name="search_entry_run_anchor")]
        verbose_name_plural = "search entries"

    def __str__(self) -> str:
        return f"{self.run} {self.anchor}"
