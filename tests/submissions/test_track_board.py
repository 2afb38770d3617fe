"""A submission track's new round has its board at once, on a site without workers too (`make serve`: Celery
eager, no beat to sweep for a missing board)."""

from __future__ import annotations

import json

import pytest

from leaderboard.models import Benchmark
from snapshots.models import BoardSnapshot, SnapshotKind
from submissions.catalogue import tau2_tasks_import, track_open
from tests.builders.tau2 import TASKS


@pytest.mark.django_db
def test_a_new_tracks_round_shows_its_empty_board_not_computing_for_ever(client, django_capture_on_commit_callbacks):
    tau2_tasks_import(data=json.dumps(TASKS).encode(), benchmark="fresh-tau", domain="mini")
    bench = Benchmark.objects.get(slug="fresh-tau")
    with django_capture_on_commit_callbacks(execute=True):  # the recompute the commit enqueues (eager here)
        track = track_open(benchmark=bench)
    snap = BoardSnapshot.objects.get(round=track.round, kind=SnapshotKind.BOARDS)
    assert not snap.stale and snap.data is not None
    page = client.get("/b/fresh-tau/").content.decode()
    assert "Computing this board for the first time" not in page
    assert "Community submissions" in page


@pytest.mark.django_db
def test_a_track_opened_on_a_round_without_a_board_has_it_computed(django_capture_on_commit_callbacks):
    from django.utils import timezone

    from leaderboard.models import Round

    tau2_tasks_import(data=json.dumps(TASKS).encode(), benchmark="fresh-tau", domain="mini")
    bench = Benchmark.objects.get(slug="fresh-tau")
    rnd = Round.objects.create(benchmark=bench, key="open-later", status="published", published_at=timezone.now())
    assert not BoardSnapshot.objects.filter(round=rnd).exists()
    with django_capture_on_commit_callbacks(execute=True):
        track_open(benchmark=bench, round_key="open-later")
    assert not BoardSnapshot.objects.get(round=rnd, kind=SnapshotKind.BOARDS).stale
