"""Evidence files carried by a bundle: a file next to the bundle, stored on the site (how a benchmark gives the
vote screen its screenshots), imported with it or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse

from bundles.evidence_files import stored_name
from bundles.importer import bundle_import
from runs.models import Evidence, Run
from scoring.bundle import BundleError
from tests.builders.voting import make_user, tiny_png
from voting.models import Matchup

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _bundle(tmp_path: Path, *, shots: int = 2) -> tuple[dict, list[dict]]:
    """The AppBench demo without its apps, where the first started shop run of each of `shots` agents brings
    a screenshot file from `tmp_path/shots/`."""
    doc = json.loads((FIXTURES / "appbench.json").read_text())
    doc["votes"] = []
    for run in doc["runs"]:
        run["evidence"] = [e for e in run.get("evidence") or [] if e["kind"] != "app"]
    picked, agents = [], set()
    for run in doc["runs"]:
        if run["task"] == "shop" and run.get("app_started") and run["agent"] not in agents and len(picked) < shots:
            agents.add(run["agent"])
            picked.append(run)
    (tmp_path / "shots").mkdir()
    for n, run in enumerate(picked):
        (tmp_path / "shots" / f"{n}.png").write_bytes(tiny_png(n))
        run["evidence"].append({"kind": "screenshot", "path": f"shots/{n}.png", "caption": "home"})
    return doc, picked


def test_a_screenshot_file_next_to_the_bundle_is_stored_and_shown_on_the_vote_screen(client, tmp_path):
    doc, picked = _bundle(tmp_path)
    report = bundle_import(doc=doc, folder=tmp_path)
    assert report.created["evidence files"] == 2
    for n, run_doc in enumerate(picked):
        ev = Evidence.objects.get(run__key=run_doc["id"], file__gt="")
        assert ev.kind == "screenshot" and ev.caption == "home"
        assert ev.file.name == stored_name("appbench", run_doc["round"], run_doc["id"], f"shots/{n}.png")
        assert run_doc["id"] not in ev.file.name and run_doc["agent"] not in ev.file.name
        assert ev.file.read() == tiny_png(n)
    # The two runs are now the shop task's only runs with something to show: the vote screen draws them.
    client.force_login(make_user("voter@example.com"))
    assert client.get(reverse("vote"), {"scope": "appbench/shop"}).status_code == 200
    matchup = Matchup.objects.get()
    assert {matchup.run_a.key, matchup.run_b.key} == {r["id"] for r in picked}
    shot = client.get(reverse("vote_preview_shot", args=[matchup.alias_a, 0]))
    assert shot.status_code == 200 and shot["Content-Type"] == "image/png"


def test_importing_the_same_bundle_again_changes_nothing_and_a_new_file_replaces_the_old(tmp_path):
    doc, picked = _bundle(tmp_path)
    bundle_import(doc=doc, folder=tmp_path)
    again = bundle_import(doc=doc, folder=tmp_path)
    assert "evidence files" not in again.created and "evidence files" not in again.updated
    (tmp_path / "shots" / "0.png").write_bytes(tiny_png(200))
    changed = bundle_import(doc=doc, folder=tmp_path)
    assert changed.updated["evidence files"] == 1 and "evidence files" not in changed.created
    ev = Evidence.objects.get(run__key=picked[0]["id"], file__gt="")
    assert ev.file.read() == tiny_png(200)
    assert Evidence.objects.filter(file__gt="").count() == 2


def test_without_the_bundles_folder_the_files_are_left_out(tmp_path):
    doc, _ = _bundle(tmp_path)
    bundle_import(doc=doc)
    assert Run.objects.exists() and not Evidence.objects.filter(file__gt="").exists()


@pytest.mark.parametrize(
    "case, problem",
    [
        ("missing", "'shots/0.png' is not a file next to the bundle"),
        ("folder", "'shots/0.png' is not a file next to the bundle"),
        ("symlink", "'shots/0.png' is a symlink"),
        ("too big", "'shots/0.png' is 101 bytes, over the limit of 100"),
    ],
)
def test_a_bad_file_is_a_problem_with_its_path_and_nothing_is_written(tmp_path, settings, case, problem):
    doc, picked = _bundle(tmp_path)
    target = tmp_path / "shots" / "0.png"
    if case in ("missing", "folder", "symlink"):
        target.unlink()
    if case == "folder":
        target.mkdir()
    if case == "symlink":
        target.symlink_to("/etc/hostname")
    if case == "too big":
        settings.EVIDENCE_FILE_MAX_BYTES = 100
        target.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 93)
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    i = doc["runs"].index(picked[0])
    j = len(picked[0]["evidence"]) - 1
    assert f"runs[{i}].evidence[{j}].path: {problem}" in exc.value.problems
    assert not Run.objects.exists() and not Evidence.objects.exists()


@pytest.mark.parametrize("path", ["../shots/0.png", "/etc/hostname", "shots/../../x", "C:\\x.png"])
def test_a_file_path_out_of_the_bundles_folder_is_refused(tmp_path, path):
    doc, picked = _bundle(tmp_path)
    picked[0]["evidence"][-1]["path"] = path
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    assert any("must be a relative file inside the bundle's folder" in p for p in exc.value.problems)


def test_a_url_and_a_path_together_are_refused(tmp_path):
    doc, picked = _bundle(tmp_path)
    picked[0]["evidence"][-1]["url"] = "https://shots.example.net/a.png"
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc, folder=tmp_path)
    assert any(p.endswith("give a url or a path, not both") for p in exc.value.problems)
