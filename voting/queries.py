"""The reads every vote screen and every vote make, written in SQL.

Each of these runs once per vote screen or per vote. Through the ORM, building the query (its joins, its
ordering) cost several times what the database spends answering it; here each is one short statement with
its parameters (`bench/README.md`, "Votes under load", has the measurements). Each function says which
queryset it stands for, and the tests of the draw and of the vote (tests/voting) exercise them all.

The SQL is portable between PostgreSQL and SQLite (the embedded default): table names come from the models,
datetimes are passed through the backend's own adapter and read back as aware datetimes, and a row lock is
taken only where the database has them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from django.db import connection
from django.utils.dateparse import parse_datetime

from leaderboard.models import Entry, Task
from runs.models import Run

from .models import Held, Matchup, Vote, VoteCell, VoterFlag

# Every column of a matchup, in the model's field order (what `Model.from_db` expects).
_MATCHUP_COLUMNS = tuple(field.column for field in Matchup._meta.concrete_fields)
_MATCHUP_DATETIMES = tuple(
    i for i, field in enumerate(Matchup._meta.concrete_fields) if field.get_internal_type() == "DateTimeField"
)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _param(value: datetime) -> object:
    return connection.ops.adapt_datetimefield_value(value)


def _aware(value) -> datetime | None:
    """A datetime column read through a raw cursor: PostgreSQL gives it aware, SQLite as naive UTC (or text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _one(sql: str, params: list) -> tuple | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _all(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def matchup_open(*, voter_id: int, scope: str, now: datetime) -> Matchup | None:
    """`Matchup.objects.open(now=now).filter(voter=voter, scope=scope).first()`: the voter's latest unused,
    unexpired matchup for this scope."""
    row = _one(
        f"SELECT {', '.join(_MATCHUP_COLUMNS)} FROM {_table(Matchup)}"
        " WHERE voter_id = %s AND scope = %s AND used_at IS NULL AND expires_at > %s"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        [voter_id, scope, _param(now)],
    )
    if row is None:
        return None
    values = list(row)
    for index in _MATCHUP_DATETIMES:
        values[index] = _aware(values[index])
    return Matchup.from_db(connection.alias, [f.attname for f in Matchup._meta.concrete_fields], values)


def last_pair(*, voter_id: int) -> tuple[int, int, int] | None:
    """(task id, run A id, run B id) of the voter's latest matchup, used or not."""
    row = _one(
        f"SELECT task_id, run_a_id, run_b_id FROM {_table(Matchup)} WHERE voter_id = %s"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        [voter_id],
    )
    return (row[0], row[1], row[2]) if row else None


def pair_votes(*, task_ids: list[int]) -> dict[tuple[int, int, int], int]:
    """Counted votes per (task, lower agent id, higher agent id), from the vote cells (every outcome)."""
    if not task_ids:
        return {}
    marks = ", ".join(["%s"] * len(task_ids))
    rows = _all(
        f"SELECT task_id, agent_lo_id, agent_hi_id, SUM(n) FROM {_table(VoteCell)}"
        f" WHERE task_id IN ({marks}) GROUP BY task_id, agent_lo_id, agent_hi_id",
        list(task_ids),
    )
    return {(task, lo, hi): int(n) for task, lo, hi, n in rows}


def voter_day(*, voter_id: int, since: datetime) -> tuple[int, bool]:
    """(the voter's votes cast since `since` that count or will count, i.e. not held for the daily cap;
    whether the voter has an active flag), in one statement."""
    today, flags = _one(
        f"SELECT (SELECT COUNT(*) FROM {_table(Vote)} WHERE voter_id = %s AND cast_at >= %s AND held <> %s),"
        f" (SELECT COUNT(*) FROM {_table(VoterFlag)} WHERE voter_id = %s AND cleared_at IS NULL)",
        [voter_id, _param(since), Held.DAILY_CAP, voter_id],
    ) or (0, 0)
    return today, flags > 0


class ClaimTarget(NamedTuple):
    """What a vote reads of its matchup: whether it may be used (`services.matchup_check`) and what the vote
    stores."""

    pk: int
    voter_id: int
    used_at: datetime | None
    expires_at: datetime
    task_id: int
    run_a_id: int
    run_b_id: int
    agent_a_id: int
    agent_b_id: int
    benchmark_id: int


def claim_target(*, key: str) -> ClaimTarget | None:
    """The matchup `key` with its runs' agents and its task's benchmark, the matchup row locked until the
    transaction ends where the database has row locks: `Matchup.objects.select_for_update(of=("self",))
    .filter(key=key).values_list(..., "run_a__entry__agent_id", "run_b__entry__agent_id",
    "task__benchmark_id")`."""
    lock = " FOR UPDATE OF m" if connection.features.has_select_for_update_of else ""
    row = _one(
        "SELECT m.id, m.voter_id, m.used_at, m.expires_at, m.task_id, m.run_a_id, m.run_b_id,"
        " ea.agent_id, eb.agent_id, t.benchmark_id"
        f" FROM {_table(Matchup)} m"
        f" JOIN {_table(Run)} ra ON ra.id = m.run_a_id JOIN {_table(Entry)} ea ON ea.id = ra.entry_id"
        f" JOIN {_table(Run)} rb ON rb.id = m.run_b_id JOIN {_table(Entry)} eb ON eb.id = rb.entry_id"
        f" JOIN {_table(Task)} t ON t.id = m.task_id"
        f" WHERE m.key = %s{lock}",
        [key],
    )
    if row is None:
        return None
    pk, voter_id, used_at, expires_at, *rest = row
    return ClaimTarget(pk, voter_id, _aware(used_at), _aware(expires_at), *rest)  # type: ignore[arg-type]
