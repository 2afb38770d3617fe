"""A submission's files as sent: a folder (the command), a zip of one (the form, the API), or files as they are,
each read for the format it is (`submissions.formats`): a folder's or zip's files by their path inside it, only
those a format reads. A zip's entries are inflated once, in chunks (`bundles.zip_inflate`), what comes out
counted against SUBMISSION_MAX_BYTES (the entry's and the whole upload's) as it comes, and each JSON file also as
it inflates (its values and nesting, `scoring.bounded_json`), so no file is held in memory before it is known to
be within the limits; an entry no format reads is never inflated."""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO

from django.conf import settings

from bundles.zip_inflate import OverLimit, entry_chunks
from scoring.bounded_json import JsonRefused, JsonScan, counted

from . import formats
from .formats import Format
from .reading import SubmissionRefused, json_budget

Takes = Callable[[str], bool]


def folder_files(folder: Path, takes: Takes = formats.taken_by_any) -> dict[str, bytes]:
    """The files of `folder` a format reads, by their path in it (hidden ones left out), each JSON file counted
    within the JSON budget as a zip's are."""
    limit = settings.SUBMISSION_MAX_BYTES
    budget = json_budget()
    out, total = {}, 0
    for p in sorted(folder.rglob("*")):
        name = str(p.relative_to(folder))
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(folder).parts) or not takes(name):
            continue
        total += p.stat().st_size
        if total > limit:
            raise SubmissionRefused([f"the folder holds more than {limit:,} bytes"])
        out[name] = p.read_bytes()
        if name.endswith(".json"):
            try:
                counted(name, (out[name],), budget, keep=False)
            except JsonRefused as exc:
                raise SubmissionRefused([str(exc)]) from exc
    return out


def zip_files(f: IO[bytes], takes: Takes = formats.taken_by_any) -> dict[str, bytes]:
    """The files of a zip a format reads, by their path in it, each inflated once: its bytes counted as they
    come out against the entry's and the whole upload's limit (a zip's headers are not trusted), each JSON file
    also counted within the JSON budget. An entry no format reads is never inflated."""
    limit = settings.SUBMISSION_MAX_BYTES
    budget = json_budget()
    try:
        with zipfile.ZipFile(f) as z:
            wanted = [i for i in z.infolist() if _wanted(i.filename, takes) and not i.is_dir()]
        if any(i.file_size > limit for i in wanted):
            raise OverLimit(next(i.filename for i in wanted if i.file_size > limit), limit, declared=True)
        if sum(i.file_size for i in wanted) > limit:
            raise OverLimit(None, limit, declared=True)
        out: dict[str, bytes] = {}
        left = limit  # what the whole upload may still inflate to
        for info in wanted:
            scan = JsonScan(info.filename, budget) if info.filename.endswith(".json") else None
            chunks: list[bytes] = []
            inflated = 0
            for chunk in entry_chunks(f, info):
                inflated += len(chunk)
                left -= len(chunk)
                if inflated > limit:
                    raise OverLimit(info.filename, limit)
                if left < 0:
                    raise OverLimit(None, limit)
                if scan is not None:
                    scan.feed(chunk)  # counted as it comes, kept by the scan
                else:
                    chunks.append(chunk)
            out[info.filename] = scan.data() if scan is not None else b"".join(chunks)
        return out
    except JsonRefused as exc:
        raise SubmissionRefused([str(exc)]) from exc
    except OverLimit as exc:
        raise SubmissionRefused([f"the zip inflates past {exc.limit:,} bytes"]) from exc
    except (zipfile.BadZipFile, NotImplementedError, ValueError, OSError, RuntimeError, zlib.error) as exc:
        raise SubmissionRefused([f"not a readable zip ({exc})"]) from exc


def _wanted(name: str, takes: Takes) -> bool:
    return takes(name) and not name.startswith("__MACOSX/") and "/." not in f"/{name}"


def sent_as(fmt: Format, name: str, data: bytes) -> dict[str, bytes]:
    """One uploaded file as the format reads it: a zip of its folder, or the file itself."""
    return zip_files(io.BytesIO(data), fmt.takes) if fmt.folder else {name: data}


def of_folder(files: dict[str, bytes]) -> tuple[Format, dict[str, bytes]]:
    """The format of a folder's (or zip's) files, and the files it reads."""
    fmt = formats.recognised(files, folder=True)
    return fmt, {name: data for name, data in files.items() if fmt.takes(name)}


def zipped(files: dict[str, bytes]) -> bytes:
    """A folder's files as one zip (what is kept of a submission sent as a folder)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()
