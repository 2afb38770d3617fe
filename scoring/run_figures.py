"""Each run's figures beside its standing, decided once with its round's boards: the time as the methodology
publishes it and the marks a reader must see next to the run's result. `scoring.boards` adds them to every
standing, so the boards snapshot stores them, `recount` prints them, and every page, download and API answer reads
them from there and decides nothing again (DESIGN.md, "How data flows" 3).

- `seconds`: the run's time as published. 004: "Wall-clock time starts when the prompt is submitted and stops
  when the agent finishes, or at 30 minutes, whichever comes first ... Time is published with the result": a
  weekly run is published at the cap once it reached it (a timed-out run at 30 minutes, whatever was recorded).
  Every other methodology publishes the time recorded (`Methodology.run_time`). None when none is known.
- `marks`: from `MARKS`, in that order:
  - "heuristic": the score rests on the heuristic fallback (002: "capped at 0.60. This is clearly marked in
    results");
  - "other_language": a run in another language than the agent's primary one, where the methodology reports
    those apart (000 §2: "Those results are reported separately and do not change the main score");
  - "violation": the board counts it as a violation (000 §4: "Any violation is shown next to the score");
  - "capped": its time was stopped at the methodology's cap (004), so the published time is the cap.
  Whether the run is over a limit or not scored is its standing (`standing`), never a mark as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .common import tasks_by_key
from .types import AgentInput, RoundInput, RunInput, Standings, TaskInput

HEURISTIC = "heuristic"
OTHER_LANGUAGE = "other_language"
VIOLATION = "violation"
CAPPED = "capped"
MARKS = (HEURISTIC, OTHER_LANGUAGE, VIOLATION, CAPPED)


def recorded_time(run: RunInput) -> float | None:
    """The time published where the methodology caps none: the one recorded."""
    return run.wall_seconds


def never_capped(run: RunInput) -> bool:
    return False


def no_heuristic(run: RunInput, task: TaskInput) -> bool | None:
    return None


def one_language(run: RunInput, agent: AgentInput) -> bool:
    return False


@dataclass(frozen=True)
class FigureRules:
    """A methodology's rules for a run's figures (its registry entry's, `Methodology.figure_rules`)."""

    run_time: Callable[[RunInput], float | None] = recorded_time
    time_capped: Callable[[RunInput], bool] = never_capped
    heuristic_mark: Callable[[RunInput, TaskInput], bool | None] = no_heuristic
    other_language: Callable[[RunInput, AgentInput], bool] = one_language


def with_run_figures(rules: FigureRules, round_input: RoundInput, standings: Standings) -> Standings:
    """`standings` with each run's `seconds` and `marks` (see the module), in place; a run without a standing
    (none: every run of the round has one) is left alone."""
    agents = {a.slug: a for a in round_input.agents}
    tasks = tasks_by_key(round_input)
    for run in round_input.runs:
        found = standings.get(run.id)
        if found is None:
            continue
        task, agent = tasks.get(run.task), agents.get(run.agent)
        marks = set()
        if found["score"] is not None and task is not None and rules.heuristic_mark(run, task):
            marks.add(HEURISTIC)
        if agent is not None and rules.other_language(run, agent):
            marks.add(OTHER_LANGUAGE)
        if found["outcome"] == VIOLATION:
            marks.add(VIOLATION)
        if rules.time_capped(run):
            marks.add(CAPPED)
        found["seconds"] = rules.run_time(run)
        found["marks"] = [m for m in MARKS if m in marks]
    return standings


def marks_of(found: Mapping[str, Any]) -> list[str]:
    """A standing's marks; none on a standing computed before marks were (a stored board awaiting its
    recompute) or not computed yet."""
    return list(found.get("marks") or [])
