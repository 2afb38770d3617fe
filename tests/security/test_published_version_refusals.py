"""Once an editor publishes a task's wording, a bundle that would unpublish it (the task as exported before
publication, `"published_at": null`, in its current version or its history) is refused before anything is
written, with a 4xx naming the task version: for an upload key (422), for `import_bundle` (its error, no
traceback) and for the admin's import page (the page says why). Any other refusal by the database's own guards
(PostgreSQL triggers) is answered the same way, never with a 500."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, TaskVersion
from leaderboard.services import task_version_publish
from runs.models import Run
from tests.builders.review import make_user
from tests.security.test_upload_key_scope import _run, post, published_doc, upload_doc

pytestmark = pytest.mark.django_db

T3 = {"key": "t3", "title": "Draft", "version": "1.1", "kind": "core", "prompt": "Second wording."}
T3_HISTORY = [{"version": "1.0", "prompt": "First wording.", "published_at": None}]


def draft_doc() -> dict:
    """The team's upload: task t3 (1.0 in its history, 1.1 current) run in the draft round r2, both versions
    unpublished, as exported before publication."""
    doc = upload_doc()
    doc["tasks"].append({**copy.deepcopy(T3), "published_at": None, "history": copy.deepcopy(T3_HISTORY)})
    doc["runs"].append(_run("b3", "r2", "alpha", "t3", 4))
    return doc


@pytest.fixture
def key() -> str:
    bundle_import(doc=published_doc())
    return api_key_create(name="CI", benchmark=Benchmark.objects.get(slug="sb"))[1]


@pytest.fixture
def editor():
    return make_user("ed", "Editors")


def publish(version: str, editor) -> TaskVersion:
    return task_version_publish(
        version=TaskVersion.objects.get(task__benchmark__slug="sb", task__key="t3", version=version), by=editor
    )


@pytest.mark.parametrize(("version", "path"), [("1.1", "tasks[2].published_at"), ("1.0", "tasks[2].history[0]")])
def test_a_key_resending_the_wording_as_it_was_before_publication_gets_a_422_naming_the_version(
    key, editor, version, path
):
    doc = draft_doc()
    assert post(doc, key).status_code == 200
    published = publish(version, editor)
    runs = Run.objects.count()
    doc["runs"].append(_run("b4", "r2", "alpha", "t3", 5))
    res = post(doc, key)
    assert res.status_code == 422, res.content
    (problem,) = res.json()["problems"]
    assert problem.startswith(path) and f"version {version} of task 't3' is published" in problem
    published.refresh_from_db()
    assert published.published_at is not None and Run.objects.count() == runs


def test_a_key_leaving_published_at_out_keeps_the_publication(key, editor):
    doc = draft_doc()
    assert post(doc, key).status_code == 200
    publish("1.1", editor)
    del doc["tasks"][2]["published_at"]
    doc["runs"].append(_run("b4", "r2", "alpha", "t3", 5))
    assert post(doc, key).status_code == 200
    assert TaskVersion.objects.get(task__key="t3", version="1.1").published_at is not None


def test_the_import_command_names_the_published_version_without_a_traceback(key, editor, run_command, tmp_path, capsys):
    doc = draft_doc()
    assert post(doc, key).status_code == 200
    publish("1.0", editor)
    path = tmp_path / "before.json"
    path.write_text(json.dumps(doc))
    assert run_command("import_bundle", str(path)) == 1
    err = capsys.readouterr().err
    assert "tasks[2].history[0].published_at: version 1.0 of task 't3' is published" in err, err[-500:]
    assert "Traceback" not in err
    assert TaskVersion.objects.get(task__key="t3", version="1.0").published_at is not None


def test_the_admin_import_page_names_the_published_version(key, editor, client):
    doc = draft_doc()
    assert post(doc, key).status_code == 200
    publish("1.1", editor)
    client.force_login(editor)
    bench = Benchmark.objects.get(slug="sb")
    upload = SimpleUploadedFile("before.json", json.dumps(doc).encode(), content_type="application/json")
    page = client.post(f"/admin/leaderboard/benchmark/{bench.pk}/import/", {"kind": "bundle", "files": upload})
    assert page.status_code == 200
    text = page.content.decode()
    assert "nothing was written" in text and "version 1.1 of task &#x27;t3&#x27; is published" in text
    assert TaskVersion.objects.get(task__key="t3", version="1.1").published_at is not None


def test_the_database_guard_behind_the_check_is_answered_the_same_way(
    key, editor, monkeypatch, run_command, tmp_path, capsys
):
    # As if an editor published the version between the import's check and its write: the check sees nothing
    # to refuse, the database's guard refuses the write, and the command says why.
    doc = draft_doc()
    assert post(doc, key).status_code == 200
    publish("1.1", editor)
    monkeypatch.setattr(TaskVersion, "frozen_changes", lambda self, values: [])
    path = tmp_path / "before.json"
    path.write_text(json.dumps(doc))
    assert run_command("import_bundle", str(path)) == 1
    err = capsys.readouterr().err
    assert "(database): task t3 version 1.1 is published" in err and "nothing was written" in err, err[-500:]
    assert "Traceback" not in err
    assert TaskVersion.objects.get(task__key="t3", version="1.1").published_at is not None


def test_a_refusal_by_a_database_guard_no_check_foresaw_is_a_422_naming_it(key):
    # The database refuses a re-run that has a re-run of its own (runs migration 0002). The bundle's own checks
    # see only the bundle: here b2 becomes a re-run of b1 while the stored b5, left out, re-runs b2.
    # Each re-run after a dispute an editor accepted (000 §6; the round rules ask it after the write).
    accepted = [{"reason": "environment", "note": "The sandbox failed.", "status": "accepted"}]
    doc = upload_doc()
    doc["runs"] = [_run("b1", "r2", "alpha", "t1", 1), {**_run("b2", "r2", "alpha", "t2", 2), "disputes": accepted}]
    doc["runs"].append({**_run("b5", "r2", "alpha", "t2", 3), "rerun_of": "b2"})
    assert post(doc, key).status_code == 200
    first = {**_run("b1", "r2", "alpha", "t1", 1), "disputes": accepted}
    doc["runs"] = [first, {**_run("b2", "r2", "alpha", "t1", 2), "rerun_of": "b1"}]
    res = post(doc, key)
    assert res.status_code == 422, res.content
    (problem,) = res.json()["problems"]
    assert "run b2 has a re-run and cannot be a re-run itself" in problem and "nothing was written" in problem
    assert Run.objects.get(round__key="r2", key="b2").rerun_of is None
