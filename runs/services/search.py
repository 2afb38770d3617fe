"""What a reader can search besides transcripts (`SearchEntry`): the reviewers' notes of a run, one entry per
verdict with a note (anchor "verdict-<id>", kind "note"), and the judge's narrative (anchor "judge"). Kept in
step by every write of a verdict (the review and correction services) and by the import. The search only ever
reads published rounds, where every verdict is public (seed 000 §5: "All three outcomes are published"), so an
entry never says more than the run page."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import Run, SearchEntry, SearchKind, Verdict


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
        .exclude(run__outcome="")  # a run still in review: its notes are published with its outcome
        .values_list("id", "run_id", "note")
    ]
    judged = [
        SearchEntry(run_id=run_id, kind=SearchKind.JUDGE, anchor="judge", text=judge["narrative"])
        for run_id, judge in Run.objects.filter(id__in=ids, judge__isnull=False).values_list("id", "judge")
        if isinstance(judge, dict) and judge.get("narrative")
    ]
    SearchEntry.objects.bulk_create(notes + judged, batch_size=1000)
