"""Reading the files the management commands are given, with a clear error for each way a file can be wrong."""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

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


# Blocks of about this many bytes (decompressed): large enough that the per-block work is nothing, small
# enough to stay in the processor's cache (bench/README.md, "Votes at scale").
BLOCK_BYTES = 1 << 20


def read_line_blocks(name: str | Path) -> Callable[[], Iterator[bytes]]:
    """A JSON-lines file (a votes file; gzip, including several gzip members one after the other, or plain)
    as a function giving its content in blocks of whole lines, each ending with a newline except perhaps the
    last; each call reads the file from its start. CommandError naming the file when it is missing, a folder,
    or a damaged or cut-short gzip file."""
    path = Path(name)
    if not path.is_file():
        raise CommandError(f"{name}: no such file" if not path.exists() else f"{name}: a folder, not a file")

    def blocks() -> Iterator[bytes]:
        with path.open("rb") as probe:
            compressed = probe.read(2) == b"\x1f\x8b"
        opener = gzip.open if compressed else open
        try:
            with opener(path, "rb") as fh:
                yield from _whole_lines(fh)
        except (EOFError, OSError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
            raise CommandError(f"{name}: not a readable gzip file ({exc})") from None

    return blocks


def _whole_lines(fh) -> Iterator[bytes]:
    pending: list[bytes] = []  # the start of a line longer than a block
    while data := fh.read(BLOCK_BYTES):
        cut = data.rfind(b"\n") + 1
        if not cut:
            pending.append(data)
            continue
        if pending:
            pending.append(data[:cut])
            yield b"".join(pending)
            pending = []
        else:
            yield data[:cut]
        if cut < len(data):
            pending.append(data[cut:])
    if pending:
        yield b"".join(pending)
