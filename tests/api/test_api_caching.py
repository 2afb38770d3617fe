"""Clients poll cheaply: every GET carries an ETag and Cache-Control, a matching If-None-Match answers 304
with no body, and boards and ratings carry Last-Modified while fresh."""

from __future__ import annotations

import pytest
from django.utils import timezone
from django.utils.http import http_date

pytestmark = pytest.mark.usefixtures("no_rate_limit")

BOARD = "/api/benchmarks/demo/rounds/r1/board"


@pytest.mark.parametrize(
    "url", ["/api/benchmarks", "/api/benchmarks/demo/runs", BOARD, "/api/agents/nimbus", "/api/benchmarks/demo/bundle"]
)
def test_a_matching_etag_answers_304_with_no_body(demo, client, url):
    first = client.get(url)
    assert first.status_code == 200
    assert first["Cache-Control"] == "public, max-age=10"
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')

    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag


def test_a_different_etag_gets_the_full_body(demo, client):
    r = client.get(BOARD, headers={"If-None-Match": '"something-else"'})
    assert r.status_code == 200
    assert r.json()["round"] == "r1"


def test_the_etag_changes_when_the_board_changes(demo, client, django_capture_on_commit_callbacks):
    from leaderboard.models import Round
    from leaderboard.stale import snapshots_mark_stale

    fresh = client.get(BOARD)
    with django_capture_on_commit_callbacks(execute=False):
        snapshots_mark_stale(round_ids=[Round.objects.get(key="r1").id])
    stale = client.get(BOARD, headers={"If-None-Match": fresh["ETag"]})
    assert stale.status_code == 200
    assert stale.json()["stale"] is True
    assert stale["ETag"] != fresh["ETag"]


def test_a_fresh_board_has_last_modified_and_honours_if_modified_since(demo, client):
    from snapshots.models import BoardSnapshot

    snap = BoardSnapshot.objects.get(round__key="r1", kind="boards")
    r = client.get(BOARD)
    assert r["Last-Modified"] == http_date(snap.computed_at.timestamp())
    later = http_date(timezone.now().timestamp() + 60)
    assert client.get(BOARD, headers={"If-Modified-Since": later}).status_code == 304


def test_a_stale_board_has_no_last_modified(demo, client):
    from snapshots.models import BoardSnapshot

    BoardSnapshot.objects.filter(round__key="r1").update(stale=True, stale_since=timezone.now())
    r = client.get(BOARD)
    assert "Last-Modified" not in r
    later = http_date(timezone.now().timestamp() + 60)
    assert client.get(BOARD, headers={"If-Modified-Since": later}).status_code == 200


def test_errors_are_not_marked_cacheable(demo, client):
    r = client.get("/api/benchmarks/nope")
    assert r.status_code == 404
    assert "ETag" not in r
    assert "public" not in r.get("Cache-Control", "")
