"""Editors' changes to votes from the admin: correcting or removing a vote, its vote cell and ratings kept in step."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction

from leaderboard.stale import snapshots_mark_stale
from runs.selectors import user_is_editor

from ..cells import VOTE_CELL_FIELDS, cells_apply
from ..models import Vote
from ..standing import standings_retire


def vote_change(*, vote: Vote, by, changes: dict | None = None, delete: bool = False) -> None:
    """An editor corrects or removes a vote from the admin: the ratings of its benchmark are refit."""
    if not user_is_editor(by):
        raise PermissionDenied("Only editors may change votes.")
    with transaction.atomic():
        # The stored row, locked: its cell is uncounted from what it was, not from what the form holds.
        before = (
            Vote.objects.select_for_update()
            .filter(pk=vote.pk)
            .values_list("counts", *VOTE_CELL_FIELDS, "voter_id")
            .first()
        )
        # The voter's day may change (a vote removed, moved to another voter, held differently).
        standings_retire([vote.voter_id, before[-1] if before else None])
        if before is not None and before[0]:
            cells_apply(removed=[before[1:-1]])
        if delete:
            Vote.objects.filter(pk=vote.pk).delete()
        else:
            for name, value in (changes or {}).items():
                setattr(vote, name, value)
            vote.save()
            if vote.counts:
                cells_apply(added=[(vote.task_id, vote.agent_a_id, vote.agent_b_id, vote.winner)])
        snapshots_mark_stale(rating_task_ids={before[1] if before else vote.task_id, vote.task_id})
