"""What a reader can search besides transcripts (`SearchEntry`): the reviewers' notes of a run, one entry per
verdict with a note (anchor "verdict-<id>", kind "note"), and the judge's narrative (anchor "judge"). Kept in
step by every write of a verdict (the review and correction services) and by the import. The search only ever
reads published rounds, where every verdict of a run whose review is complete is public (seed 000 §5: "All
three outcomes are published"); the notes of a run still in review are left out until it is, so an entry never
says more than the run page."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import Run, SearchEntry, SearchKind, Verdict
from ..selectors import review_complete


def _in_review(ids: list[int]) -> list[int]:
    """Those of `ids` whose review is not complete: their notes are published with the outcome."""
    runs = Run.objects.filter(id__in=ids, verdicts__isnull=False).distinct()
    runs = runs.select_related("round__benchmark", "task").prefetch_related("verdicts")
    return [r.pk for r in runs if not review_complete(r)]


def notes_index(run_ids: Iterable[int]) -> None:
    """Rewrite the note and judge entries of these runs from their verdicts and judge details."""
    ids = list(run_ids)
    if not ids:
        return
    SearchEntry.objects.filter(run_id__in=ids, kind__in=[SearchKind.NOTE, SearchKind.JUDGE]).delete()
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
    SearchEntry.objects.bulk_create(notes + judged, batch_size=1000)
