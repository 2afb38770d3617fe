"""What a correction would do to a round's boards, before it is saved: the boards computed from the round's
bundle as stored and again with the change applied in memory (the same `compute_round_boards` the worker
uses), nothing written. The admin shows the difference in the board's own words (`pages.corrections`) and asks
for the reason."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runs.models import Verdict
from runs.services.review import lowest_outcome

from .boards import compute_round_boards, round_document


@dataclass(frozen=True)
class CorrectionBoards:
    """A round's boards as they are and as they would be after a verdict's correction, and the run's verdicts
    (bundle documents: role, outcome, matched) before and after it."""

    before: dict[str, Any]
    after: dict[str, Any]
    verdicts_before: list[dict[str, Any]]
    verdicts_after: list[dict[str, Any]]


def verdict_change_boards(*, verdict: Verdict, outcome: str | None, matched: Sequence[str]) -> CorrectionBoards:
    """The round's boards with and without `verdict` giving `outcome`/`matched` (the lowest row applies),
    computed without writing anything."""
    doc = round_document(verdict.run.round_id)
    before = compute_round_boards(doc)
    changed = copy.deepcopy(doc)
    final = lowest_outcome(outcome=outcome, matched=matched)
    verdicts_before: list[dict[str, Any]] = []
    verdicts_after: list[dict[str, Any]] = []
    for run in changed.get("runs") or []:
        if str(run.get("id")) != verdict.run.key:
            continue
        verdicts_before = copy.deepcopy(run.get("verdicts") or [])
        for v in run.get("verdicts") or []:
            if v.get("role") == verdict.role:
                v["outcome"], v["matched"] = final, list(matched)
        verdicts_after = run.get("verdicts") or []
    return CorrectionBoards(before, compute_round_boards(changed), verdicts_before, verdicts_after)
