"""A benchmark's votes as a file of gzip-compressed JSON lines, streamed.

One line per vote, the fields of a bundle's `votes[]` (`id`, `task`, `a`, `b`, `winner`, `voter`, `cast_at`,
`counts`), voters pseudonymous as in the bundle. The rows are read through a server-side cursor in
batches and compressed as they go, so the memory a download takes does not grow with the number of votes.
Above `VOTES_INLINE_LIMIT` public votes the bundle download carries `votes_file` (where this file is and how
many votes it holds) instead of inlining them; `recount BUNDLE --votes FILE` recounts the two together.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from itertools import islice
from typing import Any

import orjson
from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connection

from leaderboard.models import Agent, Benchmark, Task
from voting.models import Vote

from .fields import iso

VOTES_FILE_FORMAT = "agent-leaderboard-votes/1 (gzip, one JSON vote per line)"
_FIELDS = ("key", "task_id", "agent_a_id", "agent_b_id", "winner", "voter_id", "voter_label", "cast_at")


def pseudonym(voter_id: int | None, label: str) -> str:
    """A voter's stable pseudonym: imported votes keep theirs; site votes get one derived from the account id
    with the site's secret, so a download never reveals who voted."""
    if voter_id is None:
        return label
    digest = hashlib.sha256(f"{settings.SECRET_KEY}:voter:{voter_id}".encode()).hexdigest()
    return f"voter-{digest[:10]}"


def votes_file_rows(benchmark: Benchmark, *, include_unpublished: bool = False):
    """The benchmark's votes, public ones only unless `include_unpublished` (`VoteQuerySet.public`)."""
    if include_unpublished:
        return Vote.objects.filter(task__benchmark=benchmark)
    return Vote.objects.public_of(benchmark.id)


def votes_file_chunks(
    benchmark: Benchmark, *, include_unpublished: bool = False, batch: int = 5000, level: int = 6
) -> Iterator[bytes]:
    """The votes file, as gzip bytes in pieces (a StreamingHttpResponse's body, or written to a file). On
    PostgreSQL the lines are made by the database (`_copy_lines`); elsewhere here, one by one."""
    if connection.vendor == "postgresql":
        return _gzipped(_copy_lines(benchmark, include_unpublished=include_unpublished), batch, level)
    return _python_chunks(benchmark, include_unpublished=include_unpublished, batch=batch, level=level)


def _gzipped(rows: Iterator[Any], batch: int, level: int) -> Iterator[bytes]:
    """COPY's rows joined `batch` at a time (in C: no Python step per row here) and compressed as they come."""
    gz = zlib.compressobj(level, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    while block := b"".join(islice(rows, batch)):
        piece = gz.compress(_unescaped(block))
        if piece:
            yield piece
    yield gz.flush()


def _unescaped(block: bytes) -> bytes:
    # COPY's text format doubles every backslash and would escape a newline, tab or carriage return; a JSON text
    # never holds those three raw (to_json escapes every control character), so undoing it is one replace.
    # Each row is whole (one CopyData message per row), so no "\\" pair is ever cut between two batches.
    return block.replace(b"\\\\", b"\\")


# Each vote's line, made by PostgreSQL exactly as the Python path writes it: the same keys in the same order with
# no spaces (orjson's compact form), strings through to_json (JSON's escapes, non-ASCII kept as it is), the
# pseudonym from the same digest, `cast_at` as `iso` writes it (microseconds only when there are any, "Z").
_LINE_SQL = """
SELECT '{{"id":' || to_json(v.key)::text
    || ',"task":' || to_json(t.key)::text
    || ',"a":' || to_json(aa.slug)::text
    || ',"b":' || to_json(ab.slug)::text
    || ',"winner":' || to_json(v.winner)::text
    || ',"voter":' || to_json(CASE WHEN v.voter_id IS NULL THEN v.voter_label ELSE 'voter-' || left(encode(
        sha256(convert_to(%s || ':voter:' || v.voter_id::text, 'UTF8')), 'hex'), 10) END)::text
    || ',"cast_at":' || CASE WHEN v.cast_at IS NULL THEN 'null' ELSE '"'
        || to_char(v.cast_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')
        || CASE WHEN extract(microseconds FROM v.cast_at)::bigint %% 1000000 = 0 THEN ''
            ELSE '.' || to_char(v.cast_at AT TIME ZONE 'UTC', 'US') END
        || 'Z"' END
    || ',"counts":' || CASE WHEN v.counts THEN 'true' ELSE 'false' END
    || '}}'
FROM ({inner}) v
JOIN {task} t ON t.id = v.task_id
JOIN {agent} aa ON aa.id = v.agent_a_id
JOIN {agent} ab ON ab.id = v.agent_b_id
ORDER BY v.id
"""


def _copy_lines(benchmark: Benchmark, *, include_unpublished: bool) -> Iterator[Any]:
    votes = (
        Vote.objects.filter(task__benchmark=benchmark) if include_unpublished else Vote.objects.public_of(benchmark.id)
    )
    try:
        inner, params = votes.order_by().values(*_FIELDS[:-1], "id", "cast_at", "counts").query.sql_with_params()
    except EmptyResultSet:  # no public task or agent yet (`public_of` filters by empty lists): no vote to write
        return
    sql = _LINE_SQL.format(inner=inner, task=Task._meta.db_table, agent=Agent._meta.db_table)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY ({sql}) TO STDOUT", [settings.SECRET_KEY, *params]) as copy,
    ):
        yield from copy


def _python_chunks(benchmark: Benchmark, *, include_unpublished: bool, batch: int, level: int) -> Iterator[bytes]:
    # Task keys and agent slugs from two small maps, so the scan of the votes joins nothing.
    task_key = dict(Task.objects.filter(benchmark=benchmark).values_list("id", "key"))
    slug = dict(Agent.objects.values_list("id", "slug"))
    votes = (
        Vote.objects.filter(task__benchmark=benchmark) if include_unpublished else Vote.objects.public_of(benchmark.id)
    )
    rows = votes.order_by("id").values_list(*_FIELDS, "counts").iterator(chunk_size=batch)
    gz = zlib.compressobj(level, zlib.DEFLATED, 31)  # wbits 31: a gzip header and trailer
    voters: dict[tuple[int | None, str], str] = {}  # a voter's pseudonym, hashed once per voter, not per vote
    lines: list[bytes] = []
    for key, task_id, a, b, winner, voter_id, label, cast_at, counts in rows:
        voter = voters.get((voter_id, label))
        if voter is None:
            voter = voters[(voter_id, label)] = pseudonym(voter_id, label)
        doc = {
            "id": key,
            "task": task_key[task_id],
            "a": slug[a],
            "b": slug[b],
            "winner": winner,
            "voter": voter,
            "cast_at": iso(cast_at),
            "counts": counts,
        }
        # orjson writes what json.dumps(doc, ensure_ascii=False, separators=(",", ":")) writes, several
        # times faster (bench/README.md, "Votes at scale").
        lines.append(orjson.dumps(doc))
        if len(lines) >= batch:
            piece = gz.compress(b"\n".join(lines) + b"\n")
            lines.clear()
            if piece:
                yield piece
    yield gz.compress(b"\n".join(lines) + b"\n" if lines else b"") + gz.flush()
