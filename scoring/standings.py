"""Each run's standing in its round, decided with the board that counts it (DESIGN.md, "How data flows" 3).

A methodology's board picks, for each agent and task, the run or runs it counts and what it counts them with.
Its `run_standings` (the registry's `Methodology.standings`) says, from those very picks, what became of every
run the board read: it counts (and whether it is the run that stands for its agent on its task), it was
replaced by another run, it is over a limit, in review, or not scored. The round's own rules come before any
methodology's (`round_left_out`): a run outside the round's task set, and the re-run rule's choice
(`common.rerun_decisions`). `scoring.boards.compute_boards` joins the two under the boards' "standings" key,
so the boards snapshot stores them and `recount` prints them; every page, download and API answer reads them
through `standing_of` and decides nothing again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .common import effective_runs, rerun_decisions, tasks_by_key
from .types import STATUS_WORDS, RoundInput, RunInput, RunStanding, Standings, TaskInput

COUNTS = "counts"
REPLACED = "replaced"
OVER_LIMIT = "over_limit"
IN_REVIEW = "in_review"
NOT_SCORED = "not_scored"
NOT_IN_ROUND = "not_in_round"
STANDINGS = (COUNTS, REPLACED, OVER_LIMIT, IN_REVIEW, NOT_SCORED, NOT_IN_ROUND)
# What a reader says of a run the stored boards do not cover (added after their last computation): the
# standing is not known yet, and nothing guesses it.
UPDATING = "updating"

IN_REVIEW_WHY = "in review"
NOT_SCORED_WHY = "not scored"
NOT_IN_TASK_SET = "its task is not in the round's task set"
NOT_ENTERED = "its agent has no entry in the round"
NOT_YET_COMPUTED = "not yet computed: the board is updating"
PLATFORM_FAILURE = "infra_error"


def standing(
    state: str,
    *,
    why: str | None = None,
    replaced_by: str | None = None,
    stands: bool = False,
    outcome: str | None = None,
    points: int | None = None,
    score: float | None = None,
) -> RunStanding:
    return {
        "standing": state,
        "why": why,
        "replaced_by": replaced_by,
        "stands": stands,
        "outcome": outcome,
        "points": points,
        "score": score,
    }


def counted(
    *, stands: bool, outcome: str | None = None, points: int | None = None, score: float | None = None
) -> RunStanding:
    """A run the board counts, with what it counts it with; `stands`: the run that stands for its agent on its
    task (the counted run, the best trial, the median run)."""
    return standing(COUNTS, stands=stands, outcome=outcome, points=points, score=score)


def replaced(
    run: RunInput, by: RunInput, *, why: str | None = None, outcome: str | None = None, score: float | None = None
) -> RunStanding:
    """A run the board could have counted, left out because `by` stands in its place (a later trial): said with
    the trial that replaced it."""
    if why is None:
        why = f"replaced by trial {by.trial}" if by.trial != run.trial else f"replaced by run {by.id}"
    outcome, score = own_result(run, outcome, score)
    return standing(REPLACED, why=why, replaced_by=by.id, outcome=outcome, score=score)


def own_result(run: RunInput, outcome: str | None, score: float | None) -> tuple[str | None, float | None]:
    """The outcome and score a run's standing shows: none for a platform failure, whatever the run carries (003:
    "A platform failure (infra_error) is our fault and never goes into the score"), counted or replaced."""
    return (None, None) if run.status == PLATFORM_FAILURE else (outcome, score)


def by_status(run: RunInput, *, outcome: str | None = None, score: float | None = None) -> RunStanding:
    """A run its status keeps out of the board, in the status's words: a run that went over its budget is over
    a limit; a platform failure, a region block, an unsupported product, a run that never started are not
    scored. A platform failure has no result at all, whatever the run carries (003: "A platform failure
    (infra_error) is our fault and never goes into the score"): it reads "not scored", never a 0."""
    state = OVER_LIMIT if run.status == "over_budget" else NOT_SCORED
    outcome, score = own_result(run, outcome, score)
    return standing(state, why=STATUS_WORDS.get(run.status, run.status), outcome=outcome, score=score)


# A run's own outcome and score by a methodology's rules, whatever its board made of it.
OwnResult = Callable[[RunInput, TaskInput], tuple[str | None, float | None]]


def round_left_out(round_input: RoundInput, own: OwnResult) -> Standings:
    """The runs of a round no methodology reads (`common.effective_runs` leaves them out): a run of an agent
    without an entry or of a task outside the round's task set (not in the round), a disputed run whose re-run
    has results (replaced by it, 000 §6: "Both runs are published", so it keeps its own result, `own`) and a
    re-run still without results (not scored yet)."""
    entered = {e.agent for e in round_input.entries}
    tasks = tasks_by_key(round_input)
    decisions = rerun_decisions(round_input.runs, double_review=round_input.double_review)
    out: Standings = {}
    for run in round_input.runs:
        if run.agent not in entered:
            out[run.id] = standing(NOT_IN_ROUND, why=NOT_ENTERED)
        elif run.task not in tasks:
            out[run.id] = standing(NOT_IN_ROUND, why=NOT_IN_TASK_SET)
        elif run.id in decisions:
            why, by = decisions[run.id]
            outcome, score = own_result(run, *own(run, tasks[run.task])) if by else (None, None)
            out[run.id] = standing(
                REPLACED if by else NOT_SCORED, why=why, replaced_by=by, outcome=outcome, score=score
            )
    return out


# A methodology's standings of the runs its boards read: (round, its boards as computed) -> standings by run id.
StandingsRule = Callable[[RoundInput, Mapping[str, Any]], Standings]


def by_run_rule(
    run_counts: Callable[[RunInput, TaskInput], bool],
    not_counted_why: Callable[[RunInput, TaskInput], str | None],
    run_score: Callable[[RunInput, TaskInput], float | None],
) -> StandingsRule:
    """The standings of a methodology whose boards count every run its own rule lets count (`run_counts`) and
    name no run standing for an agent: for a methodology registered without its own."""

    def standings(round_input: RoundInput, boards: Mapping[str, Any]) -> Standings:
        tasks = tasks_by_key(round_input)
        out: Standings = {}
        for run in effective_runs(round_input):
            task = tasks[run.task]
            score = run_score(run, task)
            if run_counts(run, task):
                out[run.id] = counted(stands=False, score=score)
            elif why := not_counted_why(run, task):
                out[run.id] = standing(OVER_LIMIT, why=why, score=score)
            else:
                out[run.id] = by_status(run, score=score)
        return out

    return standings


def round_standings(
    round_input: RoundInput, boards: Mapping[str, Any], rule: StandingsRule, own: OwnResult
) -> Standings:
    """Every run of the round's standing, by run id: the round's own (`round_left_out`), then the methodology's
    (`rule`, over the runs its boards read)."""
    out = round_left_out(round_input, own)
    out.update(rule(round_input, boards))
    return dict(sorted(out.items()))


def standing_of(standings: Mapping[str, RunStanding] | None, run_id: str) -> RunStanding:
    """A run's standing, read from its round's standings as computed with its boards (the snapshot, a recount);
    a run they do not cover (computed before the run existed) is `UPDATING`, never guessed."""
    found = (standings or {}).get(run_id)
    return found if found is not None else standing(UPDATING, why=NOT_YET_COMPUTED)


def standing_runs(boards: Mapping[str, Any] | None) -> set[str]:
    """The runs that stand for their agent on their task in a round's stored boards."""
    return {run_id for run_id, s in ((boards or {}).get("standings") or {}).items() if s.get("stands")}
