"""The methodology registry: one object per methodology key, holding everything the rest of the project needs
to know about it (how its boards are computed, how one run scores and counts, what stands for an agent, the
board's tabs and headline, its scale). Nothing outside `scoring/` branches on a methodology's name: it asks
this registry. Adding a methodology is one scoring module, its table builders (the site's `tables`) and one
`register(...)` here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from . import checks, limits, outcomes, scored, tradeoffs, weekly
from .common import fixed
from .intervals import IntervalRule
from .limits import TaskLimits, TimeLimitRule
from .readings import SITE, Question, Readings, questions_of
from .run_figures import FigureRules, no_heuristic, with_run_figures
from .run_setup import SCORED_SETUP, RunSetupRule
from .standings import PLATFORM_FAILURE, StandingsRule, by_run_rule
from .task_numbers import TaskNumbers, best_numbers, median_numbers, outcome_numbers
from .types import (
    ChecksOverallRow,
    OutcomesRow,
    RoundInput,
    RunInput,
    ScoredRow,
    Standings,
    TaskInput,
    WeeklyRow,
)


class BoardsRule(Protocol):
    """A methodology's boards of one round, by board name (`scoring.types`), under `readings`: the reading each of
    its open questions is taken in (`scoring.readings`; the site's by default, and a methodology without open
    questions need not take the parameter: `Methodology.boards` leaves it out)."""

    def __call__(self, round_input: RoundInput, /, *, readings: Readings = ...) -> Mapping[str, Any]: ...


def _no_score(run: RunInput, task: TaskInput) -> float | None:
    return None


def _never(task: TaskInput) -> bool:
    return False


# What a board row says on the score x cost x time axes: (score, cost, seconds, runs, runs with a cost, runs with a
# time). Boards without these axes show them as missing.
Axes = tuple[float | None, float | None, float | None, int, int, int]


def _scored_axes(row: ScoredRow) -> Axes:
    return (
        row.get("score"),
        row.get("cost_usd"),
        row.get("wall_seconds"),
        row.get("runs_scored") or 0,
        row.get("cost_runs") or 0,
        row.get("latency_runs") or 0,
    )


def _weekly_axes(row: WeeklyRow) -> Axes:
    """The week's totals, as the board shows them, over the week's tasks (one counted run each): a task without a
    run leaves the cost unknown (`weekly.week_cost`) and the time a total of fewer runs, so the time is on "n of
    the week's tasks" and partial, never a smaller total that looks faster."""
    cells = list((row.get("tasks") or {}).values())
    week = row.get("tasks_that_week") or len(cells)
    return (
        row.get("pass_rate"),
        row.get("cost_usd"),
        row.get("seconds"),
        week,
        week if row.get("cost_usd") is not None else 0,
        sum(1 for c in cells if c.get("seconds") is not None),
    )


def _run_axes(headline_key: str) -> Callable[[OutcomesRow | ChecksOverallRow], Axes]:
    """Axes of boards whose rows are not about cost and time: the means over the runs the board counts, which
    the board rows carry (`common.cost_time_axes`)."""

    def axes(row: OutcomesRow | ChecksOverallRow) -> Axes:
        headline: Mapping[str, Any] = row
        return (
            headline.get(headline_key),
            row.get("mean_cost_usd"),
            row.get("mean_wall_seconds"),
            row.get("axis_runs") or 0,
            row.get("cost_runs") or 0,
            row.get("time_runs") or 0,
        )

    return axes


def _no_reason(run: RunInput, task: TaskInput) -> str | None:
    return None


def _never_by_votes(boards: dict | None, task: str | None) -> bool:
    return False


def _no_listed_checks(run: Mapping[str, Any]) -> list[str]:
    return []


def _no_missing_limits(task: Mapping[str, Any], *, readings: Readings = SITE) -> list[tuple[str, str]]:
    return []


def _no_parts(run: RunInput, task: TaskInput) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class Methodology:
    key: str
    name: str
    # The boards of one round, by board name, as the methodology's board types (`scoring.types`) describe them,
    # under the readings of its open questions (`questions`) it is given, the site's by default.
    compute_boards: BoardsRule
    run_score: Callable[[RunInput, TaskInput], float | None]
    run_counts: Callable[[RunInput, TaskInput], bool]
    tabs: tuple[tuple[str, str], ...]
    headline_key: str
    headline_label: str
    scale: float
    format_score: Callable[[float], str]
    standing_label: str = "counted run"
    # What the benchmark's runs.csv holds on this methodology, in words, as its board's downloads describe it:
    # the columns its runs fill, and what median_run (one column name on every board) marks here.
    runs_file: str = ""
    # The outcome the boards count for one run, on methodologies whose boards count outcomes.
    run_outcome: Callable[[RunInput, TaskInput], str | None] | None = None
    violation_possible: Callable[[TaskInput], bool] | None = None
    # The board whose score an agent's violations are shown next to (000 §4: "Safety score ... Any violation is
    # shown next to the score"); None where runs have no violation.
    violations_board: str | None = None
    # Boards that take the vote ratings into their order (site, API and recount join them the same way).
    with_votes: Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]] | None = None
    # Whether the board of a task (None: the overall board) is ranked by votes, read off the round's boards: its
    # figures are then vote ratings, not the methodology's scale.
    ranked_by_votes: Callable[[dict | None, str | None], bool] = _never_by_votes
    double_review: bool = False  # every run has a tester, a blind second and, on disagreement, a third
    # The result fields of a run this methodology reads, beyond what every run has (ids, status, tokens, cost,
    # time): the admin's run form shows these and no others (bundle field names, which are the run's fields).
    run_fields: tuple[str, ...] = ()
    reviewed: bool = False  # runs are given an outcome by reviewers
    # 004 "Same conditions": "The agents in one table are run in the same week" and "The prompt is the same, word
    # for word, for every agent": the round rules of a weekly table (`scoring.round_rules`, asked by every door),
    # and its run pages show the week.
    same_week: bool = False
    votes_by_default: bool = False  # blind pairwise votes unless the benchmark's params say otherwise
    task_medians: bool = False  # the task page shows each agent's median run
    # The score x cost x time axes of a row of the methodology's overall board (of its own row type).
    tradeoff_axes: Callable[[Any], Axes] | None = None
    # Those axes are means over runs, not the board's own numbers: which runs, in words, for the trade-offs page.
    axes_runs: str = ""
    # What the cost and time axes are, as the trade-offs page names them (chart axes, table columns): a mean per
    # run, unless the board's own figures are totals; then `axes_totals` says, in words, what they total.
    axes_names: tuple[str, str] = ("cost per run", "time per run")
    axes_totals: str = ""
    # How the headline's 95% interval is bootstrapped (`scoring.intervals`); None: the board has none.
    interval: IntervalRule | None = None
    # One agent's number on each task, for the head-to-head page.
    task_numbers: Callable[[dict | None, str], TaskNumbers] = outcome_numbers
    # What a vote screen may draw, on a benchmark that takes votes (`votes_by_default` or its params' "votes"):
    # runs whose status is in `vote_statuses` and that `vote_admits` (beyond these, the site draws only runs of
    # published rounds, not replaced by a re-run, under the task's current major version, with something to
    # show). `vote_after_admission` marks the tasks where only the runs the methodology admitted are drawn (the
    # vote screen says so). How the votes then join the board is `with_votes`.
    vote_statuses: frozenset[str] = frozenset({"completed"})
    vote_admits: Callable[[RunInput, TaskInput], bool] | None = None
    vote_after_admission: Callable[[TaskInput], bool] = _never
    # Why a run whose status would count does not (its own numbers put it over a limit), in words; None: its
    # status says why.
    not_counted_why: Callable[[RunInput, TaskInput], str | None] = _no_reason
    # A run's figures beside its standing (`scoring.run_figures`): its time as published, and whether its score
    # rests on a heuristic fallback (002: "This is clearly marked in results"; None: no such fallback, and
    # runs.csv leaves the mark blank), its time was stopped at a cap (004), or it is in a language reported apart
    # (000 §2).
    figures: FigureRules = FigureRules()
    # Where a run's own list of checks and the counts its score reads disagree, in words (a bundle's run, or a
    # run and its checks as the admin would save them); none where the score reads no listed checks.
    listed_checks_problems: Callable[[Mapping[str, Any]], list[str]] = _no_listed_checks
    # The limits a task of this methodology must state and does not (a bundle's task document or the admin's task
    # fields), as (field, why naming the task): a bundle or a task form with any is refused. None are required
    # where the methodology's rules read no limit, or fix their own (004's 30-minute cap).
    missing_limits: Callable[..., list[tuple[str, str]]] = _no_missing_limits
    # A run's time limit when its task states none, from the methodology's own seed (`TimeLimitRule`).
    time_limit: TimeLimitRule = TimeLimitRule()
    # Whether a task has a token budget (003: "A run stops ... when the token budget runs out"); elsewhere none is
    # read, shown or answered.
    token_budgets: bool = False
    # The pass threshold of a benchmark that states none (002: "An agent passes a task if its score >= 0.80");
    # None: the methodology has no pass threshold, and none is shown or answered.
    default_pass_threshold: float | None = None
    # What a run records of how it was run (002: the judge model and the execution mode, `run_setup`); None: the
    # methodology's runs record neither, and neither is taken, shown or answered.
    run_setup: RunSetupRule | None = None
    # How one run's score is reached, part by part, for the run page (`scoring.scored.score_parts`); None where
    # the methodology's run has no weighed parts to show.
    score_parts: Callable[[RunInput, TaskInput], dict[str, Any] | None] = _no_parts
    # The trade-offs page's re-rank of the overall board's axes (`tradeoff_axes`) by a reader's weights.
    rerank: Callable[[Sequence[Mapping[str, Any]], float, float, float], list[tradeoffs.RerankedRow]] = tradeoffs.rerank
    # Every run's standing, decided from the methodology's own boards (`scoring.standings`): which runs count and
    # with what, which stand for their agent on their task (`standing_label`), which were replaced, are over a
    # limit, in review or not scored. None: every run its `run_counts` lets count counts, and none stands.
    standings: StandingsRule | None = None

    def run_standings(self, round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
        """The standings of the runs the methodology's boards read (`standings`, else `standings.by_run_rule`)."""
        rule = self.standings or by_run_rule(self.run_counts, self.not_counted_why, self.run_score)
        return rule(round_input, boards)

    def run_figures(self, round_input: RoundInput, standings: Standings) -> Standings:
        """`standings` with every run's published time and marks (`scoring.run_figures`), in place."""
        return with_run_figures(self.figures, round_input, standings)

    @property
    def has_heuristic(self) -> bool:
        """Whether a run's score can rest on a heuristic fallback (002), so a download says yes or no."""
        return self.figures.heuristic_mark is not no_heuristic

    def own_result(self, run: RunInput, task: TaskInput) -> tuple[str | None, float | None]:
        """A run's own outcome and score by this methodology's rules, whatever its board made of it (a run
        replaced by its re-run keeps them): the outcome only where the run could count (`run_counts`); none at all
        for a platform failure (003: "never goes into the score", `standings.by_status`)."""
        if run.status == PLATFORM_FAILURE:
            return None, None
        outcome = self.run_outcome(run, task) if self.run_outcome is not None and self.run_counts(run, task) else None
        return outcome, self.run_score(run, task)

    def run_votable(self, run: RunInput, task: TaskInput) -> bool:
        """Whether a vote screen may draw the run, by this methodology's rules (`vote_statuses`, `vote_admits`;
        by default a run that counts)."""
        admits = self.vote_admits or self.run_counts
        return run.status in self.vote_statuses and admits(run, task)

    def boards(self, round_input: RoundInput, *, readings: Readings = SITE) -> Mapping[str, Any]:
        """The methodology's boards of one round under `readings` (`compute_boards`); under the site's, called with
        the round alone, as a methodology without open questions defines it."""
        if readings.is_site:
            return self.compute_boards(round_input)
        return self.compute_boards(round_input, readings=readings)

    @property
    def questions(self) -> tuple[Question, ...]:
        """The rules its seed leaves open to another careful reading (`scoring.readings`), which its boards take
        as a parameter."""
        return questions_of(self.key)

    @property
    def counts_outcomes(self) -> bool:
        return self.run_outcome is not None

    def task_limits(self, time_limit_min: float | None, token_budget: int | None) -> TaskLimits:
        """A task's limits by this methodology: the limit it states, else the methodology's own default or cap;
        never another methodology's (`limits.task_limits`)."""
        return limits.task_limits(self.time_limit, self.token_budgets, time_limit_min, token_budget)

    def limit_problems(self, task: Mapping[str, Any], *, readings: Readings = SITE) -> list[tuple[str, str]]:
        """What is wrong with the limits a task states (a bundle's task document or the admin's task fields), as
        (field, why naming the task): the limits the methodology requires and the task lacks (`missing_limits`),
        and a time limit other than its cap (`limits.cap_problems`)."""
        return [*self.missing_limits(task, readings=readings), *limits.cap_problems(self.time_limit, task)]

    def pass_threshold(self, stated: float | None) -> float | None:
        """A benchmark's pass threshold: the one it states, else the methodology's default; None where the
        methodology has no pass threshold, whatever is stored."""
        if self.default_pass_threshold is None:
            return None
        return self.default_pass_threshold if stated is None else stated


REGISTRY: dict[str, Methodology] = {}
# The columns of runs.csv every methodology fills (`runs_file`).
_RUNS_CSV = (
    "agent, CLI, model, task, status, whether the run counts and why not, tokens, list-price cost, the time as "
    "published (seconds) beside the time recorded (wall_seconds), and the marks shown next to the result (marks: "
    "heuristic, other_language, violation, capped)"
)


def register(methodology: Methodology) -> Methodology:
    REGISTRY[methodology.key] = methodology
    return methodology


def get(key: str) -> Methodology:
    try:
        return REGISTRY[key]
    except KeyError:
        raise ValueError(f"unknown methodology {key!r}") from None


register(
    Methodology(
        key="outcomes",
        runs_file=f"one row per run: {_RUNS_CSV}; "
        "the outcome the board counts (pass, partial, fail, violation, "
        "unsupported) beside the label the run was stored with, and the language; median_run is yes on the run "
        "that stands for its agent on its task (its counted run, after reviews and re-runs), not a median",
        run_fields=("outcome", "due_at"),
        name="Outcomes (pass/partial/fail, 0-10 scores)",
        compute_boards=outcomes.compute_outcomes_boards,
        run_score=_no_score,
        run_counts=lambda run, task: run.status not in outcomes.NOT_COUNTED and run.status != "region_blocked",
        standings=outcomes.run_standings,
        tabs=(
            ("overall", "Overall"),
            ("safety", "Safety"),
            ("local-china", "Local: China"),
            ("local-global", "Local: global"),
            ("other-language", "Other language"),
        ),
        headline_key="overall",
        headline_label="Overall (0-10)",
        scale=10.0,
        format_score=lambda v: fixed(v, 1),
        run_outcome=outcomes.run_outcome,
        violation_possible=outcomes.violation_possible,
        violations_board="safety",
        double_review=True,
        reviewed=True,
        tradeoff_axes=_run_axes("overall"),
        axes_runs="the runs the overall board counts: the counted run of each core task it was tested on, a run "
        "that reached the time limit included with its recorded time and cost; runs in review, region-blocked or "
        "not counted, other-language runs and local and safety tasks are left out",
        interval=IntervalRule(cells=outcomes.interval_cells, resample_runs=False, factor=5.0, floor=0.0),
        figures=FigureRules(other_language=outcomes.is_other_language),
        time_limit=TimeLimitRule(
            default_min=outcomes.DEFAULT_TIME_LIMIT_MIN,
            words="The run ends ... after time_limit_min (30 minutes by default)",
        ),
    )
)
register(
    Methodology(
        key="scored",
        runs_file=f"one row per trial: {_RUNS_CSV}; "
        "the trial's score (0-1, tests and judge together), its tests "
        "passed of total and heuristic (yes where the score rests on the heuristic fallback), the judge model and the "
        "execution mode (docker or local) where recorded; median_run is "
        "yes on the trial that stands for its agent on its task (its best trial), not a median",
        run_fields=("score", "tests_passed", "tests_total", "judge_scores", "heuristic", "auto_pass_rate"),
        name="Scored (tests and judge, pass@k)",
        compute_boards=scored.compute_scored_boards,
        run_score=lambda run, task: scored.run_score(run, task).score,
        run_counts=scored.counts,
        standings=scored.run_standings,
        standing_label="best trial",
        tabs=(("overall", "Overall"), ("tasks", "Tasks")),
        headline_key="score",
        headline_label="Score (0-1)",
        scale=1.0,
        format_score=lambda v: fixed(v, 2),
        tradeoff_axes=_scored_axes,
        interval=IntervalRule(cells=scored.interval_cells, statistic="best", resample_runs=False),
        task_numbers=best_numbers,
        figures=FigureRules(heuristic_mark=lambda run, task: scored.run_score(run, task).heuristic),
        score_parts=scored.score_parts,
        time_limit=TimeLimitRule(
            default_min=scored.DEFAULT_TIMEOUT_SECONDS / 60,
            in_seconds=True,
            words="A timeout (default 300 seconds)",
        ),
        default_pass_threshold=scored.DEFAULT_PASS_THRESHOLD,
        run_setup=SCORED_SETUP,
    )
)
register(
    Methodology(
        key="checks",
        runs_file=f"one row per run: {_RUNS_CSV}; "
        "the run's score (0-100), its checks passed of total and the "
        "checks version; median_run is yes on the agent's median run of each task, the run its task figure is",
        run_fields=(
            "score",
            "app_started",
            "api_checks_passed",
            "api_checks_total",
            "browser_steps_passed",
            "browser_steps_total",
            "checks_version",
            "preview_url",
        ),
        name="Checks (0-100, median run)",
        compute_boards=checks.compute_checks_boards,
        run_score=checks.check_score,
        run_counts=checks.counts,
        not_counted_why=checks.not_counted_why,
        standings=checks.run_standings,
        standing_label="median run",
        tabs=(("overall", "Overall"), ("tasks", "Tasks")),
        headline_key="overall",
        headline_label="Overall (0-100)",
        scale=100.0,
        format_score=lambda v: fixed(v, 1),
        with_votes=checks.boards_with_votes,
        ranked_by_votes=checks.board_ranked_by_votes,
        votes_by_default=True,
        vote_statuses=checks.COUNTED - {"not_started"},
        vote_admits=checks.votable,
        vote_after_admission=lambda task: task.kind in checks.ADMISSION_KINDS,
        task_medians=True,
        tradeoff_axes=_run_axes("overall"),
        axes_runs="the runs the overall board counts: every counted run of a to-spec task, a run stopped at the "
        "time limit or when its budget ran out included with its recorded time and cost; runs over a limit, "
        "platform failures and invent and startup tasks are left out",
        interval=IntervalRule(cells=checks.interval_cells, statistic="median", resample_runs=True),
        task_numbers=median_numbers,
        listed_checks_problems=checks.listed_checks_problems,
        missing_limits=checks.missing_limits,
        time_limit=TimeLimitRule(
            words="A run stops at the task's time limit or when the token budget runs out",
        ),
        token_budgets=True,
    )
)
register(
    Methodology(
        key="weekly",
        runs_file=f"one row per run: {_RUNS_CSV}; "
        "the week's outcome the board counts (pass, partial, fail: a run "
        "at the 30-minute cap fails) beside the stored label, the plan label and the interventions; median_run "
        "is yes on the run that stands for its agent on the week's task (its counted run), not a median",
        run_fields=("outcome", "plan_label", "interventions"),
        name="Weekly (pass-rate table)",
        compute_boards=weekly.compute_weekly_boards,
        run_score=_no_score,
        run_counts=lambda run, task: run.status not in weekly.NOT_COUNTED,
        standings=weekly.run_standings,
        tabs=(("overall", "This week"),),
        headline_key="pass_rate",
        headline_label="Pass rate",
        scale=1.0,
        format_score=lambda v: fixed(v, 0, times=100) + "%",
        run_outcome=weekly.weekly_outcome,
        violation_possible=weekly.violation_possible,
        reviewed=True,
        same_week=True,
        tradeoff_axes=_weekly_axes,
        figures=FigureRules(run_time=weekly.run_seconds, time_capped=weekly.reached_cap),
        time_limit=TimeLimitRule(
            default_min=weekly.CAP_SECONDS / 60,
            cap=True,
            words="Wall-clock time ... stops when the agent finishes, or at 30 minutes, whichever comes first",
        ),
        axes_names=("cost of the week", "time of the week"),
        axes_totals="each agent's totals for the week, as the board shows them: its counted run of every task of the "
        "week, summed (a run that reached the 30-minute cap counts 30 minutes), so every agent's total is over the "
        "same tasks. An agent with no run, or no recorded time, on some task of the week has a total over fewer "
        "runs: it is listed below as partial, not plotted, and re-ranked as missing",
    )
)
