"""Demo evidence that works (issue #32 item 19): no demo link points at a host that does not exist; each is a
small real file served by the site, inert, and loading the demo again adds nothing."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path

import pytest
from django.core.management import call_command

from runs.models import Evidence

pytestmark = pytest.mark.django_db


def test_every_demo_evidence_link_is_a_file_the_site_serves(client):
    call_command("load_demo", "--no-users", stdout=io.StringIO())
    assert not Evidence.objects.filter(url__contains="media.example.org").exists()
    published = Evidence.objects.filter(run__round__status="published").exclude(file="")
    kinds = {}
    for ev in published:
        kinds.setdefault(ev.kind, ev)
    assert {"recording", "screenshot", "log"} <= set(kinds), set(kinds)
    expected = {"recording": "video/webm", "screenshot": "image/png", "audio": "audio/", "log": "text/plain"}
    for kind, ev in kinds.items():
        response = client.get(ev.href)
        assert response.status_code == 200, (kind, ev.href)
        assert response["Content-Type"].startswith(expected[kind]) or response["Content-Type"].startswith("audio/")
        assert response["Content-Security-Policy"].split(";")[0].startswith("sandbox")
        assert "allow-scripts" not in response["Content-Security-Policy"]
        body = b"".join(response.streaming_content)
        assert len(body) > 100
    # A run page links them.
    run = kinds["recording"].run
    html = client.get(f"/b/{run.round.benchmark.slug}/r/{run.round.key}/runs/{run.key}/").content.decode()
    assert kinds["recording"].href in html
    before = Evidence.objects.count()
    call_command("load_demo", "--no-users", stdout=io.StringIO())
    assert Evidence.objects.count() == before


def _webm_seconds(data: bytes) -> float:
    """A WebM's Duration (EBML id 0x4489, an 8-byte float) in its TimecodeScale (id 0x2AD7B1; ns a tick)."""
    at = data.index(b"\x2a\xd7\xb1")
    size = data[at + 3] & 0x7F
    scale = int.from_bytes(data[at + 4 : at + 4 + size], "big")
    at = data.index(b"\x44\x89\x88")
    return struct.unpack(">d", data[at + 3 : at + 11])[0] * scale / 1e9


def test_the_demo_recording_is_as_long_as_every_mark_of_the_demo():
    # The demo's recordings are all this one file: each mark must land inside it, the latest at 30:00.
    folder = Path(__file__).resolve().parents[2] / "fixtures"
    data = (folder / "evidence" / "recording.webm").read_bytes()
    latest = max(
        m["at_seconds"]
        for name in ("artb.json", "weekly.json")
        for run in json.loads((folder / name).read_text())["runs"]
        for m in run.get("marks") or []
    )
    assert latest == 1800.0
    assert _webm_seconds(data) >= latest + 30
    assert len(data) < 2_000_000
