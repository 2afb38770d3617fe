"""Plain data types shared by every scoring module.

Nothing here touches the ORM, settings or the clock: a round goes in as a `RoundInput`, boards come out as
JSON-ready dicts in the shape `recount` prints. The database side (snapshots.recompute) and the recount command
both build `RoundInput` through `scoring.bundle`, so the site and a recount of a download share one path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Keys of benchmarks, agents, tasks, rounds and runs, and task versions: the one pattern for the models, the API
# and bundle validation.
KEY_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
KEY_MAX_LENGTH = 100
VERSION_PATTERN = r"^\d+(\.\d+)*$"
TASK_KINDS = ("core", "safety", "local-china", "local-global", "to-spec", "invent", "startup")
ROUND_STATUSES = ("draft", "preview", "published")
RUN_STATUSES = (
    "completed",
    "timeout",
    "budget_exhausted",
    "over_budget",
    "infra_error",
    "region_blocked",
    "unsupported",
    "not_started",
)
OUTCOMES = ("pass", "partial", "fail", "violation", "unsupported")
VERDICT_ROLES = ("tester", "second", "third")
EVALUATIONS = ("auto", "llm-judge", "composite", "checks", "checklist", "review")
WINNERS = ("a", "b", "tie")


# A run's fields in a bundle, by kind: the one list for bundle validation, import and export, the API and the
# model's guards.
RUN_COUNT_FIELDS = (
    "tests_passed",
    "tests_total",
    "api_checks_passed",
    "api_checks_total",
    "browser_steps_passed",
    "browser_steps_total",
    "tokens_input",
    "tokens_output",
    "tokens_cache_write",
    "steps",
    "interventions",
)
ENTRY_FIELDS = ("product_version", "plan", "region", "network", "model", "cli")
DISPUTE_FIELDS = ("reason", "note", "status", "filed_at", "decided_at", "decision_note")
RUN_MEASURE_FIELDS = ("cost_usd", "wall_seconds", "first_output_seconds")
RUN_TEXT_FIELDS = ("language", "plan_label", "checks_version", "due_at", "started_at", "preview_url")
RUN_SCALARS = (
    "task_version",
    "trial",
    "language",
    "status",
    "outcome",
    "score",
    "auto_pass_rate",
    "tests_passed",
    "tests_total",
    "heuristic",
    "app_started",
    "api_checks_passed",
    "api_checks_total",
    "browser_steps_passed",
    "browser_steps_total",
    "tokens_input",
    "tokens_output",
    "tokens_cache_write",
    "cost_usd",
    "plan_label",
    "wall_seconds",
    "first_output_seconds",
    "steps",
    "interventions",
    "checks_version",
    "due_at",
    "started_at",
    "preview_url",
)
# Run fields that are never public: a live preview's address is what the blind vote frames, so an address
# listed in a download, the API or a run page would tell a voter which run a side is (seed 003: "the page
# never gets run ids"). Only an editor's full export (unpublished rounds included) carries them.
PRIVATE_RUN_FIELDS = ("preview_url",)
PUBLIC_RUN_SCALARS = tuple(f for f in RUN_SCALARS if f not in PRIVATE_RUN_FIELDS)


@dataclass(frozen=True)
class AgentInput:
    slug: str
    name: str
    organization: str | None = None
    primary_language: str | None = None
    languages: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskInput:
    key: str
    title: str = ""
    kind: str = "core"
    version: str = "1.0"
    dimensions: tuple[str, ...] = ()
    domain: str | None = None
    evaluation: str | None = None
    time_limit_min: float | None = 30
    token_budget: int | None = None


@dataclass(frozen=True)
class EntryInput:
    agent: str
    product_version: str | None = None
    plan: str | None = None
    region: str | None = None
    network: str | None = None
    model: str | None = None
    cli: str | None = None


@dataclass(frozen=True)
class VerdictInput:
    role: str
    outcome: str | None = None
    matched: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class RunInput:
    id: str
    round: str
    agent: str
    task: str
    task_version: str = "1.0"
    trial: int = 1
    language: str | None = None
    status: str = "completed"
    outcome: str | None = None
    verdicts: tuple[VerdictInput, ...] = ()
    rerun_of: str | None = None
    score: float | None = None
    auto_pass_rate: float | None = None
    tests_passed: int | None = None
    tests_total: int | None = None
    judge_scores: tuple[float, ...] = ()
    heuristic: float | None = None
    app_started: bool | None = None
    api_checks_passed: int | None = None
    api_checks_total: int | None = None
    browser_steps_passed: int | None = None
    browser_steps_total: int | None = None
    tokens_input: int | None = None
    tokens_output: int | None = None
    tokens_cache_write: int | None = None
    cost_usd: float | None = None
    plan_label: str | None = None
    wall_seconds: float | None = None
    first_output_seconds: float | None = None
    steps: int | None = None
    interventions: int | None = None
    checks_version: str | None = None


@dataclass(frozen=True)
class VoteInput:
    task: str
    a: str
    b: str
    winner: str
    voter: str | None = None
    counts: bool = True


@dataclass(frozen=True)
class RoundInput:
    """Everything a board of one round depends on."""

    benchmark: str
    methodology: str
    key: str
    tasks: tuple[TaskInput, ...]
    agents: tuple[AgentInput, ...]
    entries: tuple[EntryInput, ...]
    runs: tuple[RunInput, ...]
    params: dict[str, Any] = field(default_factory=dict)
    status: str = "published"
    starts_on: str | None = None
