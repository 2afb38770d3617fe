"""Issue 31: the site past one machine. Two app server processes (gunicorn, each with its own local disk) share
PostgreSQL, Redis and an S3-compatible object storage (moto's standalone server), as behind a load balancer:

- an app build uploaded through the first is played on the vote screen of the second;
- evidence uploaded through the second is served by the first (range requests included), and a draft run's
  evidence stays private there;
- nothing is written to either server's disk: every file is in the bucket.

Everything here is started and stopped by the test, on loopback ports."""

from __future__ import annotations

import io
import re
import time
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from html import unescape
from pathlib import Path

import pytest
import requests
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from live_services import AppServer, S3Server, wait_for

from leaderboard.caching import LOCAL_VERSION_SECONDS
from leaderboard.models import Round
from runs.models import AppBuild, Evidence
from snapshots.models import BoardSnapshot
from tests.builders.voting import build_world, make_user
from voting.models import Matchup, Vote

pytestmark = [pytest.mark.services, pytest.mark.slow]

INDEX = b"<!doctype html><html><head><link rel='stylesheet' href='css/app.css'></head><body>two servers</body></html>"
VIDEO = bytes((i * 13 + i // 241) % 256 for i in range(200_000))


@pytest.fixture
def servers(live_celery, tmp_path) -> Iterator[tuple[S3Server, list[AppServer]]]:
    s3 = S3Server(tmp_path)
    started: list[AppServer] = []
    try:
        s3.start()
        for n in (1, 2):
            env = live_celery.env(STORAGE_URL=s3.storage_url, MEDIA_ROOT=str(tmp_path / f"media-{n}"), **s3.env())
            started.append(AppServer(tmp_path, f"server-{n}", env).start())
        yield s3, started
    finally:
        for server in started:
            server.stop()
        s3.stop()


def _session(user) -> requests.Session:
    """A browser session of `user` (signed in here: the session row is in the shared database)."""
    client = Client()
    client.force_login(user)
    session = requests.Session()
    session.cookies.set("sessionid", client.cookies["sessionid"].value)
    return session


def _admin_post(session: requests.Session, server: AppServer, path: str, data: dict, files: dict) -> None:
    form = session.get(server.url + path, timeout=30)
    assert form.status_code == 200, form.text[:2000]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    assert token, form.text[:2000]
    answer = session.post(
        server.url + path,
        data={**data, "csrfmiddlewaretoken": token.group(1), "_save": "Save"},
        files=files,
        headers={"Referer": server.url + path},
        allow_redirects=False,
        timeout=60,
    )
    assert answer.status_code == 302, answer.text[:3000]


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("index.html", INDEX)
        z.writestr("css/app.css", b"body{color:red}")
    return buf.getvalue()


def _frames(html: str) -> dict[str, str]:
    found = re.findall(r'<iframe[^>]*src="([^"]+)"[^>]*title="App ([AB]), live"', html)
    return {letter: unescape(src) for src, letter in found}


def _disk_files(tmp_path: Path) -> list[Path]:
    return [p for n in (1, 2) for p in (tmp_path / f"media-{n}").rglob("*") if p.is_file()]


def test_a_build_uploaded_through_one_server_plays_on_the_vote_screen_of_the_other(servers, tmp_path):
    s3, (first, second) = servers
    world = build_world(tasks=("todo-app",), trials=1)
    editor = get_user_model().objects.create_superuser("editor", "editor@example.org", "pw-editor-123")
    voter = make_user("voter@example.com")
    as_editor, as_voter = _session(editor), _session(voter)

    # The voter's pair is drawn on the second server: screenshots only, so far.
    screen = as_voter.get(second.url + "/vote/", timeout=30)
    assert screen.status_code == 200 and _frames(screen.text) == {}
    matchup = Matchup.objects.get(voter=voter)

    # The editor uploads both sides' builds through the first server.
    for run_id in (matchup.run_a_id, matchup.run_b_id):
        _admin_post(as_editor, first, "/admin/runs/appbuild/add/", {"run": run_id}, {"upload": ("app.zip", _zip())})
    assert AppBuild.objects.count() == 2
    assert any(name.startswith("app-builds/") for name in s3.names())
    assert _disk_files(tmp_path) == []  # in the bucket, on neither server's disk

    # The second server's vote screen now frames both apps (its pool copy is rechecked within
    # POOL_RECHECK_SECONDS of the first server's retirement), and plays them from the bucket.
    frames = wait_for(
        lambda: (f := _frames(as_voter.get(second.url + "/vote/", timeout=30).text)) and len(f) == 2 and f,
        10,
        "the second server's vote screen to frame both apps",
        interval=0.3,
    )
    assert isinstance(frames, dict)
    assert Matchup.objects.filter(voter=voter).count() == 1  # the same pair, now live
    for letter in "AB":
        page = requests.get(second.url + frames[letter], timeout=30)  # no session: the alias alone opens it
        assert page.status_code == 200, page.text[:2000]
        assert page.content.endswith(INDEX[len(b"<!doctype html>") :])
        assert "sandbox allow-scripts allow-forms" in page.headers["Content-Security-Policy"]
        asset = requests.get(second.url + frames[letter] + "css/app.css", timeout=30)
        assert asset.status_code == 200 and asset.content.startswith(b"body{color:red}")
    assert world.runs  # (the world is the shared database's)


def test_evidence_uploaded_through_one_server_is_served_by_the_other_and_stays_private(servers, tmp_path):
    s3, (first, second) = servers
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    editor = get_user_model().objects.create_superuser("editor", "editor@example.org", "pw-editor-123")
    as_editor = _session(editor)
    for run, caption in ((world.runs[0], "published recording"), (world.draft_runs[0], "draft recording")):
        _admin_post(
            as_editor,
            second,
            "/admin/runs/evidence/add/",
            {"run": run.pk, "kind": "recording", "url": "", "caption": caption},
            {"file": ("flight.mp4", VIDEO, "video/mp4")},
        )
    published = Evidence.objects.get(caption="published recording")
    draft = Evidence.objects.get(caption="draft recording")
    assert published.file.name in s3.names() and draft.file.name in s3.names()
    assert _disk_files(tmp_path) == []

    whole = requests.get(first.url + published.href, timeout=30)
    assert whole.status_code == 200 and whole.content == VIDEO
    assert whole.headers["Content-Type"] == "video/mp4" and whole.headers["Accept-Ranges"] == "bytes"
    # Sandboxed as a recording is (no script, no form, only the site's own media, so the player can fetch ranges).
    assert whole.headers["Content-Security-Policy"] == "sandbox allow-same-origin; default-src 'none'; media-src 'self'"
    part = requests.get(first.url + published.href, headers={"Range": "bytes=150000-150099"}, timeout=30)
    assert part.status_code == 206 and part.content == VIDEO[150_000:150_100]
    assert part.headers["Content-Range"] == f"bytes 150000-150099/{len(VIDEO)}"
    assert requests.get(first.url + published.href, headers={"Range": "bytes=999999-"}, timeout=30).status_code == 416

    # A draft run's recording: no one but staff sees it, on either server.
    for server in (first, second):
        assert requests.get(server.url + draft.href, timeout=30).status_code == 404
        assert as_editor.get(server.url + draft.href, timeout=30).content == VIDEO


def _board(server: AppServer, path: str = "/b/appbench-t/") -> str:
    answer = requests.get(server.url + path, timeout=30)  # anonymous: served from the page cache
    assert answer.status_code == 200, answer.text[:2000]
    return answer.text


def _fresh_everywhere() -> bool:
    return not BoardSnapshot.objects.filter(stale=True).exists()


def _seen_by_both(servers: list[AppServer], seen, what: str, path: str = "/b/appbench-t/") -> float:
    """Seconds until every server's public page at `path` shows what `seen` looks for (polled every 0.1 s)."""
    start = time.monotonic()
    wait_for(lambda: all(seen(_board(s, path)) for s in servers), 30, what, interval=0.1, log=servers[0].log)
    return time.monotonic() - start


def test_a_vote_through_one_server_and_a_publication_through_the_other_are_seen_by_both(servers, live_celery, tmp_path):
    """The per-process page table trusts the shared versions it read for LOCAL_VERSION_SECONDS and the vote pool
    its copy for POOL_RECHECK_SECONDS (README, "Two app servers and more"): once the shared state changes,
    every server shows it within that delay (plus a request's own time)."""
    _, (first, second) = servers
    delay = LOCAL_VERSION_SECONDS + 1.5  # the documented delay, and room for a render on a loaded machine
    world = build_world(tasks=("todo-app",), trials=1)
    editor = get_user_model().objects.create_superuser("editor", "editor@example.org", "pw-editor-123")
    voter = make_user("voter@example.com")
    as_editor, as_voter = _session(editor), _session(voter)
    live_celery.start(beat=False)
    wait_for(_fresh_everywhere, 60, "the first recount", log=live_celery.log)
    task = "/b/appbench-t/tasks/todo-app/"  # the task's vote ratings, with their numbers of votes
    for server in (first, second, first, second):  # both servers hold the pages in their own tables
        before, task_before = _board(server), _board(server, task)
    assert "October" in before and "November" not in before

    # A vote through the first server: the worker refits the ratings; both servers show the new board.
    screen = as_voter.get(first.url + "/vote/", timeout=30)
    key = re.search(r'action="/vote/m/([^/]+)/"', screen.text)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', screen.text)
    assert key and token, screen.text[:3000]
    cast = as_voter.post(
        first.url + f"/vote/m/{key.group(1)}/",
        data={"winner": "a", "csrfmiddlewaretoken": token.group(1)},
        headers={"Referer": first.url + "/vote/"},
        allow_redirects=False,
        timeout=30,
    )
    assert cast.status_code in (200, 302, 303), cast.text[:3000]
    assert Vote.objects.count() == 1
    wait_for(_fresh_everywhere, 60, "the recount after the vote", log=live_celery.log)
    counted = _board(first, task)
    assert counted != task_before
    took = _seen_by_both([first, second], lambda page: page == counted, "both servers to show the vote", task)
    assert took <= delay, took

    # A publication through the second server (the round's preview is over): both show the new round.
    november = Round.objects.get(key="2026-11")
    Round.objects.filter(pk=november.pk).update(status="preview", preview_started_at=timezone.now() - timedelta(days=9))
    form = as_editor.get(second.url + "/admin/leaderboard/round/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    assert token, form.text[:2000]
    published = as_editor.post(
        second.url + "/admin/leaderboard/round/",
        data={
            "action": "publish",
            "_selected_action": november.pk,
            "index": 0,
            "post": "yes",  # confirmed (the action asks first, naming what becomes public)
            "csrfmiddlewaretoken": token.group(1),
        },
        headers={"Referer": second.url + "/admin/leaderboard/round/"},
        allow_redirects=False,
        timeout=30,
    )
    assert published.status_code == 302, published.text[:3000]
    assert Round.objects.get(pk=november.pk).status == "published"
    took = _seen_by_both([first, second], lambda page: "November" in page, "both servers to show the publication")
    assert took <= delay, took
    assert world.runs
