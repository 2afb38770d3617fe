"""Demo evidence that works (issue #32 item 19): no demo link points at a host that does not exist; each is a
small real file served by the site, inert, and loading the demo again adds nothing."""

from __future__ import annotations

import io

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
        assert response["Content-Security-Policy"] == "sandbox"
        body = b"".join(response.streaming_content)
        assert len(body) > 100
    # A run page links them.
    run = kinds["recording"].run
    html = client.get(f"/b/{run.round.benchmark.slug}/r/{run.round.key}/runs/{run.key}/").content.decode()
    assert kinds["recording"].href in html
    before = Evidence.objects.count()
    call_command("load_demo", "--no-users", stdout=io.StringIO())
    assert Evidence.objects.count() == before
