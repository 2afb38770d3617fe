"""Evidence files carried by a bundle: `{"kind": "screenshot", "path": "shots/run-1/home.png"}` in a run's
evidence names a file (relative to the bundle file's folder) that is stored on the site. That is how a
benchmark gives the vote screen its screenshots: a screenshot only at an external address is public on the
run's page, so it is never shown blind (`voting.draw.rules.preview_shots`).

Every file is read and checked before anything is written (`read_evidence_files`: missing, not a regular
file, a symlink, out of the folder, over EVIDENCE_FILE_MAX_BYTES is a problem of the bundle, reported with its
path), then stored in the import's transaction (`evidence_files_write`) under a name made from the benchmark,
round, run and path, which says nothing about the run (it is a digest) and is the same on every import: a
file identical to the stored one is left as it is, so importing the same bundle twice changes nothing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.core.files.base import ContentFile

from runs.models import Evidence, Run, evidence_storage

from .report import ImportReport

# (round key, run id, path) -> (kind, caption, the file's bytes)
Files = dict[tuple[str, str, str], tuple[str, str, bytes]]


def bundle_path(
    base: Path, path: str, where: str, problems: list[str], *, symlink_refused: bool = False
) -> Path | None:
    """`path`, relative to `base` (the bundle's resolved folder), or None with the problem added to `problems`
    under `where`: a name the file system cannot take, a path leading out of the folder, or (when
    `symlink_refused`) a symlink. App builds and evidence files alike are read through it."""
    target = base / path
    try:
        if symlink_refused and target.is_symlink():
            problems.append(f"{where}: {path!r} is a symlink")
            return None
        inside = target.resolve().is_relative_to(base)
    except (OSError, ValueError) as exc:  # a name too long for the file system, say
        problems.append(f"{where}: {path!r} cannot be read ({getattr(exc, 'strerror', None) or exc})")
        return None
    if not inside:
        problems.append(f"{where}: {path!r} leads out of the bundle's folder")
        return None
    return target


def read_evidence_files(doc: dict, folder: Path, problems: list[str]) -> Files:
    """The files the bundle's evidence names, checked; a problem is appended to `problems` with its path."""
    files: Files = {}
    base = folder.resolve()
    limit = settings.EVIDENCE_FILE_MAX_BYTES
    for i, run in enumerate(doc.get("runs") or []):
        for j, e in enumerate(run.get("evidence") or []):
            if e.get("kind") in ("app", "transcript") or "path" not in e:
                continue  # app builds and transcripts have readers of their own
            p = f"runs[{i}].evidence[{j}].path"
            target = bundle_path(base, e["path"], p, problems, symlink_refused=True)
            if target is None:
                continue
            try:
                if not target.is_file():
                    problems.append(f"{p}: {e['path']!r} is not a file next to the bundle")
                    continue
                size = target.stat().st_size
                if size > limit:
                    problems.append(f"{p}: {e['path']!r} is {size:,} bytes, over the limit of {limit:,}")
                    continue
                data = target.read_bytes()
            except OSError as exc:
                problems.append(f"{p}: {e['path']!r} cannot be read ({exc.strerror or exc})")
                continue
            files[(run["round"], str(run["id"]), e["path"])] = (e["kind"], e.get("caption") or "", data)
    return files


def stored_name(benchmark: str, round_key: str, run_id: str, path: str) -> str:
    """Where a bundle's evidence file is kept: a digest of where it came from, with the file's own suffix."""
    digest = hashlib.sha256(f"{benchmark}\0{round_key}\0{run_id}\0{path}".encode()).hexdigest()[:32]
    suffix = PurePosixPath(path).suffix.lower()[:10]
    return f"evidence/bundles/{digest}{suffix}"


def evidence_files_write(files: Files, report: ImportReport, benchmark: str) -> None:
    for (round_key, run_id, path), (kind, caption, data) in files.items():
        run = Run.objects.get(round__benchmark__slug=benchmark, round__key=round_key, key=run_id)
        name = stored_name(benchmark, round_key, run_id, path)
        row = Evidence.objects.filter(run=run, file=name).first()
        if row is not None and _same_bytes(name, data):
            if (row.kind, row.caption) != (kind, caption):
                row.kind, row.caption = kind, caption
                row.save(update_fields=["kind", "caption"])
                report.count("evidence files", created=False)
            continue
        if evidence_storage().exists(name):
            evidence_storage().delete(name)  # the same name again: a new file, or an old one left by a rollback
        evidence_storage().save(name, ContentFile(data))
        if row is None:
            Evidence.objects.create(run=run, kind=kind, caption=caption, file=name)
        else:
            row.kind, row.caption = kind, caption
            row.save(update_fields=["kind", "caption"])
        report.count("evidence files", created=row is None)


def _same_bytes(name: str, data: bytes) -> bool:
    try:
        with evidence_storage().open(name, "rb") as f:
            return f.read() == data
    except FileNotFoundError:
        return False
