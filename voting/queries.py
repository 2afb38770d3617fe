"""The reads every vote screen and every vote make, written in SQL.

Each of these runs once per vote screen or per vote. Through the ORM, building the query (its joins, its
ordering) cost several times what the database spends answering it; here each is one short statement with
its parameters (`bench/README.md`, "Votes under load", has the measurements). Each function says which
queryset it stands for, and the tests of the draw and of the vote (tests/voting) exercise them all.

Hand-written SQL stays only where a figure in `bench/` shows the ORM cannot reach the target: each function
names its figure under "Why SQL". Everything else is a queryset (the draw's check of its two runs went back to
one: `voting.drawable.drawable_run_ids`).

The SQL is portable between PostgreSQL and SQLite (the embedded default): table names come from the models,
datetimes are passed through the backend's own adapter and read back as aware datetimes, and a row lock is
taken only where the database has them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Model
from django.utils.dateparse import parse_datetime

from leaderboard.models import Agent, Benchmark, Entry, Organization, Round, RoundStatus, Task
from runs.models import Run

from .models import AccountAddress, Held, Matchup, Vote, VoteCell, VoterFlag

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


def _matchup(row) -> Matchup:
    """A Matchup from its columns (`_MATCHUP_COLUMNS`) read through a raw cursor."""
    values = list(row)
    for index in _MATCHUP_DATETIMES:
        values[index] = _aware(values[index])
    return Matchup.from_db(connection.alias, [f.attname for f in Matchup._meta.concrete_fields], values)


def matchup_open(*, voter_id: int, scope: str, now: datetime) -> Matchup | None:
    """`Matchup.objects.open(now=now).filter(voter=voter, scope=scope).first()`: the voter's latest unused,
    unexpired matchup for this scope.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    row = _one(
        f"SELECT {', '.join(_MATCHUP_COLUMNS)} FROM {_table(Matchup)}"
        " WHERE voter_id = %s AND scope = %s AND used_at IS NULL AND expires_at > %s"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        [voter_id, scope, _param(now)],
    )
    return None if row is None else _matchup(row)


class RevealedRun(NamedTuple):
    """What the screen shows of a side once the vote is cast: who made it, and where its run page is."""

    run_id: int
    run_key: str
    round_key: str
    agent_name: str
    organization_name: str  # "" for an agent without an organization
    model: str


class Reveal(NamedTuple):
    """A matchup with what its reveal shows: the benchmark, the two sides' makers and the vote cast on it."""

    matchup: Matchup
    benchmark_slug: str
    side_a: RevealedRun
    side_b: RevealedRun
    vote_winner: str | None  # None: no vote on this matchup
    vote_held: str
    vote_counts_from: datetime | None


def _reveal_select() -> tuple[str, str]:
    """The columns and joins (from the matchup `m`) of a matchup with its benchmark's slug and both sides'
    makers (`Reveal` without the vote); the tables are aliased t (task), b (benchmark), ra / rb (the runs), da /
    db (their rounds), ea / eb (their entries), aa / ab (their agents), oa / ob (their organizations)."""
    tables = {
        "run": _table(Run),
        "round": _table(Round),
        "entry": _table(Entry),
        "agent": _table(Agent),
        "org": _table(Organization),
    }
    columns = [*("m." + c for c in _MATCHUP_COLUMNS), "b.slug"]
    joins = [f" JOIN {_table(Task)} t ON t.id = m.task_id JOIN {_table(Benchmark)} b ON b.id = t.benchmark_id"]
    for x in ("a", "b"):
        names = {"r": f"r{x}", "d": f"d{x}", "e": f"e{x}", "a": f"a{x}", "o": f"o{x}", "x": x, **tables}
        columns.append("{r}.id, {r}.key, {d}.key, {a}.name, COALESCE({o}.name, ''), {e}.model".format(**names))
        joins.append(
            " JOIN {run} {r} ON {r}.id = m.run_{x}_id JOIN {round} {d} ON {d}.id = {r}.round_id"
            " JOIN {entry} {e} ON {e}.id = {r}.entry_id JOIN {agent} {a} ON {a}.id = {e}.agent_id"
            " LEFT JOIN {org} {o} ON {o}.id = {a}.organization_id".format(**names)
        )
    return ", ".join(columns), "".join(joins)


_REVEAL_WIDTH = len(_MATCHUP_COLUMNS) + 13  # the columns of `_reveal_select`


def _reveal(row, vote: tuple = (None, "", None)) -> Reveal:
    n = len(_MATCHUP_COLUMNS)
    winner, held, counts_from = vote
    return Reveal(
        _matchup(row[:n]),
        row[n],
        RevealedRun(*row[n + 1 : n + 7]),
        RevealedRun(*row[n + 7 : n + 13]),
        winner,
        held or "",
        _aware(counts_from),
    )


def matchup_reveal(*, key: str) -> Reveal | None:
    """The matchup `key` with its vote and the names of both sides, in one statement:
    `Matchup.objects.select_related("task__benchmark", "run_a__entry__agent__organization", "run_a__round",
    ..., "vote").filter(key=key).first()`.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    columns, joins = _reveal_select()
    row = _one(
        f"SELECT {columns}, v.winner, v.held, v.counts_from FROM {_table(Matchup)} m{joins}"
        f" LEFT JOIN {_table(Vote)} v ON v.matchup_id = m.id WHERE m.key = %s",
        [key],
    )
    return None if row is None else _reveal(row, row[_REVEAL_WIDTH:])


def last_pair(*, voter_id: int) -> tuple[int, int, int] | None:
    """(task id, run A id, run B id) of the voter's latest matchup, used or not.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    row = _one(
        f"SELECT task_id, run_a_id, run_b_id FROM {_table(Matchup)} WHERE voter_id = %s"
        " ORDER BY created_at DESC, id DESC LIMIT 1",
        [voter_id],
    )
    return (row[0], row[1], row[2]) if row else None


def pair_votes(*, task_ids: list[int]) -> dict[tuple[int, int, int], int]:
    """Counted votes per (task, lower agent id, higher agent id), from the vote cells (every outcome).

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    if not task_ids:
        return {}
    marks = ", ".join(["%s"] * len(task_ids))
    rows = _all(
        f"SELECT task_id, agent_lo_id, agent_hi_id, SUM(n) FROM {_table(VoteCell)}"
        f" WHERE task_id IN ({marks}) GROUP BY task_id, agent_lo_id, agent_hi_id",
        list(task_ids),
    )
    return {(task, lo, hi): int(n) for task, lo, hi, n in rows}


def voter_pairs(*, voter_id: int, task_ids: list[int]) -> set[tuple[int, int, int]]:
    """The pairs the voter has voted on in these tasks, as (task, lower agent id, higher agent id), whichever
    agent was shown as A and whether the vote counts.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    if not task_ids:
        return set()
    marks = ", ".join(["%s"] * len(task_ids))
    rows = _all(
        "SELECT DISTINCT task_id,"
        " CASE WHEN agent_a_id < agent_b_id THEN agent_a_id ELSE agent_b_id END,"
        " CASE WHEN agent_a_id < agent_b_id THEN agent_b_id ELSE agent_a_id END"
        f" FROM {_table(Vote)} WHERE voter_id = %s AND task_id IN ({marks})",
        [voter_id, *task_ids],
    )
    return {(task, lo, hi) for task, lo, hi in rows}


class VoterDay(NamedTuple):
    today: int  # votes cast since `since` that count or will count (not held for the cap or the address)
    flagged: bool  # an active flag
    unconfirmed: bool  # the account's address is not confirmed yet (`services.addresses`)


def voter_day(*, voter_id: int, since: datetime) -> VoterDay:
    """Where the voter stands today (`VoterDay`), in one statement.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    today, flags, unconfirmed = _one(
        f"SELECT (SELECT COUNT(*) FROM {_table(Vote)} WHERE voter_id = %s AND cast_at >= %s AND held NOT IN (%s, %s)),"
        f" (SELECT COUNT(*) FROM {_table(VoterFlag)} WHERE voter_id = %s AND cleared_at IS NULL),"
        f" (SELECT COUNT(*) FROM {_table(AccountAddress)} WHERE user_id = %s AND confirmed_at IS NULL)",
        [voter_id, _param(since), Held.DAILY_CAP, Held.UNCONFIRMED, voter_id, voter_id],
    ) or (0, 0, 0)
    return VoterDay(today, flags > 0, unconfirmed > 0)


class ClaimTarget(NamedTuple):
    """What a vote reads of its matchup: whether it may be used (`services.drawing.matchup_check`), what the vote
    stores, and what the screen then reveals."""

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
    published: bool  # both runs' rounds are still published (`Round.is_published`)
    reveal: Reveal  # without the vote (its fields are None)


def claim_target(*, key: str) -> ClaimTarget | None:
    """The matchup `key` with its runs' agents, its task's benchmark and what its reveal shows, the matchup row
    locked until the transaction ends where the database has row locks:
    `Matchup.objects.select_for_update(of=("self",)).filter(key=key).values_list(..., "run_a__entry__agent_id",
    "run_b__entry__agent_id", "task__benchmark_id")` plus `matchup_reveal`'s columns, in one statement.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    lock = " FOR UPDATE OF m" if connection.features.has_select_for_update_of else ""
    columns, joins = _reveal_select()
    row = _one(
        f"SELECT {columns}, ea.agent_id, eb.agent_id, t.benchmark_id, da.status, db.status"
        f" FROM {_table(Matchup)} m{joins} WHERE m.key = %s{lock}",
        [key],
    )
    if row is None:
        return None
    reveal = _reveal(row)
    m = reveal.matchup
    agent_a, agent_b, benchmark_id, status_a, status_b = row[_REVEAL_WIDTH:]
    return ClaimTarget(
        m.pk,
        m.voter_id,
        m.used_at,
        m.expires_at,
        m.task_id,
        m.run_a_id,
        m.run_b_id,
        agent_a,
        agent_b,
        benchmark_id,
        status_a == RoundStatus.PUBLISHED and status_b == RoundStatus.PUBLISHED,
        reveal,
    )


def voter_lock(*, voter_id: int) -> None:
    """Lock the voter's row until the transaction ends, where the database has row locks (SQLite's
    transactions already run one writer at a time): `User.objects.select_for_update().filter(pk=voter_id)`.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    if connection.features.has_select_for_update:
        _one(f"SELECT id FROM {_table(get_user_model())} WHERE id = %s FOR UPDATE", [voter_id])


def matchup_use(*, matchup_id: int, now: datetime) -> bool:
    """Mark the matchup used, if no one has: `Matchup.objects.filter(pk=..., used_at__isnull=True)
    .update(used_at=now) == 1`. The conditional update is the claim: only one request can turn it from NULL.

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_table(Matchup)} SET used_at = %s WHERE id = %s AND used_at IS NULL", [_param(now), matchup_id]
        )
        return cursor.rowcount == 1


def insert(obj: Model) -> Model:
    """`obj.save()` for a new row, in one INSERT built without the ORM's query compiler: what the vote and the
    draw use to store the vote and the next pair (`Model.objects.create` cost several times the statement). The
    field values go through each field's own `pre_save` and `get_db_prep_save`, as the ORM does; the model's
    save signals are not sent (the site has no receivers: "this changed" is said by the services).

    Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
    costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's CPU."""
    fields = [f for f in obj._meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(obj, add=True), connection) for f in fields]
    pk = obj._meta.pk
    sql = (
        f"INSERT INTO {_table(type(obj))} ({', '.join(connection.ops.quote_name(f.column) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(fields))})"
    )
    with connection.cursor() as cursor:
        if connection.features.can_return_columns_from_insert:
            cursor.execute(f"{sql} RETURNING {connection.ops.quote_name(pk.column)}", values)
            obj.pk = cursor.fetchone()[0]
        else:
            cursor.execute(sql, values)
            obj.pk = cursor.lastrowid
    obj._state.adding = False
    obj._state.db = connection.alias
    return obj
