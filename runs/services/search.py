"""What a reader can search besides transcripts (`SearchEntry`): the reviewers' notes of a run, one entry per
verdict with a note (anchor "verdict-<id>", kind "note"). Kept in step by every write of a verdict (the review
and correction services, the import). The search only ever reads published rounds, where every verdict is public
(seed 000 §5: "All three outcomes are published"), so an entry never says more than the run page."""

from __future__ import annotations

from collections.abc import Iterable

from ..models import SearchEntry, SearchKind, Verdict


def notes_index(run_ids: Iterable[int]) -> None:
    """Rewrite the note entries of these runs from their verdicts."""
    ids = list(run_ids)
    if not ids:
        return
    SearchEntry.objects.filter(run_id__in=ids, kind=SearchKind.NOTE).delete()
    SearchEntry.objects.bulk_create(
        [
            SearchEntry(run_id=run_id, kind=SearchKind.NOTE, anchor=f"verdict-{pk}", text=note)
            for pk, run_id, note in Verdict.objects.filter(run_id__in=ids)
            .exclude(note="")
            .values_list("id", "run_id", "note")
        ],
        batch_size=1000,
    )
