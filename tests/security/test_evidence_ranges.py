"""A recording stored on the site can be sought: evidence answers HTTP range requests (RFC 9110 §14) with the
right bytes, 206 and Content-Range, 416 past the end, and the whole file otherwise; still inert, still private
before publication."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile

from runs.models import Evidence
from runs.views import byte_range
from tests.builders.voting import build_world

pytestmark = pytest.mark.django_db

# 256 KiB of a "recording": byte i is i mod 251 (a prime: no two nearby ranges look alike).
DATA = bytes(i % 251 for i in range(256 * 1024))


@pytest.fixture
def urls():
    world = build_world(tasks=("todo-app",), trials=1, opaque_shots=False)
    out = {}
    for key, run in (("published", world.runs[0]), ("draft", world.draft_runs[0])):
        ev = Evidence(run=run, kind="recording")
        ev.file.save(f"{key}.webm", ContentFile(DATA), save=True)
        out[key] = ev.file.url
    return out


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_a_range_returns_exactly_those_bytes(client, urls):
    response = client.get(urls["published"], HTTP_RANGE="bytes=100000-100099")
    assert response.status_code == 206
    assert _body(response) == DATA[100000:100100]
    assert response["Content-Range"] == f"bytes 100000-100099/{len(DATA)}"
    assert response["Content-Length"] == "100"
    assert response["Accept-Ranges"] == "bytes"
    assert response["Content-Type"] == "video/webm" and response["Content-Security-Policy"] == "sandbox"


def test_an_open_range_and_a_suffix_range(client, urls):
    tail = client.get(urls["published"], HTTP_RANGE=f"bytes={len(DATA) - 10}-")
    assert tail.status_code == 206 and _body(tail) == DATA[-10:]
    last = client.get(urls["published"], HTTP_RANGE="bytes=-7")
    assert last.status_code == 206 and _body(last) == DATA[-7:]
    assert last["Content-Range"] == f"bytes {len(DATA) - 7}-{len(DATA) - 1}/{len(DATA)}"


def test_past_the_end_is_416_and_no_range_is_the_whole_file(client, urls):
    response = client.get(urls["published"], HTTP_RANGE=f"bytes={len(DATA)}-")
    assert response.status_code == 416 and response["Content-Range"] == f"bytes */{len(DATA)}"
    whole = client.get(urls["published"])
    assert whole.status_code == 200 and _body(whole) == DATA and whole["Accept-Ranges"] == "bytes"
    # Several ranges at once are not served piecewise: the whole file.
    multi = client.get(urls["published"], HTTP_RANGE="bytes=0-1,5-6")
    assert multi.status_code == 200 and _body(multi) == DATA


def test_a_draft_runs_recording_stays_private_whatever_the_range(client, urls):
    assert client.get(urls["draft"], HTTP_RANGE="bytes=0-10").status_code == 404


def test_the_range_header_read_by_hand():
    # (first, last) inclusive, clipped to the file; "unsatisfiable" from the end on; None: send everything.
    assert byte_range("bytes=0-9", 100) == (0, 9)
    assert byte_range("bytes=90-200", 100) == (90, 99)
    assert byte_range("bytes=-30", 100) == (70, 99)
    assert byte_range("bytes=-300", 100) == (0, 99)
    assert byte_range("bytes=100-", 100) == "unsatisfiable"
    assert byte_range("bytes=5-2", 100) is None
    assert byte_range("items=0-9", 100) is None
    assert byte_range("", 100) is None
