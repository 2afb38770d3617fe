"""Issue 3, on the production path (PostgreSQL, Redis, a real Celery worker process): an editor's verdict
saved through the admin marks the round's board stale, the page says "updating", and the worker makes the
board fresh with the new number."""

from __future__ import annotations

import copy

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from live_services import broker_flush, queue_length, two_agent_bundle, wait_for

from bundles.importer import bundle_import
from leaderboard.models import Round
from recompute.boards import snapshot_recompute
from runs.models import Run, Verdict
from snapshots.models import BoardSnapshot

pytestmark = pytest.mark.services

BUNDLE = two_agent_bundle("live", "Live Bench")


def _points(snap: BoardSnapshot, agent: str) -> int:
    return next(row["points"] for row in snap.data["overall"] if row["agent"] == agent)


@pytest.fixture
def editor(client):
    user = get_user_model().objects.create_superuser("editor", "editor@example.org", "pw-editor-123")
    client.force_login(user)
    return user


def test_it_recomputes_the_board_in_a_worker_after_an_admin_verdict_change(live_celery, client, editor):
    bundle_import(doc=copy.deepcopy(BUNDLE))
    rnd = Round.objects.get(key="r1", benchmark__slug="live")
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    # The starting board and the vote ratings shown beside it, computed here; no worker runs yet.
    for pk in BoardSnapshot.objects.filter(stale=True).values_list("pk", flat=True):
        snapshot_recompute(snapshot_id=pk)
    snap.refresh_from_db()
    assert not snap.stale and _points(snap, "beta") == 0
    version = snap.version
    broker_flush(settings.CELERY_BROKER_URL)  # the import's own recompute task: done above already

    third = Verdict.objects.get(run__key="r1-beta-t1", role="third")
    response = client.post(
        f"/admin/runs/verdict/{third.pk}/change/",
        {
            "outcome": "pass",
            "note": "The third draft is in the recording at 14:02.",
            "reason": "The third reviewer missed the third draft.",
            "effect_seen": "pass|",  # the editor has seen the correction's effect on the board (a second save)
            "_save": "Save",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Run.objects.get(key="r1-beta-t1").outcome == "pass"

    # Committed and marked stale in the same transaction; the recompute waits in the broker for a worker.
    snap.refresh_from_db()
    assert snap.stale and _points(snap, "beta") == 0
    assert queue_length(settings.CELERY_BROKER_URL) == 1
    page = client.get("/b/live/r/r1/")
    assert page.status_code == 200 and "Updating" in page.content.decode()

    live_celery.start()
    wait_for(
        lambda: not BoardSnapshot.objects.get(pk=snap.pk).stale,
        30,
        "the worker to refresh the board",
        log=live_celery.log,
    )
    snap.refresh_from_db()
    assert _points(snap, "beta") == 2
    assert snap.version == version + 1
    page = client.get("/b/live/r/r1/")
    assert page.status_code == 200 and "Updating" not in page.content.decode()


def test_it_refreshes_a_board_while_the_worker_is_already_running(live_celery, client, editor):
    """The everyday case: the worker is up, the save enqueues after commit and the board follows."""
    live_celery.start()
    bundle_import(doc=copy.deepcopy(BUNDLE))
    snap_id = BoardSnapshot.objects.get(round__key="r1", kind="boards").pk
    wait_for(
        lambda: BoardSnapshot.objects.filter(pk=snap_id, stale=False, data__isnull=False).exists(),
        30,
        "the first board",
        log=live_celery.log,
    )
    assert _points(BoardSnapshot.objects.get(pk=snap_id), "beta") == 0

    third = Verdict.objects.get(run__key="r1-beta-t1", role="third")
    response = client.post(
        f"/admin/runs/verdict/{third.pk}/change/",
        {
            "outcome": "pass",
            "note": "",
            "reason": "Corrected from the recording.",
            "effect_seen": "pass|",  # the editor has seen the correction's effect on the board (a second save)
            "_save": "Save",
        },
    )
    assert response.status_code == 302

    wait_for(
        lambda: _points(BoardSnapshot.objects.get(pk=snap_id), "beta") == 2, 30, "the new number", log=live_celery.log
    )
    assert not BoardSnapshot.objects.get(pk=snap_id).stale
