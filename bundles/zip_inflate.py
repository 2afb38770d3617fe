"""What a zip really inflates to, counted chunk by chunk before anything reads it whole.

A zip's headers declare each entry's size, but nothing makes them true, and a few kilobytes of compressed data
can inflate to gigabytes. `check_inflated` inflates every entry in chunks of at most `CHUNK` bytes, counts
the bytes that actually come out, and stops at the first entry, or the first chunk of the whole, over its
limit. Python's own `zipfile` cannot be used for the counting: for zstandard (which Inspect writes its `.eval`
logs with) and bzip2 it inflates a whole read of compressed input at once, however much that makes. So each
entry's compressed bytes are read here from the file (within the size the central directory gives them) and
fed to a decompressor that returns at most `CHUNK` bytes per step: stored, deflate and zstandard entries; any
other method is refused.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, cast

try:
    import zstandard
except ImportError:  # comes with the inspect extra (zipfile-zstd), like the logs that need it
    zstandard = None  # type: ignore[assignment]

CHUNK = 1 << 20
ZIP_ZSTANDARD = 93
LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # the 30 bytes before an entry's name: sizes of name and extra last
LOCAL_SIGNATURE = b"PK\x03\x04"


@dataclass
class OverLimit(Exception):
    """An entry (`entry` names it) or the whole zip (`entry` None) inflates past its limit of `limit` bytes;
    `declared`: the zip's headers said so, nothing was inflated."""

    entry: str | None
    limit: int
    declared: bool = False


def check_inflated(f: IO[bytes], *, max_entry: int, max_total: int) -> int:
    """How many bytes the zip in `f` inflates to, or `OverLimit`. A zip that cannot be read raises what
    `zipfile` raises (BadZipFile, NotImplementedError for a method not read here, zlib or zstandard errors)."""
    with zipfile.ZipFile(f) as archive:
        members = archive.infolist()
    for m in members:
        if m.file_size > max_entry:
            raise OverLimit(m.filename, max_entry, declared=True)
    if sum(m.file_size for m in members) > max_total:
        raise OverLimit(None, max_total, declared=True)
    total = 0
    for m in members:
        inflated = 0
        for chunk in _inflated(f, m):
            inflated += len(chunk)
            total += len(chunk)
            if inflated > max_entry:
                raise OverLimit(m.filename, max_entry)
            if total > max_total:
                raise OverLimit(None, max_total)
    return total


def entry_chunks(f: IO[bytes], info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The entry's inflated bytes, in chunks of at most CHUNK, for a reader that counts what it takes as it goes
    (`scoring.bounded_json`): an entry is never held whole before it has been counted."""
    return _inflated(f, info)


def _inflated(f: IO[bytes], info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The entry's inflated bytes, in chunks of at most CHUNK."""
    if info.flag_bits & 0x1:
        raise RuntimeError(f"{info.filename!r} is encrypted")
    f.seek(info.header_offset)
    header = f.read(LOCAL_HEADER.size)
    if len(header) != LOCAL_HEADER.size or header[:4] != LOCAL_SIGNATURE:
        raise zipfile.BadZipFile(f"{info.filename!r}: bad local file header")
    *_, name_length, extra_length = LOCAL_HEADER.unpack(header)
    f.seek(info.header_offset + LOCAL_HEADER.size + name_length + extra_length)
    raw = _Limited(f, info.compress_size)
    if info.compress_type == zipfile.ZIP_STORED:
        yield from iter(lambda: raw.read(CHUNK), b"")
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        yield from _deflated(raw)
    elif info.compress_type == ZIP_ZSTANDARD and zstandard is not None:
        source = cast(IO[bytes], raw)  # it has the one method a stream reader calls: read(n)
        reader = zstandard.ZstdDecompressor().stream_reader(source, read_across_frames=True, closefd=False)
        yield from iter(lambda: reader.read(CHUNK), b"")
    else:
        raise NotImplementedError(f"{info.filename!r}: compression method {info.compress_type} is not read")


def _deflated(raw: _Limited) -> Iterator[bytes]:
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    while not inflater.eof:
        data = inflater.unconsumed_tail or raw.read(CHUNK)
        out = inflater.decompress(data, CHUNK)
        if out:
            yield out
        elif not data:
            return  # the compressed data ended before the stream did: the reader that follows says so


class _Limited:
    """At most `size` bytes of `f` from where it stands."""

    def __init__(self, f: IO[bytes], size: int) -> None:
        self.f, self.left = f, size

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.f.read(n) if n > 0 else b""
        self.left -= len(data)
        return data
