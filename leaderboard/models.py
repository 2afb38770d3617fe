"""The catalogue: benchmarks, tasks and their versions, agents and vendors, rounds, entries, private round
parameters, memberships and the corrections changelog."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import connection, models
from django.db.models import Q
from django.db.models.functions import Cast, Coalesce, Concat, JSONArray
from django.urls import reverse
from django.utils import timezone

from scoring import methodologies, tiers
from scoring.common import major
from scoring.types import KEY_PATTERN, VERSION_PATTERN, TaskInput

# The people of an organization, in their own module; imported here so that Django finds them with the rest.
from .organizations import Account, JoinKind, JoinRequest, JoinStatus  # noqa: F401

key_validator = RegexValidator(KEY_PATTERN, "Letters, digits, '-', '_' and '.' only.")
version_validator = RegexValidator(VERSION_PATTERN, "A version such as 1.0, 1.1 or 2.0.")


def methodology_choices() -> list[tuple[str, str]]:
    """The registered methodologies (scoring.methodologies): a new one needs no migration here."""
    return [(m.key, m.name) for m in methodologies.REGISTRY.values()]


def default_preview_hours() -> int:
    """A new benchmark's vendor window: the PREVIEW_HOURS setting (48 unless the environment says otherwise)."""
    return settings.PREVIEW_HOURS


class Organization(models.Model):
    """A vendor: the company behind one or more agents. Its users see their own results during preview."""

    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user who belongs to a vendor organization."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="membership")
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="members")

    def __str__(self) -> str:
        return f"{self.user} @ {self.organization}"


class AgentQuerySet(models.QuerySet):
    def public(self, benchmark_id: int | None = None) -> AgentQuerySet:
        """Agents with an entry in a published round (of this benchmark): an agent becomes public with its
        first published entry; before that nothing of it (name, runs, votes, ratings) is shown anywhere."""
        entries = Entry.objects.filter(in_published_round(), agent=models.OuterRef("pk"))
        if benchmark_id is not None:
            entries = entries.filter(round__benchmark_id=benchmark_id)
        return self.filter(models.Exists(entries))


class Agent(models.Model):
    slug = models.CharField(max_length=100, unique=True, validators=[key_validator])
    name = models.CharField(max_length=200)
    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.SET_NULL, related_name="agents"
    )
    primary_language = models.CharField(max_length=20, blank=True, default="en")
    languages = models.JSONField(default=list, blank=True)

    objects = AgentQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("agent", args=[self.slug])


class Benchmark(models.Model):
    slug = models.CharField(max_length=100, unique=True, validators=[key_validator])
    name = models.CharField(max_length=200)
    methodology = models.CharField(max_length=20, choices=methodology_choices)
    description = models.TextField(blank=True)
    task_set_version = models.CharField(max_length=20, blank=True, default="1.0")
    pass_threshold = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="Scored benchmarks only: a run passes at this score or above (blank: 0.80, the scored "
        "methodology's own). Other methodologies have no pass threshold and keep none.",
    )
    params = models.JSONField(default=dict, blank=True, help_text="Further methodology parameters.")
    preview_hours = models.PositiveIntegerField(
        default=default_preview_hours,
        help_text="The vendor fact-check window: hours vendors see their results before a round may be "
        "published (ARTB's rule is 48, seed 000 §6). 0: no vendor window, a round is published straight from "
        "draft (a team that runs its own evals).",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(pass_threshold__isnull=True) | (Q(pass_threshold__gte=0) & Q(pass_threshold__lte=1)),
                name="benchmark_pass_threshold_0_1",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("board", args=[self.slug])

    @property
    def rules(self) -> methodologies.Methodology:
        """The benchmark's methodology as the registry holds it (tabs, headline, scale, per-run rules)."""
        return methodologies.get(self.methodology)

    @property
    def takes_votes(self) -> bool:
        """Whether the benchmark takes blind pairwise votes: its methodology's default, unless its params say
        `"votes": true` or `false`."""
        return (self.params or {}).get("votes", self.rules.votes_by_default) is True

    @property
    def pass_mark(self) -> float | None:
        """The pass threshold its boards use (`Methodology.pass_threshold`): None where the methodology has none."""
        return self.rules.pass_threshold(self.pass_threshold)


class TaskKind(models.TextChoices):
    CORE = "core"
    SAFETY = "safety"
    LOCAL_CHINA = "local-china", "local (China)"
    LOCAL_GLOBAL = "local-global", "local (global)"
    TO_SPEC = "to-spec"
    INVENT = "invent"
    STARTUP = "startup"


class Evaluation(models.TextChoices):
    AUTO = "auto"
    JUDGE = "llm-judge", "LLM judge"
    COMPOSITE = "composite"
    CHECKS = "checks"
    CHECKLIST = "checklist"
    REVIEW = "review", "reviewed outcome"


def task_in_published_round(task: str = "pk") -> Q:
    """The lookup "a published round holds this task" for a row whose task is the field `task` ("pk" for a
    Task itself, "task" for a Vote): a run of it in a published round, or its key in a published round's task
    set. A task only draft or preview rounds hold is not public (its key, title and prompt included) until one
    of them is published; its people see it on the preview pages."""
    prefix = "" if task == "pk" else f"{task}__"
    runs = Task._meta.get_field("runs").related_model.objects.filter(  # runs.Run (runs.models imports this module)
        in_published_round(), task=models.OuterRef(task)
    )
    rounds = Round.objects.published().filter(benchmark=models.OuterRef(f"{prefix}benchmark"))
    rounds = rounds.filter(_task_set_holds(models.OuterRef(f"{prefix}key")))
    return Q(models.Exists(runs)) | Q(models.Exists(rounds))


def _task_set_holds(key: models.OuterRef) -> Q:
    """A round's frozen task set (`task_keys`, a JSON list of keys) holds `key`. PostgreSQL tests JSON
    containment (indexable); SQLite, the embedded default, has no JSON containment, so there the stored JSON text
    is searched for the quoted key (task keys are slugs, `key_validator`, so a key never needs escaping and
    a quoted key matches a whole element only)."""
    if connection.features.supports_json_field_contains:
        return Q(task_keys__contains=JSONArray(key))
    quoted = Concat(models.Value('"'), key, models.Value('"'), output_field=models.TextField())
    return Q(models.lookups.Contains(Cast("task_keys", models.TextField()), quoted))


class TaskQuerySet(models.QuerySet):
    def public(self) -> TaskQuerySet:
        """Tasks a published round holds (`task_in_published_round`)."""
        return self.filter(task_in_published_round())


def row_attributes(model: type[models.Model]) -> tuple[str, ...]:
    """A model's stored fields less its primary key and the fields that name the row (its `NAMED_BY`): what may
    change while the row stays the same row. Read from the model, so a field added later is among them."""
    named_by = {model._meta.pk.name, *getattr(model, "NAMED_BY", ())}
    return tuple(f.name for f in model._meta.concrete_fields if f.name not in named_by)


class Task(models.Model):
    """A task of a benchmark. Its wording lives in `TaskVersion`s; `version` is the current one."""

    NAMED_BY = ("benchmark", "key")

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="tasks")
    key = models.CharField(max_length=100, validators=[key_validator])
    title = models.CharField(max_length=300, blank=True)
    kind = models.CharField(max_length=20, choices=TaskKind.choices, default=TaskKind.CORE)
    version = models.CharField(max_length=20, default="1.0", validators=[version_validator])
    dimensions = models.JSONField(default=list, blank=True)
    domain = models.CharField(max_length=100, blank=True)
    family = models.CharField(
        max_length=100,
        blank=True,
        help_text="Tasks made together (one scenario, fixture or batch): the intervals resample them together.",
    )
    difficulty = models.CharField(max_length=50, blank=True)
    evaluation = models.CharField(max_length=20, choices=Evaluation.choices, blank=True)
    time_limit_min = models.FloatField(
        null=True, blank=True, help_text="Minutes. Blank: the methodology's own default."
    )
    token_budget = models.BigIntegerField(null=True, blank=True)
    human_minutes = models.FloatField(null=True, blank=True)
    tags = models.JSONField(default=list, blank=True)
    position = models.PositiveIntegerField(default=0)

    objects = TaskQuerySet.as_manager()

    class Meta:
        ordering = ["benchmark", "position", "key"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "key"], name="task_key_unique_in_benchmark"),
            models.CheckConstraint(condition=Q(kind__in=[k.value for k in TaskKind]), name="task_kind_valid"),
            models.CheckConstraint(
                condition=Q(time_limit_min__isnull=True) | Q(time_limit_min__gte=0), name="task_time_limit_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(token_budget__isnull=True) | Q(token_budget__gte=0), name="task_token_budget_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return self.title or self.key

    def get_absolute_url(self) -> str:
        return reverse("task", args=[self.benchmark.slug, self.key])

    @property
    def current_version(self) -> TaskVersion | None:
        return self.versions.filter(version=self.version).first()


class TaskVersion(models.Model):
    """One wording of a task. Once `published_at` is set, prompt and criteria are never edited in place: a
    change is a new version (a major bump for a changed prompt or criterion)."""

    NAMED_BY = ("task", "version")
    # What a published version never changes in place (seed 000 §9; seed 004: "not rewritten after a run looks
    # hard").
    WORDING = ("prompt", "criteria", "parameters", "interruption")

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="versions")
    version = models.CharField(max_length=20, validators=[version_validator])
    prompt = models.TextField(blank=True)
    parameters = models.JSONField(default=list, blank=True, help_text="Names of the round parameters.")
    interruption = models.TextField(blank=True)
    evidence = models.JSONField(default=list, blank=True, help_text="Evidence to capture.")
    scenarios = models.JSONField(
        default=list,
        blank=True,
        help_text='What a voter should try in both apps, e.g. "sign up, send a message, find it after reload".',
    )
    criteria = models.JSONField(default=dict, blank=True, help_text='{"pass": [...], "partial": [...], "fail": [...]}')
    observes_later_effects = models.BooleanField(default=False)
    published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    change_note = models.TextField(blank=True)
    fingerprint = models.CharField(max_length=64, blank=True, help_text="sha256 of the task as its benchmark wrote it.")

    class Meta:
        ordering = ["task", "created_at", "version"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version"], name="task_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.task.key} v{self.version}"

    @property
    def major(self) -> int:
        return major(self.version)

    def frozen_changes(self, values: Mapping[str, Any]) -> list[str]:
        """The fields of `values` (new values by field name) the database's guard refuses to write over this
        row: once published, its wording, and its publication (it stays published). The guard is a PostgreSQL
        trigger (migration 0004); this is its rule read before a write, so a writer can refuse with a reason."""
        if self.published_at is None:
            return []
        frozen = [f for f in self.WORDING if f in values and values[f] != getattr(self, f)]
        if "published_at" in values and values["published_at"] is None:
            frozen.append("published_at")
        return frozen


class RoundStatus(models.TextChoices):
    DRAFT = "draft"
    PREVIEW = "preview"
    PUBLISHED = "published"


class RoundQuerySet(models.QuerySet):
    def published(self) -> RoundQuerySet:
        return self.filter(status=RoundStatus.PUBLISHED)

    def newest_first(self) -> RoundQuerySet:
        """Newest first: by start date (a round without one by its publication's date), then publication, then
        key; a round with neither date last on every database (PostgreSQL would put it first). Stated on each
        query, because a query with counts (GROUP BY) does not use the model's default order."""
        dated = Coalesce("starts_on", Cast("published_at", models.DateField()))
        return self.order_by(dated.desc(nulls_last=True), models.F("published_at").desc(nulls_last=True), "-key")


def in_published_round(prefix: str = "round") -> Q:
    """The lookup "belongs to a published round" for a model related to Round through `prefix` (an Entry's
    "round", a Verdict's "run__round"): the one definition of published for every query that needs it."""
    return Q(**{f"{prefix}__status": RoundStatus.PUBLISHED})


class Round(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="rounds")
    key = models.CharField(max_length=100, validators=[key_validator])
    name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=20, choices=RoundStatus.choices, default=RoundStatus.DRAFT)
    task_set_version = models.CharField(max_length=20, blank=True, default="1.0")
    starts_on = models.DateField(null=True, blank=True, help_text="Week start for weekly tables.")
    preview_started_at = models.DateTimeField(null=True, blank=True)
    published_at = models.DateTimeField(null=True, blank=True)
    task_keys = models.JSONField(
        default=list,
        blank=True,
        help_text="The round's task set (task keys). Empty: the tasks with any run in the round, frozen into "
        "this list when the round is published, so a task added later never changes its boards.",
    )

    objects = RoundQuerySet.as_manager()

    class Meta:
        ordering = ["benchmark", "-starts_on", "-published_at", "-key"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "key"], name="round_key_unique_in_benchmark"),
            models.CheckConstraint(condition=Q(status__in=[s.value for s in RoundStatus]), name="round_status_valid"),
            models.CheckConstraint(
                condition=~Q(status="published") | Q(published_at__isnull=False), name="round_published_has_date"
            ),
        ]

    def __str__(self) -> str:
        # The benchmark's name as written ("Agent Real-Task Bench Round 3"): admin messages and titles say it.
        return f"{self.benchmark.name} {self.name or self.key}"

    def get_absolute_url(self) -> str:
        return reverse("board_round", args=[self.benchmark.slug, self.key])

    @property
    def is_published(self) -> bool:
        return self.status == RoundStatus.PUBLISHED

    def task_set(self) -> set[str]:
        """The round's task set (task keys): its frozen `task_keys`, else the tasks with any run in it
        (`scoring.bundle.round_task_keys`, the set every board of the round is over)."""
        return set(self.task_keys or self.runs.values_list("task__key", flat=True))

    def task_set_freeze(self) -> None:
        """A published round without a task set gets the tasks with any run in it, once: from then on a task
        added to the benchmark (or a run of another task) never changes this round's boards."""
        if self.status != RoundStatus.PUBLISHED or self.task_keys:
            return
        keys = self.task_set()
        self.task_keys = list(
            self.benchmark.tasks.filter(key__in=keys).order_by("position", "key").values_list("key", flat=True)
        )
        self.save(update_fields=["task_keys"])


class Tier(models.TextChoices):
    """Who stands behind an entry's results: the benchmark team, or a submission (self-reported, verified by
    an editor, or flagged). Written only by the submission service."""

    TEAM = tiers.TEAM
    SELF_REPORTED = tiers.SELF_REPORTED
    VERIFIED = tiers.VERIFIED
    FLAGGED = tiers.FLAGGED


class Entry(models.Model):
    """An agent entered in a round, with the conditions it was tested under."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="entries")
    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="entries")
    product_version = models.CharField(max_length=200, blank=True)
    plan = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=200, blank=True)
    network = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200, blank=True)
    cli = models.CharField(max_length=200, blank=True)
    tier = models.CharField(max_length=20, choices=Tier.choices, default=Tier.TEAM)

    class Meta:
        ordering = ["round", "agent__name"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["round", "agent"], name="entry_agent_once_per_round"),
        ]

    def __str__(self) -> str:
        return f"{self.agent} in {self.round}"


class RoundParameter(models.Model):
    """A parameter value of a task in a round (a city, a product, a phone number). Private until the round
    is published: nothing public reads this table for an unpublished round."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="parameters")
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="round_parameters")
    name = models.CharField(max_length=100)
    value = models.TextField()

    class Meta:
        ordering = ["round", "task", "name"]
        constraints = [
            models.UniqueConstraint(fields=["round", "task", "name"], name="round_parameter_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.task.key}.{self.name}"


class ChangelogEntry(models.Model):
    """A correction after publication: what changed, why, who and when."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="changelog")
    run = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="changelog")
    what = models.TextField()
    why = models.TextField(blank=True)
    who = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    who_role = models.CharField(max_length=50, blank=True, help_text="The role shown publicly, e.g. editor.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "changelog entries"

    def __str__(self) -> str:
        return self.what[:80]


PLACEHOLDER = re.compile(r"\{([^{}\s]+)\}")


def fill_prompt(prompt: str, values: Mapping[str, str]) -> str:
    """The prompt with a round's parameter values in its {placeholders} (names may hold '-', as in
    {city-name}), in one pass, so a value that itself holds braces is never filled again; a placeholder with
    no value stays as written. The one rule for the run page, the task page and the API."""
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), prompt)


def task_input(task: Task) -> TaskInput:
    """A task as the pure scoring code sees it (`scoring.types.TaskInput`)."""
    return TaskInput(
        key=task.key,
        title=task.title,
        kind=task.kind,
        version=task.version,
        dimensions=tuple(task.dimensions or ()),
        domain=task.domain or None,
        family=task.family or None,
        evaluation=task.evaluation or None,
        time_limit_min=task.time_limit_min,
        token_budget=task.token_budget,
    )


class ApiKey(models.Model):
    """A benchmark team's key to the upload API, or with `organization` an organization's submission key (it may
    only submit): scoped to one benchmark, stored as a SHA-256 digest (the key itself is shown once, when it is
    made), revocable, with its last use kept. Written by `leaderboard.api_keys`."""

    name = models.CharField(max_length=100, help_text="Who or what uses it, e.g. the team's CI.")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="api_keys")
    organization = models.ForeignKey(
        Organization,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="api_keys",
        help_text="Set: the organization's submission key (it may only submit). Empty: the benchmark team's key.",
    )
    prefix = models.CharField(max_length=16, editable=False, help_text="The key's first characters, to recognise it.")
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, editable=False
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["benchmark", "-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
