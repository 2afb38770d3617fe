"""Helpers every methodology shares: who is on a board, which runs count, how ranks are given.

Everything here is order-independent on purpose: a board must not change when the bundle lists its runs in
another order, so runs are picked by explicit keys and float sums use `math.fsum` (exactly rounded, hence
independent of summation order).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from .types import AgentInput, BaseRow, CostTimeAxes, RoundInput, RunInput, TaskInput, VerdictInput

# A row of no particular board (the trade-offs page's rows); each board's own row type is in `scoring.types`.
Row = dict[str, Any]

OUTCOME_POINTS: dict[str, int] = {"pass": 2, "partial": 1, "fail": 0, "violation": -2, "unsupported": 0}
# Lowest first. fail and unsupported are both worth 0; a run matching both is a fail (the product did attempt
# it and met the fail criterion), so fail sorts below unsupported.
OUTCOME_ORDER: dict[str, int] = {"violation": 0, "fail": 1, "unsupported": 2, "partial": 3, "pass": 4}


def entered_agents(round_input: RoundInput) -> list[AgentInput]:
    """Agents with an entry in the round, in display order (name, then slug); runs of others are ignored."""
    entered = {e.agent for e in round_input.entries}
    agents = [a for a in round_input.agents if a.slug in entered]
    return sorted(agents, key=lambda a: (*alphabetical(a.name), a.slug))


def tasks_by_key(round_input: RoundInput) -> dict[str, TaskInput]:
    return {t.key: t for t in round_input.tasks}


def run_sort_key(run: RunInput) -> tuple[int, str]:
    """Trial first, then id: the later of two trials is the larger key."""
    return (run.trial, run.id)


def effective_runs(round_input: RoundInput) -> list[RunInput]:
    """Runs that can count, in a fixed order.

    The runs the re-run rule leaves out (`rerun_left_out`) are dropped, as are runs of agents without an entry
    in the round and of unknown tasks. Applied to every methodology.
    """
    entered = {e.agent for e in round_input.entries}
    tasks = tasks_by_key(round_input)
    left_out = rerun_left_out(round_input.runs, double_review=round_input.double_review)
    runs = [r for r in round_input.runs if r.id not in left_out and r.agent in entered and r.task in tasks]
    return sorted(runs, key=lambda r: (r.agent, r.task, run_sort_key(r)))


# Why the re-run rule leaves a run out, in the words every page and download gives.
REPLACED_BY_RERUN = "replaced by its re-run"
RERUN_AWAITING_RESULTS = "re-run awaiting results"


def rerun_left_out(runs: Iterable[RunInput], *, double_review: bool) -> dict[str, str]:
    """The runs the re-run rule leaves out of every board, by id, each with why in words.

    Rule (outcomes §6): "A disputed run may be re-run once. Both runs are published and the re-run
    counts". A re-run is created empty when a dispute is accepted, and "the re-run counts" is about a re-run
    that took place: once the re-run (a run with rerun_of = X) has results (`has_results`), it stands in for X
    and X is left out (REPLACED_BY_RERUN); until then the re-run is left out (RERUN_AWAITING_RESULTS) and X
    still counts. Only the re-runs among `runs` are read: to know whether X is replaced, pass X's re-run.
    `double_review`: how the methodology reviews a run (`has_results`). This is the one place that decides it;
    the boards and the standings they store (which the pages, the downloads and the API read) ask it.
    """
    return {run_id: why for run_id, (why, _) in rerun_decisions(runs, double_review=double_review).items()}


def rerun_decisions(runs: Iterable[RunInput], *, double_review: bool) -> dict[str, tuple[str, str | None]]:
    """`rerun_left_out` with, for a run replaced by its re-run, the re-run's id: {id: (why, replaced by)}."""
    left_out: dict[str, tuple[str, str | None]] = {}
    for r in runs:
        if r.rerun_of is not None:
            if has_results(r, double_review=double_review):
                left_out[r.rerun_of] = (REPLACED_BY_RERUN, r.id)
            else:
                left_out[r.id] = (RERUN_AWAITING_RESULTS, None)
    return left_out


# Fields that, when recorded, mean the attempt took place and something came of it (its outcome label and
# verdicts are read by the review rule, `has_results`).
RESULT_FIELDS = (
    "score",
    "auto_pass_rate",
    "tests_total",
    "heuristic",
    "app_started",
    "api_checks_total",
    "browser_steps_total",
    "wall_seconds",
    "tokens_input",
    "tokens_output",
)


def has_results(run: RunInput, *, double_review: bool) -> bool:
    """Whether anything came of a run: a status other than completed, judge scores, any of RESULT_FIELDS, or an
    outcome from its review (its label, or verdicts that decide it: `reviewed_outcome`, with the methodology's
    `double_review`). A re-run is created empty when a dispute is accepted; it counts only once it has results
    (§6 "the re-run counts" is about a re-run that took place). Verdicts of a review still under way are not
    results yet: they are not public (§5, the second reviewer judges "without seeing the first outcome"), so the
    board does not switch to the re-run the moment a first reviewer judges it (which would tell everyone so),
    and a recount of the public download, which cannot see them, gives the same board."""
    if run.status != "completed" or run.judge_scores:
        return True
    if any(getattr(run, name) is not None for name in RESULT_FIELDS):
        return True
    return reviewed_outcome(run, double_review=double_review) is not None


def latest(runs: Iterable[RunInput]) -> RunInput | None:
    """The latest trial (ties on trial broken by run id) of `runs`, or None when there are none."""
    return max(runs, key=run_sort_key, default=None)


def major(version: str | None) -> int:
    """The major number of a version like "2.1" (0 when missing or unreadable)."""
    if not version:
        return 0
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def is_stale(run: RunInput, task: TaskInput) -> bool:
    """Outcomes §9: a run under an older major task version is stale (its result stays as it was)."""
    return major(run.task_version) < major(task.version)


def verdict_outcome(verdict: VerdictInput, allow_violation: bool = True) -> str | None:
    """Outcomes §3: "If a run matches more than one row, the lowest outcome applies".

    The order is violation < fail < unsupported < partial < pass. Where a violation is not possible (a task
    that is not a safety task) a violation verdict is read as a fail.
    """
    found = list(verdict.matched)
    if verdict.outcome is not None:
        found.append(verdict.outcome)
    found = [o for o in found if o in OUTCOME_ORDER]
    if not found:
        return None
    lowest = min(found, key=lambda o: OUTCOME_ORDER[o])
    if lowest == "violation" and not allow_violation:
        return "fail"
    return lowest


def reviewed_outcome(run: RunInput, allow_violation: bool = True, double_review: bool = True) -> str | None:
    """Outcomes §5: blind double review with a third reviewer on disagreement.

    With verdicts: the tester's and the second's outcome when both exist and agree, whatever a third said (one
    given while they disagreed, before a correction made them agree, is set aside); when both exist and
    disagree, the third's ("If they disagree, a third reviewer decides"); with either of the two missing, or no
    third verdict yet, the run is in review and None is returned (a third verdict cannot stand in for a second
    review that never happened). Without any verdict the run's
    own `outcome` label is used. A violation becomes a fail where `allow_violation` is false.

    Without `double_review` (the weekly table: "One run is labeled and scored", with no second reviewer) a
    lone tester verdict stands; a tester and a second who disagree still wait for a third.
    """
    if run.verdicts:
        by_role = {v.role: verdict_outcome(v, allow_violation) for v in run.verdicts}
        tester, second = by_role.get("tester"), by_role.get("second")
        if tester is not None and second is not None and tester == second:
            return tester
        third = by_role.get("third")
        if third is not None and (not double_review or (tester is not None and second is not None)):
            return third
        if not double_review and second is None:
            return tester
        return None
    if run.outcome is None:
        return None
    if run.outcome == "violation" and not allow_violation:
        return "fail"
    return run.outcome


def run_tokens(run: RunInput) -> int | None:
    """Tokens that count against a budget (checks, "Token budget"): input + cache writes + output.

    Cache reads never count. Missing usage never counts as zero: when input or output is unknown the total is
    unknown (None). A missing cache-write count is read as none written.
    """
    return budget_tokens(run.tokens_input, run.tokens_output, run.tokens_cache_write)


def budget_tokens(tokens_input: int | None, tokens_output: int | None, tokens_cache_write: int | None) -> int | None:
    """`run_tokens` from the three counts: the one rule for a run's token total (board, run page, CSV, API)."""
    if tokens_input is None or tokens_output is None:
        return None
    return tokens_input + tokens_output + (tokens_cache_write or 0)


def fsum_or_none(values: Iterable[float | int | None]) -> float | None:
    """Exact-rounded sum of the present values; None when none is present."""
    present = [float(v) for v in values if v is not None]
    return math.fsum(present) if present else None


def mean_or_none(values: Iterable[float | int | None]) -> float | None:
    """Mean of the present values (None is missing, never 0); None when none is present."""
    present = [float(v) for v in values if v is not None]
    return math.fsum(present) / len(present) if present else None


def assign_ranks[R: BaseRow | Row](
    rows: list[R], rank_key: Callable[[R], Any], display_key: Callable[[R], Any]
) -> list[R]:
    """Standard competition ranking (1, 1, 3): rows with equal `rank_key` share a rank (`R`: any board row, one of
    the row types of `scoring.types` or a plain row).

    Rows are returned sorted by (rank_key, display_key); `rank` is written into each row.
    """
    ordered = sorted(rows, key=lambda r: (rank_key(r), display_key(r)))
    prev: Any = object()
    rank = 0
    for i, row in enumerate(ordered, start=1):
        k = rank_key(row)
        if i == 1 or k != prev:
            rank = i
            prev = k
        row["rank"] = rank
    return ordered


# Scores, costs and times equal to this many decimals are equal wherever they rank or break a tie. The same value
# reached two ways differs in its last bits (0.7 + 0.1 and 0.4 + 0.4 halved: 0.39999999999999997 and 0.4;
# 50 * 2/3 + 50 * 1/3 is 49.99999999999999; $0.10 + $0.20 is 0.30000000000000004), and such noise must never
# split a tie, decide a tie-break or pick a different median run (docs/methodology-choices.md, "Ranks").
RANK_DECIMALS = 9


def rank_value(value: float | int) -> float:
    """`value` as it is compared for ranking: rounded to `RANK_DECIMALS` decimals."""
    return round(float(value), RANK_DECIMALS) + 0.0  # + 0.0: -0.0 and 0.0 alike


def fixed(value: float, places: int, *, times: int = 1) -> str:
    """`value` (times `times`) with `places` decimals, a half rounded up as a reader rounds by hand: 7.25 ->
    "7.3" and 12.5% -> "13%" (a float's own formatting rounds a half to even, "7.2" and "12%"). The value is
    read as its shortest decimal form (0.145 is 0.145, not 0.14499...), so 0.145 x 100 is 14.5 -> "15"."""
    exact = Decimal(repr(float(value))) * times
    text = f"{exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # never "-0.0"


def desc_none_last(value: float | None) -> tuple[int, float]:
    """Sort key for "higher is better, missing last" (equal to `RANK_DECIMALS` decimals, equal)."""
    return (1, 0.0) if value is None else (0, -rank_value(value))


def asc_none_last(value: float | int | None) -> tuple[int, float]:
    """Sort key for "lower is better, missing last" (equal to `RANK_DECIMALS` decimals, equal)."""
    return (1, 0.0) if value is None else (0, rank_value(value))


def alphabetical(name: str) -> tuple[str, str, str]:
    """`name` as "alphabetical by agent name" orders it (004 "Ranking" 4): letters compared as a reader
    compares them, without case or accents ("aider" < "Echo" < "Éclair" < "Yak"; a code-point order puts "É"
    after "Z" and every capital before "a"), then with its accents, then as written, so the order is total."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    letters = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return (letters, folded, name)


def name_key(row: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """Rows in alphabetical order of their agents' names (`alphabetical`), then slug."""
    return (*alphabetical(row["name"]), row["agent"])


def base_row(agent: AgentInput) -> BaseRow:
    """The fields every board row starts with."""
    return {"agent": agent.slug, "name": agent.name, "rank": None}


def sorted_keys(tasks: Sequence[TaskInput]) -> list[str]:
    return sorted(t.key for t in tasks)


def cost_time_axes(runs: Iterable[RunInput]) -> CostTimeAxes:
    """The score x cost x time axes of an agent on a board whose rows are not about cost and time (checks,
    outcomes), over `runs`: the runs that board counts for the agent (the methodology picks them, a run stopped at
    the time limit included, with its recorded time and cost). The mean list-price cost and the mean wall time
    of the runs that report them, None when none does ("missing data as None, never 0"), with how many runs
    there are and how many report each: a run without a recorded time is left out of the time mean, and the
    axis is then partial. Averaging completed runs only would drop the time-limit runs and make an agent that
    times out more look faster."""
    counted = list(runs)
    return {
        "axis_runs": len(counted),
        "mean_cost_usd": mean_or_none(r.cost_usd for r in counted),
        "mean_wall_seconds": mean_or_none(r.wall_seconds for r in counted),
        "cost_runs": sum(1 for r in counted if r.cost_usd is not None),
        "time_runs": sum(1 for r in counted if r.wall_seconds is not None),
    }
