"""One agent's number on each task, by methodology (the registry's `Methodology.task_numbers`): the number the
task's board uses, a word for it when it is an outcome, the run that stands for it, the range of its runs and,
where the board counts trials, how many pass (002's pass@k). The head-to-head, the task page, the round statistics
and the crawler read these, never the boards' cells themselves."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from . import checks
from .types import ChecksTaskRow, OutcomesCell, ScoredCell, WeeklyCell


class TaskNumber(TypedDict):
    """One agent's number on one task as a head-to-head page shows it (`Methodology.task_numbers`): the number
    the board uses, a word for it when it is an outcome, the run that stands for it, and the range of its runs."""

    value: float | None
    label: str | None
    run: str | None
    runs: int
    low: float | None
    high: float | None
    # A task whose board ranks by blind votes (checks' invent and startup tasks): `value` is then what the checks
    # gave (100 admitted, 0 not) and the board's order is the vote rating's, `rating` (None: not admitted or
    # no rating yet, as the boards as shown carry it) and `rank` its place there.
    by_votes: NotRequired[bool]
    admitted: NotRequired[bool]
    # scored: how many of its `runs` trials pass (002's pass@k of the task is passes / runs), and whether the best
    # trial rests on the heuristic fallback (002: "clearly marked in results").
    passes: NotRequired[int]
    heuristic: NotRequired[bool]
    rating: NotRequired[float | None]
    rank: NotRequired[int | None]


# One agent's number on each task as a head-to-head page shows it, by task key (`TaskNumber`).
TaskNumbers = dict[str, TaskNumber]


def _row(boards: dict | None, board: str, agent: str) -> dict[str, Any]:
    return next((r for r in (boards or {}).get(board) or [] if r.get("agent") == agent), {})


def median_numbers(boards: dict | None, agent: str) -> TaskNumbers:
    """checks: the agent's median run on every task board; on a board ranked by votes (invent and startup
    tasks, `checks.rank_by_votes`), also whether the checks admitted it, its vote rating in the task (from the
    boards as shown, `checks.boards_with_votes`; None while the ratings are not joined) and its place."""
    out: TaskNumbers = {}
    task_boards: dict[str, list[ChecksTaskRow]] = (boards or {}).get("tasks") or {}
    for key, rows in task_boards.items():
        row = next((r for r in rows if r["agent"] == agent), None)
        if row is not None:
            number: TaskNumber = {
                "value": row.get("median"),
                "label": None,
                "run": row.get("median_run"),
                "runs": row.get("runs") or 0,
                "low": row.get("min"),
                "high": row.get("max"),
                "rank": row.get("rank"),
            }
            if checks.ranked_by_votes(rows):
                # A run the checks did not admit is ranked after every admitted one, whatever its votes say.
                rating = row.get("rating") if row["admitted"] else None
                number["by_votes"] = True
                number["admitted"] = bool(row["admitted"])
                number["rating"] = rating["rating"] if rating else None
            out[key] = number
    return out


def best_numbers(boards: dict | None, agent: str) -> TaskNumbers:
    """scored: the best trial of every task, with the range of its trials and how many pass (pass@k)."""
    out: TaskNumbers = {}
    cells: dict[str, ScoredCell] = _row(boards, "overall", agent).get("tasks") or {}
    for key, cell in cells.items():
        scores = [score for s in cell.get("scores") or [] if (score := s.get("score")) is not None]
        out[key] = {
            "value": cell.get("best"),
            "label": None,
            "run": cell.get("best_run"),
            "runs": cell.get("trials") or 0,
            "low": min(scores, default=None),
            "high": max(scores, default=None),
            "passes": cell.get("passes") or 0,
            "heuristic": bool(cell.get("heuristic")),
        }
    return out


def outcome_numbers(boards: dict | None, agent: str) -> TaskNumbers:
    """outcomes and weekly: the counted run of every task, its outcome and points."""
    out: TaskNumbers = {}
    cells: dict[str, OutcomesCell | WeeklyCell] = _row(boards, "overall", agent).get("tasks") or {}
    for key, cell in cells.items():
        out[key] = {
            "value": cell.get("points"),
            "label": cell.get("outcome"),
            "run": cell.get("run"),
            "runs": 1 if cell.get("run") else 0,
            "low": None,
            "high": None,
        }
    return out
