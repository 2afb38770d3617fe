"""The checks boards as a reader sees them: the median run in the full order of runs, and overall ties broken
on comparable token totals."""

from __future__ import annotations

import pytest

from tests.builders.site import checks_median_ties_bundle

pytestmark = pytest.mark.django_db


def _row(html: str, agent: str) -> str:
    start = html.index(f'data-agent="{agent}"')
    return html[start : html.index("</tr>", start)]


def test_the_task_board_links_the_middle_run_of_equal_scores_not_the_cheapest(load, client):
    load(checks_median_ties_bundle())
    html = client.get("/b/qbench/?tab=tasks&task=shop").content.decode()
    # agent-00's three shop runs score the same; by tokens, worst first: trial 2 (325k), trial 3 (235k),
    # trial 1 (115k). The median, index (3 - 1) // 2 = 1, is trial 3, not the cheapest trial 1.
    row = _row(html, "agent-00")
    assert "agent-00-shop-t3/" in row and "agent-00-shop-t1/" not in row
    assert ">235k<" in row  # its tokens, 235,000, are the ones shown


def test_the_methodology_page_reads_the_median_in_the_full_order(load, client):
    load(checks_median_ties_bundle())
    html = client.get("/b/qbench/methodology/").content.decode()
    assert "its median run there, not its best" in html
    assert "not the luckiest" in html
