"""App builds carried by a bundle: a folder next to the bundle file, imported with it or not at all."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Task
from runs.models import AppBuild, Run
from scoring.bundle import BundleError

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _appbench() -> dict:
    doc = json.loads((FIXTURES / "appbench.json").read_text())
    doc["votes"] = []
    return doc


def _app_runs(doc: dict) -> list[dict]:
    return [r for r in doc["runs"] if any(e["kind"] == "app" for e in r.get("evidence") or [])]


def test_the_demo_messenger_runs_bring_their_apps(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    doc = _appbench()
    report = bundle_import(doc=doc, folder=FIXTURES)
    runs = _app_runs(doc)
    assert len(runs) >= 12 and {r["task"] for r in runs} == {"messenger"}
    assert AppBuild.objects.count() == len(runs) and report.created["app builds"] == len(runs)
    # Every build differs from every other (one per run, not one per agent) and is a few KB.
    assert len(set(AppBuild.objects.values_list("sha256", flat=True))) == len(runs)
    assert all(1_000 < b.size < 20_000 for b in AppBuild.objects.all())
    # Importing the same bundle again changes nothing.
    again = bundle_import(doc=doc, folder=FIXTURES)
    assert "app builds" not in again.created and "app builds" not in again.updated


def test_without_the_bundles_folder_the_apps_are_left_out(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    bundle_import(doc=_appbench())
    assert Run.objects.exists() and not AppBuild.objects.exists()


def test_a_bad_app_folder_is_a_problem_with_its_path_and_nothing_is_written(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    shutil.copytree(FIXTURES / "apps", tmp_path / "apps")
    doc = _appbench()
    first = _app_runs(doc)[0]
    folder = tmp_path / [e for e in first["evidence"] if e["kind"] == "app"][0]["path"]
    (folder / "index.html").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "leak").symlink_to("/etc/hostname")
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    i = doc["runs"].index(first)
    assert [p for p in exc.value.problems if p.startswith(f"runs[{i}].evidence[")] == [
        f"runs[{i}].evidence[{len(first['evidence']) - 1}].path: 'leak': a symlink is refused"
    ]
    assert not Run.objects.exists() and not AppBuild.objects.exists()
    assert not (tmp_path / "media").exists()


@pytest.mark.parametrize("path", ["../apps", "/etc", "apps/../../x", "apps//x", "C:\\apps"])
def test_an_app_path_out_of_the_bundles_folder_is_refused(path):
    doc = _appbench()
    run = _app_runs(doc)[0]
    run["evidence"] = [{"kind": "app", "path": path}]
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=FIXTURES)
    assert any("must be a relative folder inside the bundle's folder" in p for p in exc.value.problems)
    assert not Run.objects.exists()


def test_the_task_scenarios_travel_with_the_bundle():
    doc = _appbench()
    bundle_import(doc=doc)
    messenger = Task.objects.get(key="messenger")
    assert messenger.current_version.scenarios[0] == "Sign up with a name of your choice"
    exported = {t["key"]: t for t in bundle_export(benchmark=messenger.benchmark)["tasks"]}
    assert exported["messenger"]["scenarios"] == doc["tasks"][-1]["scenarios"]
    bad = _appbench()
    bad["tasks"][0]["scenarios"] = "sign up"
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=bad)
    assert "tasks[0].scenarios: must be a list of strings" in exc.value.problems


def _long_name(folder: Path) -> None:
    (folder / ("n" * 230 + ".js")).write_bytes(b"1")  # fits the file system (255), not a build (200)


def _deep_path(folder: Path) -> None:
    deep = folder.joinpath(*["d" * 180] * 6)
    deep.mkdir(parents=True)
    (deep / "x.js").write_bytes(b"1")


def _pipe(folder: Path) -> None:
    os.mkfifo(folder / "pipe")


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_long_name, ": a file or folder name over 200 bytes is refused"),
        (_deep_path, ": a path over 1000 bytes is refused"),
        (_pipe, "'pipe': not a file or a folder"),
    ],
)
def test_an_app_folder_that_cannot_be_stored_is_a_problem_with_its_path(settings, tmp_path, spoil, message):
    settings.MEDIA_ROOT = tmp_path / "media"
    shutil.copytree(FIXTURES / "apps", tmp_path / "apps")
    doc = _appbench()
    first = _app_runs(doc)[0]
    j, app = next((j, e) for j, e in enumerate(first["evidence"]) if e["kind"] == "app")
    spoil(tmp_path / app["path"])
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    where = f"runs[{doc['runs'].index(first)}].evidence[{j}].path: "
    found = [p for p in exc.value.problems if p.startswith(where)]
    assert len(found) == 1 and found[0].endswith(message), exc.value.problems
    assert not Run.objects.exists() and not AppBuild.objects.exists()
    assert not (tmp_path / "media").exists()


def test_an_app_folder_whose_name_is_too_long_to_open_is_a_problem_with_its_path(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    shutil.copytree(FIXTURES / "apps", tmp_path / "apps")
    doc = _appbench()
    first = _app_runs(doc)[0]
    j, app = next((j, e) for j, e in enumerate(first["evidence"]) if e["kind"] == "app")
    app["path"] = "apps/" + "x" * 300
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    where = f"runs[{doc['runs'].index(first)}].evidence[{j}].path: "
    assert [p for p in exc.value.problems if p.startswith(where)] == [
        f"{where}'{'x' * 60}...{'x' * 17}': cannot be read (File name too long)"
    ]
    assert not Run.objects.exists() and not (tmp_path / "media").exists()
