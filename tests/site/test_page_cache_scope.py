"""The page cache retires only the pages a changed snapshot feeds: a snapshot of one benchmark turning stale
or changing retires that benchmark's pages and the home page, never another benchmark's; and a changed page
is rendered by one process while the others keep serving the page they had."""

from __future__ import annotations

import hashlib

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from leaderboard.caching import VERSION_KEY, _render_claim, _scope_key, content_version_bump, local_clear
from leaderboard.models import Benchmark
from leaderboard.stale import snapshots_mark_stale
from tests.builders.site import checks_bundle

pytestmark = pytest.mark.django_db


def _hit(client, url: str) -> bool:
    local_clear()  # another process: it has only the shared cache
    return client.get(url).get("X-Page-Cache") == "hit"


def test_a_stale_snapshot_of_one_benchmark_leaves_the_other_benchmarks_pages_cached(
    load, client, django_capture_on_commit_callbacks
):
    load(checks_bundle(slug="voted", agents=3))
    load(checks_bundle(slug="quiet", agents=3))
    for url in ("/b/voted/", "/b/quiet/", "/"):
        client.get(url)
        assert _hit(client, url), url
    # What a counted vote on "voted" does: its ratings turn stale, and the retirement runs after commit.
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        bench = Benchmark.objects.get(slug="voted")
        snapshots_mark_stale(benchmark_ids=[bench.id])
    assert not _hit(client, "/b/voted/")  # re-rendered, now saying "updating"
    assert _hit(client, "/")  # the home page shows boards, not ratings
    assert _hit(client, "/b/quiet/")
    with CaptureQueriesContext(connection) as ctx:
        local_clear()
        client.get("/b/quiet/")
    assert len(ctx.captured_queries) == 0


def test_a_board_turning_stale_retires_its_benchmark_s_pages_and_the_home_page(
    load, client, django_capture_on_commit_callbacks
):
    from leaderboard.models import Round

    load(checks_bundle(slug="voted", agents=3))
    load(checks_bundle(slug="quiet", agents=3))
    for url in ("/b/voted/", "/b/quiet/", "/"):
        client.get(url)
    # What a verdict or an import does: a round's board turns stale.
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        snapshots_mark_stale(round_ids=[Round.objects.get(benchmark__slug="voted").id])
    assert not _hit(client, "/b/voted/")
    assert not _hit(client, "/")  # the home page shows every benchmark's board
    assert _hit(client, "/b/quiet/")


def test_a_bump_without_benchmarks_retires_every_page(load, client):
    load(checks_bundle(slug="quiet", agents=3))
    client.get("/b/quiet/")
    assert _hit(client, "/b/quiet/")
    content_version_bump()
    assert not _hit(client, "/b/quiet/")


def test_while_one_process_renders_a_changed_page_the_others_serve_the_page_they_had(load, client):
    load(checks_bundle(slug="voted", agents=3))
    first = client.get("/b/voted/")
    content_version_bump(benchmarks=["voted"])
    # Another process has claimed the render of the new version (the claim is keyed by URL and version).

    key = "page:" + hashlib.sha256(b"False:/b/voted/").hexdigest()
    version = (cache.get(VERSION_KEY, 1), cache.get(_scope_key("voted"), 1))
    assert _render_claim(key, version) is True
    local_clear()
    with CaptureQueriesContext(connection) as ctx:
        served = client.get("/b/voted/")
    assert served["X-Page-Cache"] == "hit" and served.content == first.content
    assert len(ctx.captured_queries) == 0


def test_addresses_of_benchmarks_that_do_not_exist_neither_grow_the_process_memory_nor_make_bad_keys(client):
    from leaderboard import caching

    local_clear()
    for i in range(caching.LOCAL_PAGES + 50):
        assert client.get(f"/b/no-such-{i}/").status_code == 404
    assert len(caching._local_versions) <= caching.LOCAL_PAGES
    key = _scope_key("' OR 1=1 --")
    assert " " not in key and "'" not in key and len(key) < 250


def test_a_cached_page_is_sent_gzipped_to_a_browser_that_accepts_it_and_plain_to_one_that_does_not(load, client):
    import gzip

    load(checks_bundle(slug="voted", agents=3))
    first = client.get("/b/voted/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert first.get("X-Page-Cache") != "hit" and "Content-Encoding" not in first  # rendered, kept both ways
    assert "Accept-Encoding" in first["Vary"]
    html = first.content
    for served in (client.get("/b/voted/", HTTP_ACCEPT_ENCODING="gzip, deflate, br"), _gzip_hit(client)):
        assert served["X-Page-Cache"] == "hit" and served["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in served["Vary"] and "HX-Request" in served["Vary"]
        assert len(served.content) < len(html) / 3 and gzip.decompress(served.content) == html
    plain = client.get("/b/voted/")  # no Accept-Encoding: the page as rendered
    assert plain["X-Page-Cache"] == "hit" and "Content-Encoding" not in plain and plain.content == html
    assert "Accept-Encoding" in plain["Vary"]


def _gzip_hit(client):
    local_clear()  # another process: served from the shared cache
    return client.get("/b/voted/", HTTP_ACCEPT_ENCODING="gzip")
