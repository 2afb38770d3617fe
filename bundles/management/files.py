"""Reading the files the management commands are given, with a clear error for each way a file can be wrong."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from django.core.management.base import CommandError

from scoring.bundle import DocumentError, parse_document


def read_json(name: str | Path):
    """The parsed JSON document in the file `name`; CommandError naming the file when it is missing, not
    UTF-8, not JSON or too deep or long to parse (`parse_document`)."""
    path = Path(name)
    try:
        return parse_document(path.read_bytes())
    except FileNotFoundError:
        raise CommandError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise CommandError(f"{name}: a folder, not a file") from None
    except DocumentError as exc:
        raise CommandError(f"{name}: {exc}") from None


@contextmanager
def read_json_lines(name: str | Path) -> Iterator[Iterator[Any]]:
    """The lines of a JSON-lines file (a votes file; gzip or plain), parsed one at a time; a line that is not
    JSON is passed on as its text, so the reader reports it ("not a JSON object") with its line number."""
    path = Path(name)
    if not path.is_file():
        raise CommandError(f"{name}: no such file" if not path.exists() else f"{name}: a folder, not a file")
    with path.open("rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    with opener(path, "rb") as fh:
        yield _parsed_lines(fh)


def _parsed_lines(fh) -> Iterator[Any]:
    """Each non-blank line of `fh` parsed with orjson (as strict as `parse_document`: no NaN or Infinity, no
    invalid UTF-8, a depth limit, and several times faster: a votes file holds millions of lines,
    bench/README.md "Votes at scale"). A line that is not JSON is passed on as its text, in its place, so the
    reader reports it with its number."""
    loads, error = orjson.loads, orjson.JSONDecodeError
    for line in fh:
        try:
            yield loads(line)
        except error:
            if line.strip():  # a blank line is skipped
                yield line.decode("utf-8", errors="replace")
