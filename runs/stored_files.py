"""Sending a stored file (from any storage of settings.STORAGES) to a browser: streamed as it is read, never
loaded whole into memory, with HTTP range requests (RFC 9110 §14) so that a long recording can be sought.

On the local disk the file is opened, sought and read in blocks. In object storage (django-storages' S3
backend) opening a file would download all of it into a temporary file first; the object's own body is read
instead, asking the storage for the bytes of the range only.

Only a single byte range is answered with 206 (`Content-Range: bytes first-last/size`); a range past the end is
416 (`Content-Range: bytes */size`); a header that is not one plain byte range (several ranges, another unit,
bad syntax) is ignored and the whole file sent, as the RFC allows. `If-Range` with a date other than the
file's `Last-Modified` sends the whole file (the copy the client holds is not this one).
"""

from __future__ import annotations

import mimetypes
import re
from typing import IO, Any

from django.core.files.storage import Storage
from django.http import FileResponse, HttpRequest, HttpResponse
from django.utils.http import http_date

_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$", re.IGNORECASE)
_ENCODED_TYPES = {"bzip2": "application/x-bzip", "gzip": "application/gzip", "xz": "application/x-xz"}
BLOCK_SIZE = 64 * 1024


class Unsatisfiable(Exception):
    """A byte range that selects nothing of the file."""


def content_type_for(name: str) -> str:
    """What FileResponse would guess from the name (a compressed file is the compressed type)."""
    guessed, encoding = mimetypes.guess_type(name)
    return _ENCODED_TYPES.get(encoding or "", guessed or "") or "application/octet-stream"


def byte_range(header: str, size: int) -> tuple[int, int] | None:
    """(first, last) byte positions, inclusive, of a `Range` header of one byte range; None to send the whole
    file (no header, or one that is not a single byte range); Unsatisfiable for a range outside the file."""
    match = _RANGE.match(header or "")
    if match is None:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # the last N bytes
        suffix = int(last)
        if suffix == 0 or size == 0:
            raise Unsatisfiable
        return max(0, size - suffix), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if last and int(last) < start:
        return None  # not a valid range: ignored
    if start >= size:
        raise Unsatisfiable
    return start, end


class _Slice:
    """At most `length` bytes of an open file, from where it stands."""

    def __init__(self, handle: IO[bytes], length: int) -> None:
        self.handle, self.left = handle, length

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            return b""
        data = self.handle.read(self.left if size < 0 else min(size, self.left))
        self.left -= len(data)
        return data

    def close(self) -> None:
        self.handle.close()


def _reader(handle: Any, start: int, length: int) -> Any:
    obj = getattr(handle, "obj", None)
    if obj is not None and hasattr(obj, "get"):  # django-storages' S3File: the object's body, only these bytes
        handle.close()
        return obj.get(Range=f"bytes={start}-{start + length - 1}")["Body"]
    handle.seek(start)
    return _Slice(handle, length)


def streamed(handle: Any) -> Any:
    """A file opened from a storage, to be read whole in blocks (from object storage: the object's body)."""
    size = handle.size
    return _reader(handle, 0, size) if size else _Slice(handle, 0)


def stored_file_response(request: HttpRequest, storage: Storage, name: str, content_type: str = "") -> HttpResponse:
    """The stored file `name`, whole (200) or the one byte range asked for (206), or 416; every answer says
    `Accept-Ranges: bytes`. FileNotFoundError (or another OSError) when the storage has no such file."""
    handle = storage.open(name, "rb")
    try:
        size = handle.size
        modified = _modified(storage, name)
        try:
            wanted = byte_range(request.headers.get("Range", ""), size) if request.method == "GET" else None
        except Unsatisfiable:
            handle.close()
            response = HttpResponse(status=416)
            response["Content-Range"] = f"bytes */{size}"
            response["Accept-Ranges"] = "bytes"
            return response
        if_range = request.headers.get("If-Range")
        if wanted is not None and if_range is not None and (modified is None or if_range.strip() != modified):
            wanted = None
        start, end = wanted if wanted is not None else (0, size - 1)
        length = max(0, end - start + 1)
        body = _reader(handle, start, length) if length else _Slice(handle, 0)
    except BaseException:
        handle.close()
        raise
    response = FileResponse(body, content_type=content_type or content_type_for(name))
    response.block_size = BLOCK_SIZE
    response.headers.pop("Content-Disposition", None)
    response["Content-Length"] = str(length)
    response["Accept-Ranges"] = "bytes"
    if modified is not None:
        response["Last-Modified"] = modified
    if wanted is not None:
        response.status_code = 206
        response["Content-Range"] = f"bytes {start}-{end}/{size}"
    return response


def _modified(storage: Storage, name: str) -> str | None:
    try:
        return http_date(storage.get_modified_time(name).timestamp())
    except (NotImplementedError, OSError):
        return None
