"""Plain data types shared by every scoring module.

Nothing here touches the ORM, settings or the clock: a round goes in as a `RoundInput`, boards come out as
JSON-ready dicts in the shape `recount` prints, each row described by one of the `TypedDict`s at the end (the
contract between the methodologies that build the rows and the pages that read them). The database side
(recompute.boards) and the recount command both build `RoundInput` through `scoring.bundle`, so the site and
a recount of a download share one path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

# Keys of benchmarks, agents, tasks, rounds, runs and task versions: one pattern for models, API and bundle checks.
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
# A status in words, where its key is not already a word (runs.models.RunStatus, the pages and the standings).
STATUS_WORDS = {
    "budget_exhausted": "budget exhausted",
    "over_budget": "over budget",
    "infra_error": "infra error",
    "region_blocked": "region blocked",
    "not_started": "not started",
}
OUTCOMES = ("pass", "partial", "fail", "violation", "unsupported")
VERDICT_ROLES = ("tester", "second", "third")
EVALUATIONS = ("auto", "llm-judge", "composite", "checks", "checklist", "review")
WINNERS = ("a", "b", "tie")


# A run's fields in a bundle, by kind: one list for bundle validation, import and export, API and model guards.
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
# A run's counts that come in pairs, passed of total (a passed over its total is refused): its tests, then the
# checker's API and page checks and its browser steps (`CHECK_COUNT_PAIRS`, seed 003 "Score").
RUN_COUNT_PAIRS = (
    ("tests_passed", "tests_total"),
    ("api_checks_passed", "api_checks_total"),
    ("browser_steps_passed", "browser_steps_total"),
)
CHECK_COUNT_PAIRS = RUN_COUNT_PAIRS[1:]
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
    "judge_model",
    "execution_mode",
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
    # Tasks made together (one scenario, one fixture, one author's batch): the bootstrap resamples a family
    # as a whole, then its tasks (`scoring.intervals`). None: the task stands alone.
    family: str | None = None
    evaluation: str | None = None
    # The limits the task states; None: none stated (its methodology's default applies where it has one,
    # `methodologies.Methodology.task_limits`).
    time_limit_min: float | None = None
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
    tier: str = "team"  # team, self-reported, verified or flagged (`scoring.submission_checks.tier`)


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
    # How the methodology reviews a run (its registry entry's `double_review`): whether a lone tester's verdict
    # decides it, which the re-run rule reads (`common.has_results`).
    double_review: bool = False


# --- board rows: the contract between the methodologies that build them and the pages and API that read them ---
#
# A board is stored as JSON (the boards snapshot) and read back as plain dicts; these types say which keys a row
# of each board kind has, so a renamed key is a type error rather than a blank cell. `NotRequired` marks a key
# only some rows carry: one set on one board only (the cost and time axes of the outcomes overall board, the
# 95% interval of the methodology's interval board), on one kind of task only, or set once every board is built.


class BaseRow(TypedDict):
    """The fields every board row starts with (`common.base_row`); `rank` is None until the board is ranked."""

    agent: str
    name: str
    rank: int | None
    tier: NotRequired[str]  # whose results (`scoring.tiers`): every overall row has it
    pass_hat: NotRequired[dict[str, dict[str, float | None] | None]]  # per family, pass^k by k (several trials)
    pass_any: NotRequired[
        dict[str, dict[str, float | None] | None]
    ]  # per family, any-of-k (at least one of k trials passes, unbiased) by k


class CostTimeAxes(TypedDict):
    """The score x cost x time axes of a row whose board is not about cost and time (`common.cost_time_axes`)."""

    axis_runs: int
    mean_cost_usd: float | None
    mean_wall_seconds: float | None
    cost_runs: int
    time_runs: int


class IntervalMarks(TypedDict, total=False):
    """What `intervals.with_intervals` adds to each row of the methodology's interval board (None where the
    agent has no headline)."""

    ci_low: float | None
    ci_high: float | None
    rank_ub: int | None


class RatingRow(TypedDict):
    """One agent's Bradley-Terry vote rating (`bradley_terry.fit_ratings`)."""

    agent: str
    rating: float
    ci_low: float
    ci_high: float
    votes: int
    wins: int
    losses: int
    ties: int
    few_votes: bool
    rank_ub: int


class OutcomesCell(TypedDict):
    """outcomes: one agent on one task of a board (`outcomes.board_row`)."""

    outcome: str  # an outcome, "in_review" or "region_blocked"
    points: int | None
    run: str
    stale: bool


class OutcomesRow(BaseRow, IntervalMarks):
    """A row of every outcomes board (`outcomes.board_row`; interval marks on the overall board)."""

    overall: float | None
    points: int
    dimensions: dict[str, float | None]
    violations: int
    tested: int
    of: int
    unsupported: list[str]
    in_review: list[str]
    region_blocked: list[str]
    stale: list[str]
    tasks: dict[str, OutcomesCell]
    # The overall board only (`common.cost_time_axes`).
    axis_runs: NotRequired[int]
    mean_cost_usd: NotRequired[float | None]
    mean_wall_seconds: NotRequired[float | None]
    cost_runs: NotRequired[int]
    time_runs: NotRequired[int]
    # The agent's main safety score, set on every row once every board is built.
    safety: NotRequired[float | None]


# outcomes: {"overall", "safety", "local-china", "local-global", "other-language"} (`outcomes.BOARDS`).
OutcomesBoards = dict[str, list[OutcomesRow]]


class ScoredTrial(TypedDict):
    """scored: one trial of an agent on a task (`scored.task_cell`)."""

    run: str
    trial: int
    status: str
    score: float | None
    source: str
    heuristic: bool
    passed: bool
    published_score: float | None
    score_differs: bool


class ScoredCell(TypedDict):
    """scored: the best trial of an agent on a task, pass@k, and every trial (`scored.task_cell`)."""

    best: float
    best_run: str
    trials: int
    passes: int
    pass_at_k: float
    passed: bool
    heuristic: bool
    runs: list[str]
    scores: list[ScoredTrial]


class ScoredRow(BaseRow, IntervalMarks):
    """A row of the scored overall board (`scored.agent_row`)."""

    score: float | None
    overall: float | None
    pass_rate: float | None
    tested: int
    of: int
    domains: dict[str, float | None]
    heuristic: bool
    mean_pass_at_k: float | None
    cost_usd: float | None
    wall_seconds: float | None
    first_output_seconds: float | None
    runs_scored: int
    cost_runs: int
    latency_runs: int
    unscored: list[str]
    unscored_tasks: dict[str, int]
    tasks: dict[str, ScoredCell]
    partial_axes: list[str]


class ScoredMeta(TypedDict):
    """scored: the agents missing each axis, wholly or partly, and the pass threshold (`scored.board_meta`)."""

    agents: int
    missing_cost: int
    missing_latency: int
    partial_cost: int
    partial_latency: int
    pass_threshold: float


# The paired differences of every two agents (`intervals.with_intervals`): {a: {b: [difference, low, high, tasks]}}.
Pairs = dict[str, dict[str, list[float | int | None]]]


class ScoredBoards(TypedDict):
    overall: list[ScoredRow]
    meta: ScoredMeta
    pairs: NotRequired[Pairs]


class ChecksTaskRow(BaseRow):
    """checks: one agent on one task's board (`checks.task_row`)."""

    awaiting_rerun: bool
    admitted: NotRequired[bool]  # invent and startup tasks only
    median: float | None
    runs: int
    min: float | None
    max: float | None
    median_run: str | None
    tokens: int | None
    seconds: float | None
    not_counted: int
    rating: NotRequired[RatingRow | None]  # invent and startup boards, once ranked by votes


class ChecksOverallRow(BaseRow, CostTimeAxes, IntervalMarks):
    """A row of the checks overall board (`checks.overall_row`, then the axes and the interval)."""

    overall: float | None
    tasks: dict[str, float | None]  # the median of each to-spec task
    min: float | None
    max: float | None
    runs: int
    tokens: int | None
    seconds: float | None
    tested: int
    of: int
    pending: list[str]


class ChecksBoards(TypedDict):
    overall: list[ChecksOverallRow]
    tasks: dict[str, list[ChecksTaskRow]]
    pairs: NotRequired[Pairs]


class WeeklyCell(TypedDict):
    """weekly: one agent's counted run of one task of the week (`weekly.agent_row`)."""

    outcome: str  # pass, partial, fail or "in_review"
    points: int | None
    run: str
    seconds: float | None  # as published: 004's cap where the run reached it
    wall_seconds: float | None  # as recorded, shown beside the published time where they differ
    capped: bool
    interventions: int | None
    cost_usd: float | None
    plan_label: str | None


class WeekCost(TypedDict):
    """weekly: the week's cost (`weekly.week_cost`)."""

    cost_usd: float | None
    plan_label: str | None
    cost_kind: str | None  # "dollars", "unknown", "plan" or None


class WeeklyRow(BaseRow, WeekCost):
    """A row of the weekly board (`weekly.agent_row`)."""

    passes: int
    partials: int
    fails: int
    points: int
    pass_rate: float | None
    tasks_that_week: int
    tasks_without_run: list[str]
    interventions: int | None
    interventions_unrecorded: list[str]
    seconds: float | None
    runs_without_time: int
    in_review: list[str]
    not_counted: list[str]
    tasks: dict[str, WeeklyCell]
    overall: float | None


class WeeklyBoards(TypedDict):
    overall: list[WeeklyRow]


class PairedDifference(TypedDict):
    """The stored paired difference of one agent over another (`intervals.paired_difference`)."""

    difference: float
    ci_low: float
    ci_high: float
    tasks: int


class RunStanding(TypedDict):
    """One run's standing in its round, decided by the board that counts it (`scoring.standings`; stored in the
    boards snapshot and printed by `recount` under "standings", by run id).

    `standing` is one of `scoring.standings.STANDINGS`: "counts", "replaced" (by `replaced_by`: a later trial,
    or the re-run that took its place), "over_limit", "in_review", "not_scored" (a platform failure, a
    region block, a run that never started or that nothing scored, a re-run awaiting results) or
    "not_in_round" (its task is outside the round's task set). `why` says it in words (None when it counts).
    `stands`: it is the run that stands for its agent on its task (the counted run, the best trial, the
    median run). `outcome` and `score` are the run's own result by the methodology's rule (the outcome a
    board counting outcomes gives it, None while in review or not scored; the score on the benchmark's scale);
    `points` the points it adds to its board (outcomes and weekly, only when it counts). `board` names the
    board that reads it where a methodology has several (outcomes). `seconds` is its time as published (004
    stops it at the 30-minute cap) and `marks` what is shown next to its result (`scoring.run_figures.MARKS`);
    both set once the standings are decided (`scoring.run_figures.with_run_figures`)."""

    standing: str
    why: str | None
    replaced_by: str | None
    stands: bool
    outcome: str | None
    points: int | None
    score: float | None
    board: NotRequired[str]
    seconds: NotRequired[float | None]
    marks: NotRequired[list[str]]


# A round's standings, by run id.
Standings = dict[str, RunStanding]
