"""A task's evidence list read against a run's evidence. 000 §2: "The full run is screen-recorded. Task-specific
evidence (inbox screenshots, baselines, call audio) is captured as listed in the task's evidence field." The list
is the task version's (`evidence`, free text such as "recording" or "screenshot of the final answer"); a run holds
an item when one of its evidence files or links is captioned with it (case and spacing aside), or, for an item that
is a kind's name alone ("recording", "screenshot", "audio"), when it has evidence of that kind. Pure: no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .bundle_checker import EVIDENCE_KINDS

# Runs that never ran the task: nothing of it could be captured, so no listed evidence is missing from them (a
# platform failure, a task blocked in the agent's region, a product that cannot attempt it, a run never started).
NOT_RUN = frozenset({"infra_error", "region_blocked", "unsupported", "not_started"})


@dataclass(frozen=True)
class ListedItem:
    """One item of a task's evidence list and whether the run holds it."""

    item: str
    held: bool


def _folded(text: str) -> str:
    return " ".join(str(text).casefold().split())


def checklist(listed: Sequence[str], status: str, held: Iterable[tuple[str, str]]) -> list[ListedItem] | None:
    """Each item of the task's evidence list (`listed`, in its order) with whether the run holds it, from the run's
    evidence as (kind, caption) pairs (`held`); None when the task lists nothing or the run never ran the task
    (`NOT_RUN`), so there is nothing to check it against."""
    items = [str(i) for i in listed if _folded(i)]
    if not items or status in NOT_RUN:
        return None
    pairs = list(held)
    captions = {_folded(caption) for _, caption in pairs if caption}
    kinds = {kind for kind, _ in pairs}
    return [
        ListedItem(i, _folded(i) in captions or (_folded(i) in EVIDENCE_KINDS and _folded(i) in kinds)) for i in items
    ]


def lacking(listed: Sequence[str], status: str, held: Iterable[tuple[str, str]]) -> list[str]:
    """The items of the task's evidence list the run lacks, in the list's order (`checklist`); none for a run that
    never ran the task."""
    return [i.item for i in checklist(listed, status, held) or () if not i.held]
