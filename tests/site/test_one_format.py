"""One style for money, times and tokens on every page (issue #32 item 5): $0.002 is not $0.00 on another page,
646 seconds read 10m 46s, 2,160,000 tokens read 2.16M."""

from __future__ import annotations

import re

import pytest

from tests.builders.site import scored_bundle

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_runs_cost_time_and_tokens_read_the_same_on_the_run_and_round_agent_pages(load, client):
    doc = scored_bundle("fbench")
    run = next(r for r in doc["runs"] if r["id"] == "solo-t1-1")
    # 2,000,000 + 160,000 = 2,160,000 tokens; 646 s = 10 min 46 s; a fifth of a cent.
    run.update(cost_usd=0.002, wall_seconds=646.0, tokens_input=2_000_000, tokens_output=160_000)
    load(doc)
    run_page = _text(client.get("/b/fbench/r/r1/runs/solo-t1-1/").content.decode())
    assert "$0.002" in run_page and "10m 46s" in run_page and "2.16M" in run_page
    assert "$0.00 " not in run_page and "646 s" not in run_page
    agent_page = _text(client.get("/b/fbench/r/r1/agents/solo/").content.decode())
    assert "$0.002" in agent_page and "10m 46s" in agent_page
