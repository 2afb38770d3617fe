"""Board and run pages run the same number of queries for 3 agents as for 40."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.caching import local_clear
from tests.builders.site import checks_bundle
from tests.isolation import cache_clear_own

pytestmark = pytest.mark.django_db

URLS = {
    "board": "/b/{slug}/",
    "board_round_tasks": "/b/{slug}/r/r1/?tab=tasks&task=shop&sort=median&dir=desc",
    "board_partial": "/b/{slug}/r/r1/?tab=overall",
    "run": "/b/{slug}/r/r1/runs/{slug}-r1-agent-00-shop-t1/",
    "run_json": "/b/{slug}/r/r1/runs/{slug}-r1-agent-00-shop-t1.json",
    "round_agent": "/b/{slug}/r/r1/agents/agent-00/",
    "task": "/b/{slug}/tasks/shop/",
    "tradeoffs": "/b/{slug}/tradeoffs/",
    "home": "/",
}


def _count(client, url: str, htmx: bool = False) -> int:
    cache_clear_own()  # measure a rendering, not a hit of the public page cache (leaderboard.caching)
    local_clear()
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, headers={"HX-Request": "true"} if htmx else {})
    assert response.status_code == 200, url
    return len(ctx.captured_queries)


@pytest.mark.parametrize("page", sorted(URLS))
def test_it_runs_a_constant_number_of_queries(load, client, page):
    load(checks_bundle(slug="small", agents=3))
    small = _count(client, URLS[page].format(slug="small"), htmx=page == "board_partial")
    load(checks_bundle(slug="large", agents=40, runs_per_task=5))
    large = _count(client, URLS[page].format(slug="large"), htmx=page == "board_partial")
    assert small == large, f"{page}: {small} queries for 3 agents, {large} for 40"


def test_a_visitor_without_a_session_is_served_from_the_page_cache(load, client):
    load(checks_bundle(slug="small", agents=3))
    first = client.get("/b/small/")
    with CaptureQueriesContext(connection) as ctx:
        second = client.get("/b/small/")
    assert second["X-Page-Cache"] == "hit" and len(ctx.captured_queries) == 0
    assert second.content == first.content
    # A recompute that changes the board retires the cached page.
    from leaderboard.caching import content_version_bump

    content_version_bump()
    assert not client.get("/b/small/").has_header("X-Page-Cache")


def test_board_and_run_pages_stay_within_a_few_queries(load, client, django_assert_num_queries):
    load(checks_bundle(slug="small", agents=3))
    load(checks_bundle(slug="large", agents=40, runs_per_task=5))
    for slug in ("small", "large"):
        with django_assert_num_queries(5):
            client.get(f"/b/{slug}/")
        with django_assert_num_queries(10):  # 9, and the run's corrections ("corrected on <date>: <reason>")
            client.get(f"/b/{slug}/r/r1/runs/{slug}-r1-agent-00-shop-t1/")
