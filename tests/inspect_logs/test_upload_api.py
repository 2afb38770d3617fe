"""The upload API from outside: keys made by an editor in the admin, scoped to one benchmark, revocable; bundles
and Inspect logs go into draft and preview rounds only, and a refused request writes nothing."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create, api_key_revoke, key_digest
from leaderboard.models import ApiKey, Benchmark, Entry, Round, Task
from runs.models import Run
from tests.builders.review import make_user
from tests.builders.site import scored_bundle

pytestmark = pytest.mark.django_db


def draft_bundle() -> dict:
    doc = scored_bundle("sbench")
    doc["rounds"][0].update(status="draft", published_at=None)
    return doc


@pytest.fixture
def bench():
    return Benchmark.objects.create(slug="sbench", name="Bench sbench", methodology="scored", preview_hours=0)


@pytest.fixture
def key(bench) -> str:
    return api_key_create(name="CI", benchmark=bench)[1]


def post_bundle(doc, key: str | None = None, client: Client | None = None, slug: str = "sbench"):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
    return (client or Client()).post(
        f"/api/benchmarks/{slug}/bundle", json.dumps(doc), content_type="application/json", **headers
    )


def post_logs(paths, key: str | None, round_key: str = "r1", slug: str = "sbench", **fields):
    files = [open(p, "rb") for p in paths]
    try:
        headers = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
        return Client().post(
            f"/api/benchmarks/{slug}/inspect", {"logs": files, "round": round_key, **fields}, **headers
        )
    finally:
        for f in files:
            f.close()


def test_a_bundle_upload_imports_and_the_same_body_again_changes_nothing(key):
    first = post_bundle(draft_bundle(), key)
    assert first.status_code == 200, first.content
    body = first.json()
    assert body["created"]["runs"] == 14 and body["rounds"] == ["r1"]
    assert Round.objects.get(key="r1").status == "draft"
    again = post_bundle(draft_bundle(), key)
    assert again.status_code == 200 and again.json()["created"] == {} and again.json()["updated"] == {}


def test_inspect_logs_upload_into_a_new_draft_round_and_again_change_nothing(key, quiz_logs):
    res = post_logs([quiz_logs["steady"], quiz_logs["flaky"]], key)
    assert res.status_code == 200, res.content
    assert res.json()["created"]["runs"] == 12
    assert Round.objects.get(key="r1").status == "draft"
    assert Task.objects.filter(benchmark__slug="sbench").count() == 3
    again = post_logs([quiz_logs["flaky"]], key)
    assert again.json()["created"] == {} and again.json()["updated"] == {}


@pytest.mark.parametrize("who", ["anonymous", "wrong", "revoked", "editor-session", "reviewer-session"])
def test_a_missing_wrong_or_revoked_key_is_401_and_writes_nothing(bench, key, who, quiz_logs):
    client, sent = Client(), None
    if who == "wrong":
        sent = "lbk_" + "x" * 43
    elif who == "revoked":
        api_key_revoke(key=ApiKey.objects.get())
        sent = key
    elif who.endswith("session"):
        group = "Editors" if who.startswith("editor") else "Reviewers"
        client.force_login(make_user(who, group))  # a signed-in editor is not a key
    assert post_bundle(draft_bundle(), sent, client).status_code == 401
    assert post_logs([quiz_logs["steady"]], sent).status_code == 401
    assert Run.objects.count() == 0 and Round.objects.count() == 0


def test_another_benchmarks_key_is_403_and_writes_nothing(bench, quiz_logs):
    other = Benchmark.objects.create(slug="other", name="O", methodology="scored")
    other_key = api_key_create(name="theirs", benchmark=other)[1]
    res = post_bundle(draft_bundle(), other_key)
    assert res.status_code == 403 and "other" in res.json()["detail"]
    assert post_logs([quiz_logs["steady"]], other_key).status_code == 403
    assert Run.objects.count() == 0 and Round.objects.count() == 0


def test_an_oversized_body_is_413_and_writes_nothing(key, settings, quiz_logs):
    settings.API_UPLOAD_MAX_BYTES = 2000
    res = post_bundle(draft_bundle(), key)
    assert res.status_code == 413 and "at most 2000" in res.json()["detail"]
    assert post_logs([quiz_logs["steady"]], key).status_code == 413
    assert Run.objects.count() == 0 and Round.objects.count() == 0


def test_a_published_round_or_votes_are_refused_with_every_problem(key):
    bundle_import(doc=scored_bundle("sbench"))  # r1 is published
    runs = Run.objects.count()
    doc = draft_bundle()
    doc["runs"][0]["tests_passed"] = 11
    doc["votes"] = [{"task": "t1", "a": "solo", "b": "full", "winner": "a"}]
    res = post_bundle(doc, key)
    assert res.status_code == 422
    problems = res.json()["problems"]
    assert "rounds[0].key: round 'r1' is published; corrections are made in the admin" in problems
    assert "votes: an upload carries no votes" in problems
    published = copy.deepcopy(scored_bundle("sbench"))
    assert (
        "rounds[0].status: 'published'; uploads go into draft or preview rounds"
        in post_bundle(published, key).json()["problems"]
    )
    assert Run.objects.count() == runs and Round.objects.get(key="r1").status == "published"


def test_inspect_logs_into_a_published_round_are_refused(key, quiz_logs):
    bundle_import(doc=scored_bundle("sbench"))
    res = post_logs([quiz_logs["steady"]], key)
    assert res.status_code == 422 and "is published" in res.json()["problems"][0]
    assert not Entry.objects.filter(agent__slug="scripted-steady").exists()


def test_a_bundle_for_another_benchmark_slug_is_refused(key):
    doc = draft_bundle()
    doc["benchmark"]["slug"] = "elsewhere"
    res = post_bundle(doc, key)
    assert res.status_code == 422
    assert "benchmark.slug: 'elsewhere' is not 'sbench', the benchmark this key is for" in res.json()["problems"]
    assert not Benchmark.objects.filter(slug="elsewhere").exists()


def test_uploads_are_rate_limited_per_key(key, settings):
    settings.API_UPLOAD_RATE_LIMIT = 2
    assert [post_bundle(draft_bundle(), key).status_code for _ in range(3)] == [200, 200, 429]


def test_an_editor_makes_a_key_in_the_admin_which_is_shown_once_and_stored_hashed(bench):
    client = Client()
    client.force_login(make_user("edna", "Editors"))
    res = client.post("/admin/leaderboard/apikey/add/", {"name": "CI", "benchmark": bench.pk}, follow=True)
    assert res.status_code == 200
    shown = next(str(m) for m in res.context["messages"] if "lbk_" in str(m))
    raw = shown.split("is ")[1].split(" ")[0]
    stored = ApiKey.objects.get()
    assert stored.digest == key_digest(raw) and raw not in (stored.prefix, stored.digest)
    assert post_bundle(draft_bundle(), raw).status_code == 200
    assert ApiKey.objects.get().last_used_at is not None
    client.post("/admin/leaderboard/apikey/", {"action": "revoke", "_selected_action": [stored.pk]}, follow=True)
    assert ApiKey.objects.get().revoked_at is not None
    assert post_bundle(draft_bundle(), raw).status_code == 401


def test_a_reviewer_cannot_make_a_key(bench):
    client = Client()
    client.force_login(make_user("rita", "Reviewers"))
    assert client.post("/admin/leaderboard/apikey/add/", {"name": "x", "benchmark": bench.pk}).status_code == 403
    assert ApiKey.objects.count() == 0


def test_an_editor_imports_logs_on_the_benchmark_page_and_sees_the_outcome(bench, quiz_logs):
    client = Client()
    client.force_login(make_user("edna", "Editors"))
    url = f"/admin/leaderboard/benchmark/{bench.pk}/import/"
    with open(quiz_logs["steady"], "rb") as log:
        res = client.post(url, {"kind": "inspect", "files": [log], "round": "r1", "agent_from": "model"}, follow=True)
    shown = [str(m) for m in res.context["messages"]]
    assert any(m.startswith("Imported: sbench: created") and "6 runs" in m for m in shown)
    assert Run.objects.count() == 6
    doc = draft_bundle()
    doc["runs"][0]["tests_passed"] = 11
    res = client.post(url, {"kind": "bundle", "files": [_named(json.dumps(doc), "b.json")]}, follow=True)
    shown = [str(m) for m in res.context["messages"]]
    assert "1 problem(s); nothing was written." in shown
    assert any("runs[0].tests_passed" in m for m in shown)
    assert Run.objects.count() == 6


def test_a_reviewer_cannot_import_on_the_benchmark_page(bench, quiz_logs):
    client = Client()
    client.force_login(make_user("rita", "Reviewers"))
    with open(quiz_logs["steady"], "rb") as log:
        res = client.post(
            f"/admin/leaderboard/benchmark/{bench.pk}/import/", {"kind": "inspect", "files": [log], "round": "r1"}
        )
    assert res.status_code == 403 and Run.objects.count() == 0


def _named(text: str, name: str):
    return SimpleUploadedFile(name, text.encode(), content_type="application/json")


def test_uploaded_logs_keep_each_samples_transcript_with_its_tool_calls(key, tool_logs):
    from runs.models import Run, SearchEntry

    res = post_logs([tool_logs["steady"]], key)
    assert res.status_code == 200, res.content
    assert res.json()["created"]["transcripts"] == 6  # 3 samples x 2 epochs
    run = Run.objects.get(key="scripted-steady.quiz.3.1")
    assert run.transcript.message_count == 4  # the question, the tool call, the tool's result, the answer
    assert SearchEntry.objects.filter(run=run, text__contains="iron oxide dust").exists()


def test_a_key_cannot_start_or_backdate_the_vendor_preview(key, bench):
    # Seed 000 §6: "Vendors receive their results 48 hours before publication"; starting that window is the
    # editor's step. A key may not open a new round in preview, move a draft into it, or set when it started.
    new_in_preview = draft_bundle()
    new_in_preview["rounds"][0].update(status="preview", preview_started_at="2020-01-01T00:00:00Z")
    res = post_bundle(new_in_preview, key)
    assert res.status_code == 422
    assert res.json()["problems"] == [
        "rounds[0].status: a new round starts as a draft; an editor starts its vendor preview",
        "rounds[0].preview_started_at: set by the site when an editor starts the preview or publishes",
    ]
    assert not Round.objects.exists()

    assert post_bundle(draft_bundle(), key).status_code == 200
    moved = draft_bundle()
    moved["rounds"][0]["status"] = "preview"
    res = post_bundle(moved, key)
    assert res.status_code == 422
    assert res.json()["problems"] == [
        "rounds[0].status: round 'r1' is draft; an upload does not change a round's status"
    ]
    assert Round.objects.get(key="r1").status == "draft"


def test_results_uploaded_into_a_preview_round_restart_its_window(key, bench):
    from datetime import timedelta

    from django.utils import timezone

    assert post_bundle(draft_bundle(), key).status_code == 200
    started = timezone.now() - timedelta(hours=47)
    Round.objects.filter(key="r1").update(status="preview", preview_started_at=started)
    doc = draft_bundle()
    doc["rounds"][0]["status"] = "preview"
    doc["runs"][0]["tests_passed"] = doc["runs"][0]["tests_passed"] - 1  # a result changes during the window
    before = timezone.now()
    assert post_bundle(doc, key).status_code == 200
    # The 48 hours start again from the upload: vendors see the results as they will be published, for the
    # whole window (1 hour before publication would have been allowed otherwise).
    restarted = Round.objects.get(key="r1").preview_started_at
    assert restarted >= before
    # The same body again changes nothing, so it restarts nothing (a key cannot keep putting publication off).
    assert post_bundle(doc, key).status_code == 200
    assert Round.objects.get(key="r1").preview_started_at == restarted
