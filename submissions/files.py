"""A τ² submission's files, from a folder or a zip, by their path inside it: `submission.json` and every
`.json` trajectory file. A zip is inflated only after `bundles.zip_inflate` has counted what it really inflates
to (SUBMISSION_MAX_BYTES in all), and each JSON file of it is then counted as it inflates (its values and
nesting, `scoring.bounded_json`), so no file is held in memory before it is known to be within the limits."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import IO

from django.conf import settings

from bundles.zip_inflate import OverLimit, check_inflated, entry_chunks
from scoring.bounded_json import JsonRefused, counted

from .reading import SubmissionRefused, json_budget


def folder_files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*.json"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


def zip_files(f: IO[bytes]) -> dict[str, bytes]:
    limit = settings.SUBMISSION_MAX_BYTES
    budget = json_budget()
    try:
        check_inflated(f, max_entry=limit, max_total=limit)
        f.seek(0)
        with zipfile.ZipFile(f) as z:
            return {
                info.filename: counted(info.filename, entry_chunks(f, info), budget)
                for info in z.infolist()
                if _wanted(info.filename)
            }
    except JsonRefused as exc:
        raise SubmissionRefused([str(exc)]) from exc
    except OverLimit as exc:
        raise SubmissionRefused([f"the zip inflates past {exc.limit:,} bytes"]) from exc
    except (zipfile.BadZipFile, NotImplementedError, ValueError, OSError) as exc:
        raise SubmissionRefused([f"not a readable zip ({exc})"]) from exc


def _wanted(name: str) -> bool:
    return name.endswith(".json") and not name.startswith("__MACOSX/") and "/." not in f"/{name}"
