"""A submission's files as sent: a folder (the command), a zip of one (the form, the API), or files as they are,
each read for the format it is (`submissions.formats`): a folder's or zip's files by their path inside it, only
those a format reads. A zip is inflated only after `bundles.zip_inflate` has counted what it really inflates to
(SUBMISSION_MAX_BYTES in all), and each JSON file of it is then counted as it inflates (its values and nesting,
`scoring.bounded_json`), so no file is held in memory before it is known to be within the limits."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from django.conf import settings

from bundles.zip_inflate import OverLimit, check_inflated, entry_chunks
from scoring.bounded_json import JsonRefused, counted

from . import formats
from .formats import Format
from .reading import SubmissionRefused, json_budget

Takes = Callable[[str], bool]


def folder_files(folder: Path, takes: Takes = formats.taken_by_any) -> dict[str, bytes]:
    """The files of `folder` a format reads, by their path in it (hidden ones left out)."""
    limit = settings.SUBMISSION_MAX_BYTES
    out, total = {}, 0
    for p in sorted(folder.rglob("*")):
        name = str(p.relative_to(folder))
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(folder).parts) or not takes(name):
            continue
        total += p.stat().st_size
        if total > limit:
            raise SubmissionRefused([f"the folder holds more than {limit:,} bytes"])
        out[name] = p.read_bytes()
    return out


def zip_files(f: IO[bytes], takes: Takes = formats.taken_by_any) -> dict[str, bytes]:
    """The files of a zip a format reads, by their path in it: each JSON file counted as it inflates."""
    limit = settings.SUBMISSION_MAX_BYTES
    budget = json_budget()
    try:
        check_inflated(f, max_entry=limit, max_total=limit)
        f.seek(0)
        with zipfile.ZipFile(f) as z:
            return {
                info.filename: (
                    counted(info.filename, entry_chunks(f, info), budget)
                    if info.filename.endswith(".json")
                    else b"".join(entry_chunks(f, info))
                )
                for info in z.infolist()
                if _wanted(info.filename, takes) and not info.is_dir()
            }
    except JsonRefused as exc:
        raise SubmissionRefused([str(exc)]) from exc
    except OverLimit as exc:
        raise SubmissionRefused([f"the zip inflates past {exc.limit:,} bytes"]) from exc
    except (zipfile.BadZipFile, NotImplementedError, ValueError, OSError) as exc:
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
