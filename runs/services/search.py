"""What a reader can search besides transcripts (`SearchEntry`): the reviewers' notes of a run, one entry per
verdict with a note (anchor "verdict-<id>", kind "note"), the judge's narrative (anchor "judge") and each mark on
the run's recording, its time and label (anchor "mark-<second>", as the run page's list of moments). Kept in
step by every write of a verdict (the review and correction services) and by the import (which alone writes the
judge's details and the marks). The search only ever
reads published rounds, where every verdict of a run whose review is complete is public (seed 000 §5: "All
three outcomes are published"); the notes of a run still in review are left out until it is, so an entry never
says more than the run page."""

from __future__ import annotations

from collections.abc import Iterable

from scoring.common import fixed

from ..models import Run, SearchEntry, SearchKind, Verdict
from ..selectors import review_complete


def _in_review(ids: list[int]) -> list[int]:
    """Those of `ids` whose review is not complete: their notes are published with the outcome."""
    runs = Run.objects.filter(id__in=ids, verdicts__isnull=False).distinct()
    runs = runs.select_related("round__benchmark", "task").prefetch_related("verdicts")
    return [r.pk for r in runs if not review_complete(r)]


def _at(seconds: float) -> str:
    """A mark's time as its run page writes it: "9m 05s", "1h 02m", "42s" (a half second up: 90.5 s is "1m 31s")."""
    hours, rest = divmod(int(fixed(seconds, 0)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def notes_index(run_ids: Iterable[int]) -> None:
    """Rewrite the note, judge and mark entries of these runs from their verdicts, judge details and marks."""
    ids = list(run_ids)
    if not ids:
        return
    SearchEntry.objects.filter(run_id__in=ids, kind__in=[SearchKind.NOTE, SearchKind.JUDGE, SearchKind.MARK]).delete()
    notes = [
        SearchEntry(run_id=run_id, kind=SearchKind.NOTE, anchor=f"verdict-{pk}", text=note)
        for pk, run_id, note in Verdict.objects.filter(run_id__in=ids)
        .exclude(note="")
        .exclude(run_id__in=_in_review(ids))
        .values_list("id", "run_id", "note")
    ]
    judged = [
        SearchEntry(run_id=run_id, kind=SearchKind.JUDGE, anchor="judge", text=judge["narrative"])
        for run_id, judge in Run.objects.filter(id__in=ids, judge__isnull=False).values_list("id", "judge")
        if isinstance(judge, dict) and judge.get("narrative")
    ]
    marked = [
        SearchEntry(
            run_id=run_id,
            kind=SearchKind.MARK,
            anchor=f"mark-{int(m['at_seconds'])}",
            text=f"{_at(m['at_seconds'])} {m['label']}",
        )
        for run_id, marks in Run.objects.filter(id__in=ids).exclude(marks=[]).values_list("id", "marks")
        for m in (marks if isinstance(marks, list) else [])
        if isinstance(m, dict) and m.get("label") and m.get("at_seconds") is not None
    ]
    SearchEntry.objects.bulk_create(notes + judged + marked, batch_size=1000)
