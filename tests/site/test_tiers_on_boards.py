"""Tiers on the boards, as a reader sees them: a Tier column, the default view (team, verified, self-reported)
that leaves flagged rows one click away, ranks among the rows shown, the rule on the methodology page and the
tier per round on an agent's page."""

from __future__ import annotations

import re

import pytest

from leaderboard.models import Entry
from leaderboard.stale import snapshots_mark_stale
from tests.builders.site import scored_bundle
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db


def _found(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr data-agent="([^"]+)"[^>]*>(.*?)</tr>', html, re.S)


def _rank_cell(body: str) -> list[str]:
    """The words of a row's rank cell: its rank (a link to the Readings page where a reading moves it), then any
    range across the readings."""
    cell = re.search(r'data-label="Rank"[^>]*>(.*?)</td>', body, re.S).group(1)
    return re.sub(r"<[^>]+>", " ", cell).split()


def _rows(html: str) -> list[tuple[str, str, str]]:
    """(rank, agent slug, tier) of each board row, top to bottom."""
    return [
        (
            _rank_cell(body)[0],
            agent,
            (re.search(r'data-label="Tier"[^>]*>\s*<(?:a|span)[^>]*>([^<]+)<', body) or [None, ""])[1],
        )
        for agent, body in _found(html)
    ]


def _ranges(html: str) -> dict[str, str]:
    """Each row's range across the readings ("1–2"), where one is shown."""
    return {agent: " ".join(words[1:]) for agent, body in _found(html) if len(words := _rank_cell(body)) > 1}


def _tiers(load, **tiers: str) -> None:
    load(scored_bundle())
    for agent, tier in tiers.items():
        Entry.objects.filter(agent__slug=agent).update(tier=tier)
    snapshots_mark_stale(round_ids=list(Entry.objects.values_list("round_id", flat=True).distinct()))
    compute_all()


def test_the_default_view_hides_flagged_rows_and_ranks_among_the_rows_shown(load, client):
    # Full and Under share first at 0.9 (each 0.9 on all three tasks), Solo third at (1 + 0 + 0) / 3 = 0.333.
    _tiers(load, full="flagged", under="self-reported")
    rows = _rows(client.get("/b/sbench/").content.decode())
    # Full (flagged) is hidden by default: Under is first, Solo second (not third), each with its tier.
    assert rows == [("1", "under", "self-reported"), ("2", "solo", "team")]
    # Under overall-mean=tasks-run Solo scores 1.0 / 1 = 1.0 over the one task it ran, ahead of Under's 0.9:
    # among the rows shown Solo is then first and Under second, so each rank shows the range 1–2.
    assert _ranges(client.get("/b/sbench/").content.decode()) == {
        "under": "1–2 across readings",
        "solo": "1–2 across readings",
    }


def test_flagged_rows_are_one_click_away_with_their_tier(load, client):
    _tiers(load, full="flagged", under="self-reported")
    html = client.get("/b/sbench/").content.decode()
    assert 'href="?tab=overall&amp;tier=flagged"' in html
    assert _rows(client.get("/b/sbench/?tier=flagged").content.decode()) == [("1", "full", "flagged")]
    # Every tier: the board's own ranks, Full and Under tied first.
    assert _rows(client.get("/b/sbench/?tier=all").content.decode()) == [
        ("1", "full", "flagged"),
        ("1", "under", "self-reported"),
        ("3", "solo", "team"),
    ]
    assert _rows(client.get("/b/sbench/?tier=team").content.decode()) == [("1", "solo", "team")]
    # Among every row, under overall-mean=tasks-run Solo (1.0) is first and Full and Under (0.9) tie second:
    # Full 1–2, Under 1–2, Solo 1–3. A view of one row has one rank under every reading, so no range.
    assert _ranges(client.get("/b/sbench/?tier=all").content.decode()) == {
        "full": "1–2 across readings",
        "under": "1–2 across readings",
        "solo": "1–3 across readings",
    }
    assert _ranges(client.get("/b/sbench/?tier=team").content.decode()) == {}


def test_a_board_of_team_results_only_shows_no_tier_column_or_filter(load, client):
    load(scored_bundle())
    html = client.get("/b/sbench/").content.decode()
    assert 'data-label="Tier"' not in html and "tier-filter" not in html
    assert [r[1] for r in _rows(html)][-1] == "solo"


def test_the_methodology_page_states_the_tier_rule(load, client):
    _tiers(load, under="self-reported")
    html = client.get("/b/sbench/methodology/").content.decode()
    assert 'id="tiers"' in html
    assert (
        "The board shows team, verified and self-reported results by default; flagged ones are one click away" in html
    )


def test_an_agents_page_shows_its_tier_per_round(load, client):
    _tiers(load, full="flagged")
    html = client.get("/agents/full/").content.decode()
    table = html[html.index("<tbody>") :]
    row = table[table.index(">Round r1<") : table.index("</tr>")]
    assert '<span class="pill bad">flagged</span>' in row
