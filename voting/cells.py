"""Vote cells: the counted votes of each (task, pair of agents, outcome), kept in step with the votes.

Every write that makes a vote count, stop counting, or disappear (recording, a new account's vote maturing,
a voter flagged or cleared, an editor's correction, a bundle import) changes the cells in its own
transaction through `cells_apply`; ratings are then fitted, and digested, from the cells alone
(recompute.boards), so a refresh reads a few hundred rows whether the benchmark has ten thousand votes or
ten million.

Concurrency: a cell is changed with one statement (an upsert adding a count, or an update subtracting one),
so two transactions touching the same cell wait for each other instead of losing an update; the cells of one
write are changed in a fixed (sorted) order, so two writes touching the same cells cannot deadlock on them.
Rows whose counting changes are locked first (`votes_lock`), so a vote is counted or uncounted exactly once
even when a maturing sweep and a flag race on it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, QuerySet

from .models import Outcome, Vote, VoteCell
from .standing import standings_retire

# (task_id, agent_a_id, agent_b_id, winner): the part of a vote its cell depends on.
VoteKey = tuple[int, int, int, str]
# (task_id, agent_lo_id, agent_hi_id, outcome): a cell.
CellKey = tuple[int, int, int, str]

VOTE_CELL_FIELDS = ("task_id", "agent_a_id", "agent_b_id", "winner")


def cell_of(task_id: int, agent_a_id: int, agent_b_id: int, winner: str) -> CellKey:
    """The cell a vote belongs to: the pair in id order, the outcome seen from that order."""
    if agent_a_id < agent_b_id:
        outcome = {"a": Outcome.LO, "b": Outcome.HI}.get(winner, Outcome.TIE)
        return (task_id, agent_a_id, agent_b_id, str(outcome))
    outcome = {"a": Outcome.HI, "b": Outcome.LO}.get(winner, Outcome.TIE)
    return (task_id, agent_b_id, agent_a_id, str(outcome))


def _deltas(votes: Iterable[VoteKey], sign: int) -> Counter[CellKey]:
    deltas: Counter[CellKey] = Counter()
    for vote in votes:
        deltas[cell_of(*vote)] += sign
    return deltas


_ADD = (
    f"INSERT INTO {VoteCell._meta.db_table} (task_id, agent_lo_id, agent_hi_id, outcome, n) "
    f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (task_id, agent_lo_id, agent_hi_id, outcome) "
    f"DO UPDATE SET n = {VoteCell._meta.db_table}.n + EXCLUDED.n"
)
_SUBTRACT = (
    f"UPDATE {VoteCell._meta.db_table} SET n = n - %s "
    f"WHERE task_id = %s AND agent_lo_id = %s AND agent_hi_id = %s AND outcome = %s"
)


class CellsOutOfStep(Exception):
    """A vote stopped counting but its cell had no such count: the cells and the votes disagree."""


def cells_apply(*, added: Iterable[VoteKey] = (), removed: Iterable[VoteKey] = ()) -> None:
    """Count the votes `added` and uncount the votes `removed` (each as `VoteKey`), in the caller's
    transaction. Call it in the same transaction as the write that changed whether those votes count.

    Why SQL: no queryset says "add n to this cell, creating it at n" in one statement (an upsert that adds);
    bench/README.md, "Votes at scale" (a refresh reads the cells, not the votes)."""
    deltas = _deltas(added, 1)
    deltas.update(_deltas(removed, -1))
    changes = sorted((key, n) for key, n in deltas.items() if n)
    if not changes:
        return
    assert transaction.get_connection().in_atomic_block, "cells change in the vote's own transaction"
    with connection.cursor() as cursor:
        for (task_id, lo, hi, outcome), n in changes:
            if n > 0:
                cursor.execute(_ADD, [task_id, lo, hi, outcome, n])
                continue
            cursor.execute(_SUBTRACT, [-n, task_id, lo, hi, outcome])
            if cursor.rowcount != 1:
                raise CellsOutOfStep(f"no cell {(task_id, lo, hi, outcome)} to uncount {-n} vote(s) from")


def votes_lock(votes: QuerySet[Vote]) -> list[tuple[int, VoteKey]]:
    """Lock the rows of `votes` (in id order) and return `(id, VoteKey)` for each; a row that changed while
    waiting for its lock is re-read, and left out if it no longer matches."""
    rows = votes.select_for_update(of=("self",)).order_by("id").values_list("id", *VOTE_CELL_FIELDS)
    return [(row[0], tuple(row[1:])) for row in rows]  # type: ignore[misc]


def votes_add(votes: list[Vote], *, batch_size: int = 1000) -> list[Vote]:
    """Store new votes (a bundle import, a test's fixture) and count the counting ones into their cells."""
    with transaction.atomic():
        standings_retire(v.voter_id for v in votes)  # a site voter's day may hold them
        created = Vote.objects.bulk_create(votes, batch_size=batch_size)
        cells_apply(added=[(v.task_id, v.agent_a_id, v.agent_b_id, v.winner) for v in votes if v.counts])
    return created


# --- checking ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellDifference:
    cell: CellKey
    stored: int
    counted: int

    def __str__(self) -> str:
        task_id, lo, hi, outcome = self.cell
        return (
            f"task {task_id}, agents {lo} vs {hi}, outcome {outcome}: "
            f"the cell says {self.stored}, the votes say {self.counted}"
        )


def cells_count(votes: QuerySet) -> Counter[CellKey]:
    """The cells of the counted votes in `votes` (a Vote queryset, the historical model's in a migration), by
    one grouped query."""
    counted: Counter[CellKey] = Counter()
    grouped = votes.filter(counts=True).values_list(*VOTE_CELL_FIELDS).annotate(n=Count("id")).order_by()
    for task_id, a, b, winner, n in grouped:
        counted[cell_of(task_id, a, b, winner)] += n
    return counted


def cells_counted() -> Counter[CellKey]:
    """The cells as a fresh count of the counted votes would make them."""
    return cells_count(Vote.objects.all())


def cells_differences() -> list[CellDifference]:
    """Every cell whose stored count differs from a fresh count of the votes (none when all is well)."""
    counted = cells_counted()
    stored = Counter(
        {
            (t, lo, hi, o): n
            for t, lo, hi, o, n in VoteCell.objects.values_list("task_id", "agent_lo_id", "agent_hi_id", "outcome", "n")
        }
    )
    keys = sorted(k for k in set(counted) | set(stored) if counted[k] != stored[k])
    return [CellDifference(k, stored[k], counted[k]) for k in keys]


def cells_rebuild() -> list[CellDifference]:
    """Recount the cells from the votes and store the recount. Returns the differences it corrected.

    On PostgreSQL the cell table is locked first, so a vote committed while the recount runs waits and then
    adds its own count on top of the rebuilt cells instead of being lost or counted twice.

    Why SQL: a table lock, which the ORM does not take."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {VoteCell._meta.db_table} IN EXCLUSIVE MODE")
        differences = cells_differences()
        if differences:
            counted = cells_counted()
            VoteCell.objects.all().delete()
            VoteCell.objects.bulk_create(
                [
                    VoteCell(task_id=t, agent_lo_id=lo, agent_hi_id=hi, outcome=o, n=n)
                    for (t, lo, hi, o), n in counted.items()
                ],
                batch_size=1000,
            )
    return differences
