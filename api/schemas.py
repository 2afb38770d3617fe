"""Response shapes of the read API (api). Every response is typed so the OpenAPI schema says
exactly what a client gets, and schemathesis can check responses against it. Computed board and rating data
is free-form JSON inside a typed envelope: its shape belongs to each methodology in `scoring/`.

Nothing here carries a user: verdicts show the reviewer's role, never who; disputes show no filer.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from ninja import Field, Schema


class ErrorOut(Schema):
    detail: str
    errors: list[dict[str, Any]] | None = None


# --- catalogue --------------------------------------------------------------------------------------------------


class RoundSummaryOut(Schema):
    key: str
    name: str
    status: str
    task_set_version: str
    starts_on: date | None
    published_at: datetime | None
    entry_count: int
    run_count: int


class BenchmarkOut(Schema):
    slug: str
    name: str
    methodology: str
    description: str
    task_set_version: str
    pass_threshold: float | None = Field(
        None,
        description="Scored benchmarks only: a run passes at this score or above (002: 0.80 unless the benchmark "
        "says otherwise). Absent on methodologies that have no pass threshold.",
    )
    params: dict[str, Any]
    latest_round: str | None


class BenchmarkDetailOut(BenchmarkOut):
    rounds: list[RoundSummaryOut]
    tasks: int


class EntryOut(Schema):
    agent: str
    agent_name: str
    product_version: str
    plan: str
    region: str
    network: str
    model: str
    cli: str


class ChangelogOut(Schema):
    what: str
    why: str
    who: str
    at: datetime


class RoundDetailOut(RoundSummaryOut):
    benchmark: str
    entries: list[EntryOut]
    parameters: dict[str, dict[str, str]]
    changelog: list[ChangelogOut]


class SnapshotOut(Schema):
    """A computed snapshot. `data` is null until the first computation; `stale` means a recompute is queued
    (poll again); `version` is bumped on every content change."""

    benchmark: str
    stale: bool
    computed_at: datetime | None
    version: int
    data: dict[str, Any] | None


class BoardOut(SnapshotOut):
    round: str


class SeedWordsOut(Schema):
    seed: str  # the seed's number (000, 002, 003, 004)
    text: str  # its words, quoted exactly


class FigureOut(Schema):
    rank: int | None
    score: float | None
    low: float | None
    high: float | None


class MoveOut(Schema):
    agent: str
    name: str
    site: FigureOut | None  # as this site's reading has it
    other: FigureOut | None  # under the other reading


class ReadingChangeOut(Schema):
    board: str  # "overall", a tab's board, or "tasks/<task>"
    label: str
    sentences: list[str]  # each move in plain words
    moves: list[MoveOut]


class SiteReadingOut(Schema):
    value: str
    says: str


class OtherReadingOut(SiteReadingOut):
    changes: list[ReadingChangeOut]  # what moves under it, board by board; empty: nothing


class QuestionOut(Schema):
    id: str
    title: str
    words: list[SeedWordsOut]
    site: SiteReadingOut
    alternatives: list[OtherReadingOut]


class TakenReadingOut(Schema):
    id: str
    value: str
    says: str


class TogetherOut(Schema):
    readings: list[TakenReadingOut]
    changes: list[ReadingChangeOut]


class RangeAgentOut(Schema):
    agent: str
    name: str
    low: int
    high: int


class RankRangeOut(Schema):
    board: str
    label: str
    agents: list[RangeAgentOut]


class ReadingsOut(Schema):
    """A round's boards under every reading of its methodology's open questions (docs/readings.md). `computed` is
    false until the round's boards are first computed; `stale` as on the board."""

    benchmark: str
    round: str
    stale: bool
    computed: bool
    questions: list[QuestionOut]
    together: TogetherOut | None
    ranges: list[RankRangeOut]


# --- tasks ------------------------------------------------------------------------------------------------------


class TaskVersionOut(Schema):
    version: str
    published_at: datetime | None
    change_note: str


class TaskOut(Schema):
    key: str
    title: str
    kind: str
    version: str
    dimensions: list[str]
    domain: str
    difficulty: str
    evaluation: str
    time_limit_min: float | None = Field(
        description="The run's time limit in minutes: the task's own, else its methodology's (scored: 300 seconds; "
        "outcomes: 30 minutes; weekly: the 30-minute cap of every task; checks: none, every task states it)."
    )
    time_limit_source: str = Field(
        description='Where the time limit comes from: "task" (the task states it), "default" (the methodology\'s '
        'default), "cap" (the methodology\'s cap, the same for every task), "" (none).'
    )
    token_budget: int | None = Field(
        None, description="Checks benchmarks only: the run's token budget. Absent on other methodologies."
    )
    human_minutes: float | None
    tags: list[str]
    prompt: str
    parameters: list[str]
    criteria: dict[str, Any]
    evidence: list[str] = Field(
        description="The evidence captured for every run of the task, as its current version lists it (000 §2: "
        '"captured as listed in the task\'s evidence field"); empty when it lists none.'
    )


class TaskRoundOut(Schema):
    """A published round's parameter values for the task, and its prompt with them filled in."""

    round: str
    task_version: str
    parameters: dict[str, str]
    prompt: str


class TaskDetailOut(TaskOut):
    versions: list[TaskVersionOut]
    rounds: list[TaskRoundOut]


# --- runs -------------------------------------------------------------------------------------------------------


class VerdictOut(Schema):
    role: str
    outcome: str
    matched: list[str]
    note: str
    at: datetime


class StandingOut(Schema):
    standing: str = Field(
        description="counts, replaced, over_limit, in_review, not_scored or not_in_round, as the round's boards "
        "decided it; updating when they were computed before the run existed"
    )
    why: str | None = Field(description="why it does not count, in words; null when it counts")
    replaced_by: str | None = Field(description="the run that counts in its place (a later trial, or its re-run)")
    stands: bool = Field(description="it stands for its agent on its task: the counted run, best trial or median run")
    outcome: str | None = Field(description="its outcome by the board's rule; null in review, not scored, or on scores")
    points: int | None = Field(description="the points it adds to its board (outcome boards, when it counts)")
    score: float | None = Field(description="its score on the benchmark's scale (scored 0-1, checks 0-100)")
    board: str | None = Field(None, description="the board that reads it, where there are several (outcomes)")
    seconds: float | None = Field(
        None,
        description="its time as published: the recorded wall time, stopped at the methodology's cap where it has "
        "one (weekly: 30 minutes, a timed-out run at the cap); null when none is known",
    )
    marks: list[str] = Field(
        [],
        description="what is shown next to its result: heuristic (the score rests on the heuristic fallback), "
        "other_language (reported apart from the main score), violation, capped (its time stopped at the cap)",
    )


class RunOut(Schema):
    key: str
    round: str
    agent: str
    task: str
    task_version: str
    trial: int
    language: str
    status: str
    outcome: str = Field(description="the outcome the board counts it with ('' in review, not scored, or on scores)")
    label: str = Field(description="the outcome label it was stored with ('' while its review is under way)")
    rerun_of: str | None
    standing: StandingOut
    counts: bool = Field(description="whether the boards count it (standing.standing is counts)")
    why_not_counted: str | None = Field(description="why the boards leave it out, in words; null when it counts")
    score: float | None
    auto_pass_rate: float | None
    tests_passed: int | None
    tests_total: int | None
    judge_scores: list[Any]
    heuristic: float | None
    app_started: bool | None
    api_checks_passed: int | None
    api_checks_total: int | None
    browser_steps_passed: int | None
    browser_steps_total: int | None
    tokens_input: int | None
    tokens_output: int | None
    tokens_cache_write: int | None
    cost_usd: float | None
    plan_label: str
    wall_seconds: float | None
    first_output_seconds: float | None
    steps: int | None
    interventions: int | None
    checks_version: str
    judge_model: str | None = Field(
        None,
        description='Scored benchmarks only: the model that judged the run (002: "an LLM evaluator (Claude Sonnet '
        'by default)"); null when the run does not record it. Absent on other methodologies.',
    )
    execution_mode: str | None = Field(
        None,
        description='Scored benchmarks only: "docker", or "local" (002: "Local mode (fallback) ... Results may vary '
        'based on the host environment"); null when the run does not record it. Absent on other methodologies.',
    )
    started_at: datetime | None
    due_at: datetime | None
    verdicts: list[VerdictOut]


class EvidenceOut(Schema):
    kind: str
    url: str
    caption: str


class CheckOut(Schema):
    position: int
    kind: str
    name: str
    passed: bool
    detail: str


class DisputeOut(Schema):
    reason: str
    note: str
    status: str
    filed_at: datetime
    decided_at: datetime | None
    decision_note: str


class RunDetailOut(RunOut):
    as_ran: list[AsRanOut] = Field(
        description="a submitted run whose submission declared another model or user simulator: what ran, beside "
        "what was declared (see the submission); else empty"
    )
    prompt: str
    parameters: dict[str, str]
    evidence_lacking: list[str] = Field(
        description="The items of its task version's evidence list the run has no evidence for (an item is held "
        "by evidence captioned with it, or of the kind it names alone); empty when it lacks none, when the task "
        "lists none, or when the run never ran the task (infra error, region blocked, unsupported, not started)"
    )
    rerun: str | None
    evidence: list[EvidenceOut]
    checks: list[CheckOut]
    disputes: list[DisputeOut]


class RunPageOut(Schema):
    count: int
    page: int
    page_size: int
    pages: int
    items: list[RunOut]


# --- agents -----------------------------------------------------------------------------------------------------


class AgentOut(Schema):
    slug: str
    name: str
    organization: str | None
    primary_language: str
    languages: list[str]


class AgentEntryOut(Schema):
    benchmark: str
    round: str
    published_at: datetime | None
    product_version: str
    plan: str
    region: str
    network: str
    model: str
    cli: str


class AgentDetailOut(AgentOut):
    entries: list[AgentEntryOut]


# --- the bundle -------------------------------------------------------------------------------------------------


class BundleOut(Schema):
    """The public bundle (the format of DESIGN.md): published rounds only, no identities beyond roles."""

    format: str
    benchmark: dict[str, Any]
    agents: list[dict[str, Any]]
    tasks: list[dict[str, Any]]
    rounds: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    votes: list[dict[str, Any]]


# --- uploads ------------------------------------------------------------------------------------------------------


class UploadOut(Schema):
    benchmark: str
    rounds: list[str]
    created: dict[str, int] = Field(description="rows created, per kind (runs, tasks, entries...)")
    updated: dict[str, int] = Field(description="rows whose values changed, per kind")


class UploadErrorOut(Schema):
    detail: str
    problems: list[str] = Field(default=[], description="every problem, each with its path or its log and sample")
    errors: list[dict[str, Any]] | None = None


# --- submissions -------------------------------------------------------------------------------------------------


class SubmissionCheckOut(Schema):
    name: str
    passed: bool
    detail: str = Field(description="the reason, in words")
    kind: str = Field(
        description="protocol (a failure blocks verifying) or disclosure (a failure is verified only with an "
        "editor's note acknowledging it)"
    )


class AsRanOut(Schema):
    what: str = Field(description='"model" or "user simulator"')
    ran: str = Field(description="what the runs ran ('' when they do not say): what the boards show")
    declared: str = Field(description="what the submission declared ('' when it declared none)")


class SubmissionFigureOut(Schema):
    name: str = Field(
        description='the figure, e.g. "airline pass^1" or "airline cost" (τ²-bench: by family), "accuracy", '
        '"accuracy stderr", "pass^2" or "any-of-2" (Terminal-Bench: any-of-k, at least one of k trials drawn '
        "resolved, is what its harness writes as pass_at_k; pass@k on this site is seed 002's share of an agent's "
        "trials of a task that pass, another figure)"
    )
    claimed: float | None = Field(
        description="as claimed, in the claim's own unit (percent for τ²'s pass^k, USD for cost, a share for "
        "accuracy); null: recomputed only, not claimed (it agrees with nothing)"
    )
    recomputed: float | None = Field(description="from the submission's stored runs; null: no runs behind it")
    agrees: bool | None = Field(description="within the claim's rounding; null: not verifiable (never agreeing)")


class SubmissionOut(Schema):
    id: int
    agent: str
    organization: str
    round: str
    status: str = Field(description="live, superseded or withdrawn")
    format: str = Field(description="a key of the format registry: tau2, bundle, inspect, tbench, ...")
    submitted_at: datetime
    tier: str = Field(description="self-reported, verified or flagged")
    url: str
    checks: list[SubmissionCheckOut]
    figures: list[SubmissionFigureOut]
    notes: list[str]
    as_ran: list[AsRanOut] = Field(
        description="where a disclosure check failed: what the runs ran, beside what was declared; else empty"
    )
    acknowledged: str = Field(
        description="the verifying editor's note acknowledging what differs from what was declared ('' until then)"
    )
    runs_sent: int | None = Field(
        description="every run the submission sent, platform failures included (null: taken before they were counted)"
    )
    platform_failures: int | None = Field(
        description="runs the submitter reported as platform failures (τ²'s infrastructure_error, a bundle's "
        "infra_error, an errored Inspect sample): left out of the score on its word, not verified"
    )
    platform_failures_said: str = Field(
        description="'N of M runs reported as platform failures by the submitter; left out of the score, not "
        "verified' ('' when not counted)"
    )
