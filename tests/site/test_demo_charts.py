"""Every chart of the demo site draws its data on an axis that holds it and stays in the number's own range: a
0-1 score is never drawn on a 1.00-2.00 axis, no dot or bar falls outside its plot, and a trade-offs page with
no cost or time says so instead of drawing empty charts and re-ranking on nothing."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

EPS = 0.5  # SVG coordinates are rounded to 0.1


@pytest.fixture
def demo(db):
    from django.core.management import call_command

    call_command("load_demo", "--no-users", stdout=io.StringIO())


def _number(label: str) -> float:
    text = label.replace("$", "").replace(",", "")
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def _check_interval_chart(where: str, chart: dict, rows: list[dict], scale: float | None) -> None:
    geometry = chart["chart"]
    ticks = [_number(t["label"]) for t in geometry["ticks"]]
    assert ticks == sorted(ticks) and len(ticks) >= 2, where
    assert ticks[0] <= min(r["low"] for r in rows) + 1e-9, f"{where}: the axis starts above the data"
    assert ticks[-1] >= max(r["high"] for r in rows) - 1e-9, f"{where}: the axis ends below the data"
    if scale is not None:
        assert 0 <= ticks[0] and ticks[-1] <= scale, f"{where}: axis {ticks[0]}-{ticks[-1]} outside 0-{scale}"
    lo, hi = geometry["plot_left"] - EPS, geometry["plot_right"] + EPS
    assert geometry["ticks"][0]["pos"] >= lo and geometry["ticks"][-1]["pos"] <= hi, where
    for bar in geometry["bars"]:
        assert lo <= bar["x_low"] <= bar["x"] <= bar["x_high"] <= hi, f"{where}: {bar['name']} is off the plot"


def _check_scatter(where: str, chart: dict, scale: float) -> None:
    yticks = [_number(t["label"]) for t in chart["yticks"]]
    assert 0 <= yticks[0] and yticks[-1] <= scale, f"{where}: score axis {yticks[0]}-{yticks[-1]} outside 0-{scale}"
    for dot in chart["dots"]:
        assert chart["plot_left"] - EPS <= dot["x"] <= chart["plot_right"] + EPS, f"{where}: {dot['name']}"
        assert chart["plot_top"] - EPS <= dot["y"] <= chart["plot_bottom"] + EPS, f"{where}: {dot['name']}"


def test_every_demo_chart_holds_its_data_within_the_numbers_range(demo, client):
    from leaderboard.models import Benchmark, Entry, RoundStatus
    from pages.agents import agent_page

    seen = 0
    for bench in Benchmark.objects.order_by("slug"):
        scale = float(bench.rules.scale)
        for rnd in bench.rounds.filter(status=RoundStatus.PUBLISHED):
            for tab, _ in bench.rules.tabs:
                url = reverse("board_round", args=[bench.slug, rnd.key]) + f"?tab={tab}"
                response = client.get(url)
                assert response.status_code == 200, url
                for chart in response.context.get("charts") or []:
                    score = chart["id"] == "score-chart"
                    _check_interval_chart(f"{url} {chart['id']}", chart, chart["rows"], scale if score else None)
                    seen += 1
            response = client.get(reverse("tradeoffs", args=[bench.slug]) + f"?round={rnd.key}")
            for key in ("cost_chart", "time_chart"):
                if response.context[key]:
                    _check_scatter(f"{bench.slug} {rnd.key} {key}", response.context[key], scale)
                    seen += 1
    published = Entry.objects.filter(round__status=RoundStatus.PUBLISHED)
    for slug in published.values_list("agent__slug", flat=True).distinct():
        for group in agent_page(slug=slug)["benches"]:  # the agent page's context
            line = group["chart"]
            if line:
                for dot in line["dots"]:
                    assert line["top"] - EPS <= dot["y"] <= line["base"] + EPS, f"{slug}: {dot['round']} off the plot"
                seen += 1
    assert seen >= 20  # boards, ratings, trade-offs and agents' lines were all looked at


def test_the_inspect_quiz_interval_axis_stays_within_0_to_1(demo, client):
    # Every agent at 1.0 with no spread: the axis ends at 1.00, it does not run 1.00-2.00.
    response = client.get(reverse("board", args=["inspect-quiz"]))
    (chart,) = [c for c in response.context["charts"] if c["id"] == "score-chart"]
    labels = [t["label"] for t in chart["chart"]["ticks"]]
    assert labels[-1] == "1.00" and float(labels[0]) < 1.0
    assert "2.00" not in response.content.decode()


def test_a_tradeoffs_page_without_cost_or_time_says_so_and_does_not_rerank(demo, client):
    html = client.get(reverse("tradeoffs", args=["agentbench-live"])).content.decode()
    assert "No agent in this round reports cost or time" in html
    assert "Re-rank with your own weights" not in html and "0.000" not in html
    assert "<svg" not in html.split('id="main"')[1] and "No agent on this board reports cost" not in html


def test_a_tradeoffs_page_with_cost_keeps_its_charts_and_rerank(demo, client):
    html = client.get(reverse("tradeoffs", args=["weekly-shootout"])).content.decode()
    assert "Re-rank with your own weights" in html and "No agent in this round reports cost or time" not in html
    assert 'class="chart scatter chart-wide"' in html and 'class="chart scatter chart-narrow"' in html


def test_the_head_to_head_column_is_not_sortable(demo, client):
    html = client.get(reverse("board", args=["artb"])).content.decode()
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert "Head-to-head" in head and "sort=compare" not in head
    assert "sort=agent" in head  # the other columns still sort
    # An address asking for it keeps the board's own order.
    sorted_html = client.get(reverse("board", args=["artb"]) + "?sort=compare&dir=asc").content.decode()
    assert 'class="caption-sort"' not in sorted_html
