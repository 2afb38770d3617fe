"""Transcripts carried by a bundle: inline (`runs[].transcript`, what an Inspect log's conversion makes) or as a
JSON file next to it (`{"kind": "transcript", "path": "transcripts/run-1.json"}` in a run's evidence), both in the
one documented format (docs/transcripts.md, `scoring.transcripts`).

`read_transcripts` reads and checks every one before anything is written (a file missing, unreadable, not JSON,
malformed, or over TRANSCRIPT_MAX_BYTES; all of them together over TRANSCRIPT_UPLOAD_MAX_BYTES): a problem of the
bundle, reported with its path, and the import writes nothing. `transcripts_write` stores them in the import's
transaction (`runs.services.transcripts`)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from runs.models import Run
from runs.services.transcripts import transcript_write
from scoring.transcripts import transcript_problems

from .evidence_files import bundle_path
from .report import ImportReport

# (round key, run id) -> (source, transcript document)
Transcripts = dict[tuple[str, str], tuple[str, dict]]


def read_transcripts(doc: dict, folder: Path | None, problems: list[str]) -> Transcripts:
    found: Transcripts = {}
    limit, total_limit = settings.TRANSCRIPT_MAX_BYTES, settings.TRANSCRIPT_UPLOAD_MAX_BYTES
    total = 0
    for i, run in enumerate(doc.get("runs") or []):
        key = (run["round"], str(run["id"]))
        if isinstance(run.get("transcript"), dict):
            where = f"runs[{i}].transcript"
            size = len(json.dumps(run["transcript"], ensure_ascii=False).encode())
            if size > limit:
                problems.append(f"{where}: the transcript is {size:,} bytes, over the limit of {limit:,}")
                continue
            total += size
            found[key] = (run.get("transcript_source") or "bundle", run["transcript"])
        for j, e in enumerate(run.get("evidence") or []):
            if e.get("kind") != "transcript" or "path" not in e or folder is None:
                continue
            where = f"runs[{i}].evidence[{j}].path"
            loaded = _read_file(folder.resolve(), e["path"], where, limit, problems)
            if loaded is not None:
                size, transcript = loaded
                total += size
                found[key] = ("bundle", transcript)
    if total > total_limit:
        problems.append(f"transcripts: {total:,} bytes together, over the limit of {total_limit:,} for one import")
    return found


def _read_file(base: Path, path: str, where: str, limit: int, problems: list[str]) -> tuple[int, dict] | None:
    target = bundle_path(base, path, where, problems, symlink_refused=True)
    if target is None:
        return None
    try:
        if not target.is_file():
            problems.append(f"{where}: {path!r} is not a file next to the bundle")
            return None
        size = target.stat().st_size
        if size > limit:
            problems.append(f"{where}: {path!r} is {size:,} bytes, over the limit of {limit:,}")
            return None
        doc = json.loads(target.read_bytes())
    except OSError as exc:
        problems.append(f"{where}: {path!r} cannot be read ({exc.strerror or exc})")
        return None
    except ValueError as exc:
        problems.append(f"{where}: {path!r} is not JSON ({exc})")
        return None
    found = transcript_problems(doc, where)
    if found:
        problems.extend(found)
        return None
    return size, doc


def transcripts_write(transcripts: Transcripts, report: ImportReport, benchmark: str, written: list[str]) -> None:
    """Store every transcript in the import's transaction; `written` collects the files (see the service)."""
    for (round_key, run_id), (source, doc) in transcripts.items():
        run = Run.objects.get(round__benchmark__slug=benchmark, round__key=round_key, key=run_id)
        if transcript_write(run, doc, source=source, written=written) is not None:
            report.count("transcripts", created=True)
