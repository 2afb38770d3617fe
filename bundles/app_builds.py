"""App builds carried by a bundle: `{"kind": "app", "path": "apps/run-1"}` in a run's evidence names a folder
(relative to the bundle file's folder) holding the app's static build, `index.html` plus assets.

Every build is read and checked before anything is written (`read_app_builds`: a missing or unreadable folder,
a symlink, a path out of the folder, a name too long to store, a build over the limits or without an HTML entry
point is a problem of the bundle, reported with its path), then stored in the import's transaction
(`app_builds_write`). A build identical to the stored one is left as it is, so importing the same bundle twice
changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from runs.models import AppBuild, Run
from runs.services.app_builds import AppBuildError, app_build_save, checked_build, read_folder

from .evidence_files import bundle_path
from .report import ImportReport

# (round key, run id) -> the build's files
Builds = dict[tuple[str, str], dict[str, bytes]]


def read_app_builds(doc: dict, folder: Path, problems: list[str]) -> Builds:
    """The builds the bundle names, checked; a problem is appended to `problems` with its path."""
    builds: Builds = {}
    base = folder.resolve()
    for i, run in enumerate(doc.get("runs") or []):
        for j, e in enumerate(run.get("evidence") or []):
            if e.get("kind") != "app":
                continue
            p = f"runs[{i}].evidence[{j}].path"
            target = bundle_path(base, e["path"], p, problems)
            if target is None:
                continue
            try:
                builds[(run["round"], str(run["id"]))] = checked_build(read_folder(target))
            except AppBuildError as exc:
                problems.append(f"{p}: {exc}")
    return builds


def app_builds_write(builds: Builds, report: ImportReport, benchmark: str) -> None:
    for (round_key, run_id), files in builds.items():
        run = Run.objects.get(round__benchmark__slug=benchmark, round__key=round_key, key=run_id)
        before = AppBuild.objects.filter(run=run).first()
        build = app_build_save(run=run, files=files)
        report.count("app builds", created=before is None, changed=before is None or build.pk != before.pk)
