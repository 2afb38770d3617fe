"""What a correction would do to a round's boards, before it is saved: the boards computed from the round's
bundle as stored and again with the change applied in memory (the same `compute_round_boards` the worker
uses), nothing written. The admin shows the difference and asks for the reason (issue #32.12)."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runs.models import Verdict
from runs.services.review import lowest_outcome

from .recompute import compute_round_boards, round_document

SKIPPED_BOARDS = {"statistics", "pairs"}
# Row fields that are not figures a reader compares (ids, names, lists of run keys).
SKIPPED_FIELDS = {"agent", "name", "tasks", "dimensions", "unsupported", "in_review", "region_blocked", "stale"}


@dataclass(frozen=True)
class FigureChange:
    board: str
    agent: str
    figure: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.board} board, {self.agent}: {self.figure} {self.before} -> {self.after}"


def _shown(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _figures(row: dict) -> dict[str, Any]:
    # "axis_runs", "cost_runs", "time_runs": how many runs a chart's means are over, not figures of the board.
    figures = {
        k: v
        for k, v in row.items()
        if k not in SKIPPED_FIELDS and not k.endswith("_runs") and not isinstance(v, dict | list)
    }
    for dim, value in (row.get("dimensions") or {}).items():
        figures[f"{dim} (dimension)"] = value
    for task, cell in (row.get("tasks") or {}).items():
        if isinstance(cell, dict) and "outcome" in cell:
            figures[f"{task} (task)"] = (cell.get("outcome") or "in review").replace("_", " ")
    return figures


def boards_difference(before: dict, after: dict) -> list[FigureChange]:
    """Every figure of every board row that differs between two computations of a round's boards."""
    changes = []
    for board, rows in before.items():
        if board in SKIPPED_BOARDS or not isinstance(rows, list):
            continue
        after_rows = {r.get("agent"): r for r in after.get(board) or [] if isinstance(r, dict)}
        for row in rows:
            if not isinstance(row, dict):
                continue
            other = after_rows.get(row.get("agent"), {})
            old, new = _figures(row), _figures(other)
            for figure in sorted(set(old) | set(new)):
                if _shown(old.get(figure)) != _shown(new.get(figure)):
                    changes.append(
                        FigureChange(
                            board,
                            str(row.get("name") or row.get("agent")),
                            figure,
                            _shown(old.get(figure)),
                            _shown(new.get(figure)),
                        )
                    )
    return changes


def verdict_change_effect(*, verdict: Verdict, outcome: str | None, matched: Sequence[str]) -> list[FigureChange]:
    """The board figures that would change if `verdict` gave `outcome`/`matched` (the lowest row applies),
    computed without writing anything."""
    doc = round_document(verdict.run.round_id)
    before = compute_round_boards(doc)
    changed = copy.deepcopy(doc)
    final = lowest_outcome(outcome=outcome, matched=matched)
    for run in changed.get("runs") or []:
        if str(run.get("id")) != verdict.run.key:
            continue
        for v in run.get("verdicts") or []:
            if v.get("role") == verdict.role:
                v["outcome"], v["matched"] = final, list(matched)
    return boards_difference(before, compute_round_boards(changed))
