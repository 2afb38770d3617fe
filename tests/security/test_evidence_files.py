"""Uploaded evidence at /media/evidence/: served by the site, inert, and only where its run may be seen."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.test import Client

from leaderboard.models import Membership, Round
from runs.models import Evidence
from tests.builders.voting import build_world, make_user, tiny_png

pytestmark = pytest.mark.django_db

SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/vote/")</script></svg>'
HTML = b"<!doctype html><script>document.title = document.cookie</script>"


def _upload(run, name: str, data: bytes) -> str:
    ev = Evidence(run=run, kind="screenshot")
    ev.file.save(name, ContentFile(data), save=True)
    return ev.file.url


@pytest.fixture
def files():
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    published, draft = world.runs[0], world.draft_runs[0]
    return world, {
        "png": _upload(published, "home.png", tiny_png(7)),
        "svg": _upload(published, "home.svg", SVG),
        "html": _upload(published, "report.html", HTML),
        "draft": _upload(draft, "draft.png", tiny_png(8)),
    }


def _get(client, url):
    response = client.get(url)
    body = b"".join(response.streaming_content) if response.status_code == 200 else response.content
    return response, body


def test_a_published_run_s_picture_is_shown_to_anyone_inert(client, files):
    _, urls = files
    assert urls["png"].startswith("/media/evidence/")
    response, body = _get(client, urls["png"])
    assert response.status_code == 200 and body == tiny_png(7)
    assert response["Content-Type"] == "image/png"
    assert response["Content-Security-Policy"] == "sandbox"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Content-Disposition" not in response


@pytest.mark.parametrize("kind", ["svg", "html"])
def test_a_file_that_could_run_scripts_is_a_download_in_a_sandbox(client, files, kind):
    _, urls = files
    response, body = _get(client, urls[kind])
    assert response.status_code == 200 and body == (SVG if kind == "svg" else HTML)
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["Content-Security-Policy"] == "sandbox"


@pytest.mark.parametrize("status", ["draft", "preview"])
def test_an_unpublished_run_s_evidence_is_seen_by_staff_and_in_preview_by_its_own_vendor(client, files, status):
    # Seed 000 §6: a vendor sees its own agents' results during the round's preview, not before.
    world, urls = files
    Round.objects.filter(pk=world.draft_runs[0].round_id).update(status=status)
    assert _get(client, urls["draft"])[0].status_code == 404
    voter = make_user("voter@example.com")
    other_vendor = make_user("dev@quasar.example", organization=world.orgs["zephyrbot"])
    own_vendor = make_user("dev@hidden.example")
    Membership.objects.create(user=own_vendor, organization=world.orgs["secretdraft"])
    staff = make_user("editor@example.com")
    staff.is_staff = True
    staff.save()
    own = 200 if status == "preview" else 404
    for user, expected in ((voter, 404), (other_vendor, 404), (own_vendor, own), (staff, 200)):
        c = Client()
        c.force_login(user)
        assert _get(c, urls["draft"])[0].status_code == expected, user


def test_a_download_keeps_a_file_name_in_any_script_and_head_is_answered(client, files):
    world, _ = files
    url = _upload(world.runs[0], "rapport-été.html", HTML)
    response = client.get(url)
    assert response["Content-Disposition"].startswith("attachment; filename*=utf-8''rapport-")
    head = client.head(url)
    assert head.status_code == 200 and head["Content-Security-Policy"] == "sandbox"


@pytest.mark.parametrize(
    "path",
    [
        "/media/evidence/2026/12/none.png",
        "/media/evidence/../app-builds/0123/index.html",
        "/media/evidence/%2e%2e/app-builds/0123/index.html",
        "/media/app-builds/0123/index.html",
        "/media/",
    ],
)
def test_anything_else_under_media_does_not_exist(client, files, path):
    assert client.get(path).status_code == 404


RECORDING = Path(__file__).resolve().parents[2] / "fixtures" / "evidence" / "recording.webm"
MEDIA_CSP = "sandbox allow-same-origin; default-src 'none'; media-src 'self'"


@pytest.fixture
def recordings():
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    data = RECORDING.read_bytes()
    urls = {}
    for name, run in (("published", world.runs[0]), ("draft", world.draft_runs[0])):
        ev = Evidence(run=run, kind="recording")
        ev.file.save(f"{name}.webm", ContentFile(data), save=True)
        urls[name] = ev.file.url
    return world, urls, data


def test_a_recording_plays_by_its_address_still_inert_and_is_sought_by_ranges(client, recordings):
    # Opened by its address the browser's own player asks for the file again: a sandbox with an opaque origin
    # refuses that request (CORS, origin 'null'), so a recording keeps the site's origin, with no script, no
    # form and nothing loaded but media from the site; it stays inline (no Content-Disposition).
    _, urls, data = recordings
    whole, body = _get(client, urls["published"])
    assert whole.status_code == 200 and body == data
    assert whole["Content-Type"] == "video/webm" and whole["Accept-Ranges"] == "bytes"
    assert whole["Content-Security-Policy"] == MEDIA_CSP
    assert "allow-scripts" not in whole["Content-Security-Policy"] and "allow-forms" not in MEDIA_CSP
    assert whole["X-Content-Type-Options"] == "nosniff" and "Content-Disposition" not in whole
    # A seek: the player asks for a byte range and gets exactly those bytes (206), as the run page's player does.
    part = client.get(urls["published"], HTTP_RANGE="bytes=1000-1999")
    assert part.status_code == 206
    assert part["Content-Range"] == f"bytes 1000-1999/{len(data)}"
    assert b"".join(part.streaming_content) == data[1000:2000]
    assert part["Content-Security-Policy"] == MEDIA_CSP
    assert client.get(urls["published"], HTTP_RANGE=f"bytes={len(data)}-").status_code == 416


def test_an_unpublished_recording_is_sought_only_by_who_may_see_its_run(client, recordings):
    world, urls, data = recordings
    assert client.get(urls["draft"], HTTP_RANGE="bytes=0-99").status_code == 404
    voter = make_user("voter@example.com")
    c = Client()
    c.force_login(voter)
    assert c.get(urls["draft"], HTTP_RANGE="bytes=0-99").status_code == 404
    staff = make_user("editor@example.com")
    staff.is_staff = True
    staff.save()
    c.force_login(staff)
    part = c.get(urls["draft"], HTTP_RANGE="bytes=0-99")
    assert part.status_code == 206 and b"".join(part.streaming_content) == data[:100]


def test_a_picture_keeps_the_opaque_sandbox(client, files):
    # Only audio and video keep the site's origin: everything else stays in a sandbox of its own.
    _, urls = files
    assert client.get(urls["png"])["Content-Security-Policy"] == "sandbox"
