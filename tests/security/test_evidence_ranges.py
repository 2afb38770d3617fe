"""A recording stored on the site is served with HTTP range requests, so a player can seek in a 30-minute video:
one byte range gives 206 with exactly those bytes, a range past the end 416, and the evidence rules (inert,
private until publication) hold for every answer."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile

from runs.models import Evidence
from runs.stored_files import Unsatisfiable, byte_range
from tests.builders.voting import build_world

pytestmark = pytest.mark.django_db

# 300 KB of bytes that differ from place to place (a wrong offset gives different bytes).
VIDEO = bytes((i * 7 + i // 251) % 256 for i in range(300_000))
SIZE = len(VIDEO)


@pytest.fixture
def recordings():
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    urls = {}
    for key, run in (("published", world.runs[0]), ("draft", world.draft_runs[0])):
        ev = Evidence(run=run, kind="recording")
        ev.file.save(f"{key}.mp4", ContentFile(VIDEO), save=True)
        urls[key] = ev.href
    return urls


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_a_byte_range_of_a_recording_is_206_with_exactly_those_bytes(client, recordings):
    response = client.get(recordings["published"], HTTP_RANGE="bytes=100000-100999")
    assert response.status_code == 206
    assert _body(response) == VIDEO[100_000:101_000]
    assert response["Content-Range"] == f"bytes 100000-100999/{SIZE}"
    assert response["Content-Length"] == "1000"
    assert response["Accept-Ranges"] == "bytes"
    assert response["Content-Type"] == "video/mp4"
    # Still inert (sandboxed: no script, no form, nothing loaded but the site's own media, so the browser's player
    # may fetch the next range of the same file) and private to the browser's cache.
    assert response["Content-Security-Policy"] == "sandbox allow-same-origin; default-src 'none'; media-src 'self'"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "private, max-age=300"


def test_an_open_range_and_a_suffix_range_give_the_file_s_end(client, recordings):
    url = recordings["published"]
    response = client.get(url, HTTP_RANGE=f"bytes={SIZE - 10}-")
    assert response.status_code == 206 and _body(response) == VIDEO[-10:]
    assert response["Content-Range"] == f"bytes {SIZE - 10}-{SIZE - 1}/{SIZE}"
    response = client.get(url, HTTP_RANGE="bytes=-500")
    assert response.status_code == 206 and _body(response) == VIDEO[-500:]
    # A last byte past the end is cut to the end (RFC 9110 §14.1.2).
    response = client.get(url, HTTP_RANGE=f"bytes={SIZE - 3}-{SIZE + 1000}")
    assert response.status_code == 206 and _body(response) == VIDEO[-3:]


def test_a_range_past_the_end_is_416_with_the_size(client, recordings):
    response = client.get(recordings["published"], HTTP_RANGE=f"bytes={SIZE}-")
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"
    assert response["Content-Security-Policy"] == "sandbox"


def test_no_range_or_one_not_understood_sends_the_whole_file_saying_ranges_are_accepted(client, recordings):
    url = recordings["published"]
    for header in (None, "bytes=0-9,20-29", "lines=1-2", "bytes=abc"):
        extra = {"HTTP_RANGE": header} if header else {}
        response = client.get(url, **extra)
        assert response.status_code == 200, header
        assert _body(response) == VIDEO and response["Content-Length"] == str(SIZE)
        assert response["Accept-Ranges"] == "bytes"


def test_if_range_with_the_file_s_date_gives_the_range_and_another_date_the_whole_file(client, recordings):
    url = recordings["published"]
    modified = client.get(url)["Last-Modified"]
    same = client.get(url, HTTP_RANGE="bytes=0-99", HTTP_IF_RANGE=modified)
    assert same.status_code == 206 and _body(same) == VIDEO[:100]
    old = client.get(url, HTTP_RANGE="bytes=0-99", HTTP_IF_RANGE="Mon, 01 Jan 2001 00:00:00 GMT")
    assert old.status_code == 200 and _body(old) == VIDEO


def test_an_unpublished_run_s_recording_is_not_found_whatever_range_is_asked(client, recordings):
    for header in ("bytes=0-99", f"bytes={SIZE}-", "bytes=-1"):
        response = client.get(recordings["draft"], HTTP_RANGE=header)
        assert response.status_code == 404 and "Content-Range" not in response, header


def test_the_file_is_streamed_not_read_whole(client, recordings):
    response = client.get(recordings["published"])
    assert response.streaming
    assert response.block_size == 64 * 1024


@pytest.mark.parametrize(
    ("header", "size", "expected"),
    [
        ("bytes=0-0", 10, (0, 0)),
        ("bytes=5-", 10, (5, 9)),
        ("bytes=-3", 10, (7, 9)),
        ("bytes=-30", 10, (0, 9)),  # a suffix longer than the file is the whole file
        ("bytes=2-100", 10, (2, 9)),
        ("bytes=5-2", 10, None),  # not a valid range: ignored
        ("bytes=1-2,4-5", 10, None),  # several ranges: the whole file
        ("", 10, None),
    ],
)
def test_byte_range(header, size, expected):
    assert byte_range(header, size) == expected


@pytest.mark.parametrize(("header", "size"), [("bytes=10-", 10), ("bytes=-0", 10), ("bytes=0-", 0)])
def test_an_unsatisfiable_range(header, size):
    with pytest.raises(Unsatisfiable):
        byte_range(header, size)
