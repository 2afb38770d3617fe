"""The checks boards as a reader sees them: the median run in the full order of runs, and overall ties broken
on comparable token totals."""

from __future__ import annotations

import re

import pytest

from tests.builders.site import checks_median_ties_bundle, checks_skipped_tie_bundle

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


def test_a_skipped_task_does_not_win_an_overall_tie_on_tokens(load, client):
    load(checks_skipped_tie_bundle())
    html = client.get("/b/qbench/").content.decode()
    # Both overalls are (100 + 0) / 2 = 50. agent-00's tokens: 150k + 150k = 300k over both tasks. agent-01 has
    # no notes run, so its total is unknown and goes after 300k (its 200k on shop alone would have won).
    assert html.index('data-agent="agent-00"') < html.index('data-agent="agent-01"')
    rank = re.compile(r'<td class="num rank[^"]*"[^>]*>\s*(\d+)')
    assert rank.search(_row(html, "agent-00")).group(1) == "1"
    assert rank.search(_row(html, "agent-01")).group(1) == "2"
    assert "a task without a median run makes the total unknown" in html


def test_the_methodology_page_says_a_missing_tasks_tokens_are_unknown(load, client):
    load(checks_skipped_tie_bundle())
    html = client.get("/b/qbench/methodology/").content.decode()
    assert "a task without a median run has unknown tokens and time" in html
