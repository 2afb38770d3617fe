"""Snapshots: stale marking in the writer's transaction, one enqueue per fresh-to-stale turn (a burst of writes
is one recompute), recomputes that cannot interleave, and the sweep that heals forgotten stale boards."""

import json
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.utils import timezone

from bundles.importer import bundle_import
from leaderboard.models import Round
from leaderboard.stale import snapshots_mark_stale
from recompute.boards import snapshot_recompute, snapshots_sweep
from snapshots.models import BoardSnapshot

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _weekly():
    bundle_import(doc=json.loads((FIXTURES / "weekly.json").read_text()))
    return Round.objects.get(key="2026-w42")


@pytest.mark.django_db
def test_a_burst_of_writes_enqueues_one_recompute(django_capture_on_commit_callbacks, monkeypatch):
    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    sent = []
    monkeypatch.setattr("leaderboard.stale.enqueue_recompute", lambda ids, countdown=0: sent.extend(ids))
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(5):
            snapshots_mark_stale(round_ids=[rnd.id])
    assert sent == [snap.pk]
    assert BoardSnapshot.objects.get(pk=snap.pk).stale


@pytest.mark.django_db
def test_the_sweep_recomputes_boards_left_stale_too_long():
    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    BoardSnapshot.objects.filter(pk=snap.pk).update(stale=True, stale_since=timezone.now() - timedelta(minutes=5))
    assert snap.pk in snapshots_sweep(older_than_seconds=60)  # eager Celery in tests: recomputed inline
    assert not BoardSnapshot.objects.get(pk=snap.pk).stale


@pytest.mark.postgres(reason="row locks are PostgreSQL's; SQLite has one writer")
@pytest.mark.django_db(transaction=True)
def test_two_recomputes_of_one_board_do_not_interleave():
    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    BoardSnapshot.objects.filter(pk=snap.pk).update(digest="", data=None, stale=True, version=0)
    results, errors = [], []
    barrier = threading.Barrier(2)

    def work():
        try:
            barrier.wait()
            results.append(snapshot_recompute(snapshot_id=snap.pk))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    # The second waited for the first's row lock, then found the same digest: one change, one version bump.
    assert sorted(results) == [False, True]
    snap.refresh_from_db()
    assert snap.version == 1 and not snap.stale


@pytest.mark.django_db
def test_a_write_that_rolls_back_leaves_the_snapshot_fresh(django_capture_on_commit_callbacks):
    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=True) as callbacks:
        with transaction.atomic():
            snapshots_mark_stale(round_ids=[rnd.id])
            raise RuntimeError("the write failed")
    assert callbacks == [] and not BoardSnapshot.objects.get(pk=snap.pk).stale


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["snapshots.tasks.recompute_snapshot", "scoring.tasks.recompute_snapshot"])
def test_a_recompute_queued_under_either_name_recomputes_the_board(name):
    """The tasks are named after their app (`snapshots.tasks.*`); one queued under the name they had while the
    app's label was "scoring" still runs the same recompute."""
    from celery import current_app

    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    BoardSnapshot.objects.filter(pk=snap.pk).update(stale=True, digest="")
    current_app.tasks[name].delay(snap.pk)  # eager Celery in tests: recomputed inline
    after = BoardSnapshot.objects.get(pk=snap.pk)
    assert not after.stale and after.digest


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["snapshots.tasks.sweep_stale", "scoring.tasks.sweep_stale"])
def test_the_sweep_runs_under_either_name_and_the_beat_schedule_names_the_new_one(name, settings):
    from celery import current_app

    assert settings.CELERY_BEAT_SCHEDULE["sweep-stale-snapshots"]["task"] == "snapshots.tasks.sweep_stale"
    settings.STALE_SWEEP_SECONDS = 60
    rnd = _weekly()
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    BoardSnapshot.objects.filter(pk=snap.pk).update(stale=True, stale_since=timezone.now() - timedelta(minutes=5))
    assert snap.pk in current_app.tasks[name].delay().get()
    assert not BoardSnapshot.objects.get(pk=snap.pk).stale
