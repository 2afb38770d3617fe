"""The 95% interval and Rank (UB) on the board, in its CSV and API, the interval charts, and the head-to-head
page."""

from __future__ import annotations

import csv
import io
import re

import pytest

from scoring.intervals import paired_difference
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle, outcomes_bundle

pytestmark = pytest.mark.django_db


def _overall(slug: str = "qbench") -> dict[str, dict]:
    data = BoardSnapshot.objects.get(kind="boards", benchmark__slug=slug, round__key="r1").data
    return {r["agent"]: r for r in data["overall"]}


def test_the_board_shows_the_interval_and_rank_ub_beside_the_seeds_rank(load, client):
    load(checks_bundle())
    rows = _overall()
    html = client.get("/b/qbench/").content.decode()
    assert "Rank (UB)" in html and ">Rank<" in html.replace("\n", "").replace(" ", "")
    for row in rows.values():
        assert row["ci_low"] <= row["overall"] <= row["ci_high"]
        low, high = f"{row['ci_low']:.1f}", f"{row['ci_high']:.1f}"
        assert f"95% interval {low} to {high}" in html
    # The interval chart: one bar per agent in each of its two drawings (wide, and narrow for a phone), its
    # numbers in a table beside it.
    chart = html[html.index('id="score-chart"') : html.index('id="rating-chart"')]
    for drawing in ("intervals-wide", "intervals-narrow"):
        svg = chart[chart.index(drawing) : chart.index("</svg>", chart.index(drawing))]
        assert svg.count('class="ci-bar"') == len(rows), drawing
    assert "The numbers of this chart" in chart
    # The vote ratings get their own chart.
    assert 'id="rating-chart"' in html


def test_the_board_csv_and_the_api_carry_the_interval(load, client):
    load(checks_bundle())
    rows = _overall()
    found = list(csv.DictReader(io.StringIO(client.get("/b/qbench/r/r1/board.csv?tab=overall").content.decode())))
    for line in found:
        row = rows[line["agent"]]
        # Named for the figure they bound: a bare ci_low beside the vote rating's column read as its interval.
        assert float(line["overall_ci_low"]) == row["ci_low"] and float(line["overall_ci_high"]) == row["ci_high"]
        assert "ci_low" not in line
        assert int(line["rank_ub"]) == row["rank_ub"]
        assert "compare" not in line
    api = client.get("/api/benchmarks/qbench/rounds/r1/board").json()["data"]
    assert {r["agent"]: r["rank_ub"] for r in api["overall"]} == {a: r["rank_ub"] for a, r in rows.items()}


def test_every_board_row_links_to_a_head_to_head(load, client):
    load(checks_bundle(), outcomes_bundle())
    for slug in ("qbench", "obench"):
        html = client.get(f"/b/{slug}/").content.decode()
        links = re.findall(rf'href="(/b/{slug}/compare/\?[^"]+)"', html)
        rows = html.count("<tr data-agent=")
        assert rows >= 2 and len(links) == rows


def test_the_head_to_head_shows_tasks_side_by_side_the_paired_difference_and_the_votes(load, client):
    load(checks_bundle())
    data = BoardSnapshot.objects.get(kind="boards").data
    html = client.get("/b/qbench/compare/?a=agent-00&b=agent-01&round=r1").content.decode()
    assert "<html" in html  # the whole page, without JavaScript
    # Both tasks, each side linking to its median run.
    for task in ("shop", "notes"):
        for agent in ("agent-00", "agent-01"):
            median = next(r["median_run"] for r in data["tasks"][task] if r["agent"] == agent)
            assert f"/b/qbench/r/r1/runs/{median}/" in html
    diff = paired_difference(data["pairs"], "agent-00", "agent-01")
    assert diff["tasks"] == 2
    sign = "−" if diff["difference"] < 0 else "+"
    assert f"= {sign}{abs(diff['difference']):.1f}" in html
    # 12 votes between them, the builder's winner "a" (agent-00) unless k is a multiple of 3: 8 to 4.
    assert "In 12 counted votes between them: Agent 00 won 8, Agent 01 won 4, 0 ties." in html
    assert "the model predicts Agent 00 beats Agent 01 in" in html


def test_an_htmx_swap_answers_the_region_only_and_the_swap_link_reverses_the_pair(load, client):
    load(checks_bundle())
    html = client.get("/b/qbench/compare/?a=agent-01&b=agent-02&round=r1", headers={"HX-Request": "true"})
    body = html.content.decode()
    assert "<html" not in body and 'id="compare-region"' in body
    assert "/b/qbench/compare/?a=agent-02&amp;b=agent-01&amp;round=r1" in body


def test_the_head_to_head_asks_for_two_agents_of_the_round(load, client):
    load(checks_bundle())
    for query in ("", "?a=agent-00", "?a=agent-00&b=agent-00", "?a=agent-00&b=nobody"):
        html = client.get(f"/b/qbench/compare/{query}").content.decode()
        assert "Choose two different agents" in html


def test_the_head_to_head_of_an_unpublished_round_is_not_found(load, client):
    load(checks_bundle(), checks_bundle(round_key="r2", status="preview"))
    assert client.get("/b/qbench/compare/?a=agent-00&b=agent-01&round=r2").status_code == 404
    assert client.get("/b/nope/compare/").status_code == 404
