"""The head-to-head page and the board's intervals, read from the rendered pages, with every figure worked out
by hand: the vote model's predicted win chance, the "ahead" / "cannot tell apart" sentence of the paired
difference, the "+x/−y" interval labels beside a score and a rating, and the Rank (UB) column and shading."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from leaderboard.models import Benchmark
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle

pytestmark = pytest.mark.django_db

FULL = {"api_checks_passed": 10, "api_checks_total": 10, "browser_steps_passed": 9, "browser_steps_total": 9}
NONE = {"api_checks_passed": 0, "api_checks_total": 10, "browser_steps_passed": 0, "browser_steps_total": 9}


def _bundle() -> dict:
    """Four agents, two to-spec tasks (notes, shop), three runs each. A run's score is half its API checks'
    share plus half its browser steps' share (seed 003): all passed 100, none 0.

    - Agent 00: every run 100.
    - Agent 01: trial 1 of each task 0, trials 2 and 3 100 (median, the lower middle of 0, 100, 100: 100).
    - Agent 02: every shop run 100, every notes run 0.
    - Agent 03: every run 0."""
    doc = checks_bundle(agents=4, votes=False)
    for run in doc["runs"]:
        agent, task, trial = run["agent"], run["task"], run["trial"]
        full = {
            "agent-00": True,
            "agent-01": trial != 1,
            "agent-02": task == "shop",
            "agent-03": False,
        }[agent]
        run.update(FULL if full else NONE)
    return doc


# The overall board, by hand. Overall = mean over the two tasks of each agent's median run:
#   00: (100 + 100) / 2 = 100;  01: (100 + 100) / 2 = 100;  02: (100 + 0) / 2 = 50;  03: 0.
# 00 and 01 tie at 100; the tie goes to fewer tokens (00's runs use 100k input tokens, 01's 200k): 00, 01, 02, 03.
# The 95% interval: 1,000 resamples draw the 2 tasks with replacement, and each drawn task's 3 runs again;
# the interval runs from the 2.5th to the 97.5th percentile of the resampled overall scores.
#   00: every resample 100: [100, 100], shown "±0.0".
#   01: a drawn task's median of 3 runs drawn from (0, 100, 100) is 0 when at least 2 of the 3 draws are the 0
#       run: 3 * (1/3)^2 * (2/3) + (1/3)^3 = 7/27. The overall is 0 when both drawn tasks are: (7/27)^2 = 6.7%
#       of resamples (above 2.5%), and 100 when neither is: (20/27)^2 = 54.9% (above 2.5%). So [0, 100] around
#       100: "+0.0/−100.0".
#   02: both draws shop (1/4) give 100, both notes (1/4) give 0: [0, 100] around 50: "±50.0".
#   03: every resample 0: [0, 0], "±0.0".
# Rank (UB) = 1 + the agents whose lower bound is above this agent's upper bound:
#   00, 01, 02 (upper 100): nobody's lower bound is above 100: 1.  03 (upper 0): 00's lower bound 100 is: 2.
# Rows sharing a Rank (UB) share a shade, in board order: 1, 1, 1 (even), then 2 (odd).
BOARD = [
    # agent, overall, interval label, interval title, Rank (UB), shade
    ("agent-00", "100.0", "±0.0", "95% interval 100.0 to 100.0", "1", "ub-group-even"),
    ("agent-01", "100.0", "+0.0/−100.0", "95% interval 0.0 to 100.0", "1", "ub-group-even"),
    ("agent-02", "50.0", "±50.0", "95% interval 0.0 to 100.0", "1", "ub-group-even"),
    ("agent-03", "0.0", "±0.0", "95% interval 0.0 to 0.0", "2", "ub-group-odd"),
]

# Vote ratings as the worker stores them (the board and the head-to-head read the benchmark's ratings
# snapshot, `BoardSnapshot` kind "ratings", and nothing else): chosen so the figures are round.
RATINGS = [
    {"agent": "agent-03", "rating": 1200.0, "ci_low": 1100.0, "ci_high": 1400.0, "votes": 12, "few_votes": True},
    {"agent": "agent-00", "rating": 1100.0, "ci_low": 1040.0, "ci_high": 1130.0, "votes": 40, "few_votes": False},
    {"agent": "agent-01", "rating": 1000.0, "ci_low": 950.0, "ci_high": 1050.0, "votes": 40, "few_votes": False},
]


@pytest.fixture
def bench(load):
    load(_bundle())
    benchmark = Benchmark.objects.get(slug="qbench")
    rows = [{**r, "wins": 0, "losses": 0, "ties": 0, "rank_ub": 1} for r in RATINGS]
    BoardSnapshot.objects.update_or_create(
        benchmark=benchmark, round=None, kind="ratings", defaults={"data": {"all": rows, "tasks": {}}, "stale": False}
    )
    return benchmark


def _text(html: str) -> str:
    """The page's text as a reader sees it: tags dropped, entities decoded, white space collapsed."""
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html)))


def _compare(client, a: str, b: str) -> str:
    response = client.get(f"/b/qbench/compare/?a={a}&b={b}&round=r1")
    assert response.status_code == 200
    return _text(response.content.decode())


def _rows(html: str) -> list[tuple[str, str, str]]:
    return re.findall(r'<tr data-agent="([^"]+)"(?: class="([^"]*)")?>(.*?)</tr>', html, re.S)


def test_the_head_to_head_predicts_the_win_chance_from_the_elo_gap(bench, client):
    # P(a beats b) = 1 / (1 + 10^((rating b - rating a) / 400)) on the Elo scale (400 points: ten times the odds).
    # 1100 against 1000: 1 / (1 + 10^(-100/400)) = 1 / (1 + 0.5623) = 0.6401, shown 64%.
    page = _compare(client, "agent-00", "agent-01")
    assert (
        "the Bradley-Terry ratings 1100 and 1000), the model predicts Agent 00 beats Agent 01 in 64% of votes" in page
    )
    # Swapped: 1 / (1 + 10^(100/400)) = 1 / (1 + 1.7783) = 0.3599, 36% (the two chances add up to 100%).
    page = _compare(client, "agent-01", "agent-00")
    assert "the model predicts Agent 01 beats Agent 00 in 36% of votes" in page
    # 1200 against 1000: 1 / (1 + 10^(-200/400)) = 1 / (1 + 0.3162) = 0.7597, 76%.
    page = _compare(client, "agent-03", "agent-01")
    assert "the model predicts Agent 03 beats Agent 01 in 76% of votes" in page
    # No rating for Agent 02 (no counted vote): no prediction at all, rather than a made-up one.
    assert "the model predicts" not in _compare(client, "agent-02", "agent-01")


def test_the_head_to_head_says_ahead_only_when_the_whole_interval_is_on_one_side_of_zero(bench, client):
    # 00 - 03: 100 on both tasks, so every resample gives 100: [+100, +100], wholly above 0.
    page = _compare(client, "agent-00", "agent-03")
    assert "Agent 00 − Agent 03 = +100.0 ±0.0 (95% interval +100.0 to +100.0) over the 2 tasks both ran." in page
    assert "Agent 00 is ahead of Agent 03 on the tasks both ran: the whole 95% interval is above 0." in page
    # Swapped, the same evidence read the other way: [-100, -100], wholly below 0.
    page = _compare(client, "agent-03", "agent-00")
    assert "Agent 03 − Agent 00 = −100.0 ±0.0 (95% interval −100.0 to −100.0)" in page
    assert "Agent 00 is ahead of Agent 03 on the tasks both ran: the whole 95% interval is below 0." in page
    # 00 - 02: shop 100 - 100 = 0, notes 100 - 0 = 100, mean +50. Both draws shop (1/4 of resamples) give 0,
    # both notes (1/4) give 100: [0, +100]. It touches 0, so the runs cannot tell them apart.
    page = _compare(client, "agent-00", "agent-02")
    assert "Agent 00 − Agent 02 = +50.0 ±50.0 (95% interval +0.0 to +100.0)" in page
    assert "The 95% interval covers 0: these runs cannot tell Agent 00 and Agent 02 apart." in page
    assert "is ahead of" not in page
    # Swapped: 02 - 00 = -50 in [-100, 0]: the bounds change places and sign, and still touch 0.
    page = _compare(client, "agent-02", "agent-00")
    assert "Agent 02 − Agent 00 = −50.0 ±50.0 (95% interval −100.0 to +0.0)" in page
    assert "The 95% interval covers 0: these runs cannot tell Agent 02 and Agent 00 apart." in page
    # 01 - 03: the point difference is +100 (medians 100 and 100 against 0 and 0), but a drawn task's median of
    # 01 is 0 in 7/27 of draws, both drawn tasks in (7/27)^2 = 6.7% of resamples (above 2.5%): [0, +100]. The
    # interval decides, not the point: they cannot be told apart.
    page = _compare(client, "agent-01", "agent-03")
    assert "Agent 01 − Agent 03 = +100.0 +0.0/−100.0 (95% interval +0.0 to +100.0)" in page
    assert "The 95% interval covers 0: these runs cannot tell Agent 01 and Agent 03 apart." in page


def test_the_board_shows_each_interval_label_rank_ub_and_its_shade(bench, client):
    html = client.get("/b/qbench/").content.decode()
    rows = _rows(html)
    assert [agent for agent, _, _ in rows] == [agent for agent, *_ in BOARD]
    for (agent, shade, row), (_, overall, label, title, ub, expected_shade) in zip(rows, BOARD, strict=True):
        cells = [_text(c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]
        # Rank, Rank (UB), Agent, Overall with its interval, ...
        assert cells[1] == ub, agent
        assert cells[3].startswith(f"{overall} {label}"), (agent, cells[3])
        assert f'<span class="ci" title="{title}">{label}</span>' in row, agent
        assert shade == expected_shade, agent
    # Sorted by another column the shades are dropped: they group rows only in the board's own order.
    assert "ub-group-" not in client.get("/b/qbench/?tab=overall&sort=agent").content.decode()


def test_the_board_shows_each_vote_rating_with_its_interval_as_plus_and_minus(bench, client):
    # From the stored ratings: 1100 in [1040, 1130]: +30 / -60; 1000 in [950, 1050]: +50 / -50 (a rating's
    # interval is always written as both sides); 1200 in [1100, 1400]: +200 / -100, on 12 votes (under 30:
    # "few votes"). Agent 02 has no rating: "–". The vote count stands beside each rating (#32.6).
    rows = {agent: _text(row) for agent, _, row in _rows(client.get("/b/qbench/").content.decode())}
    assert "1100 +30/−60 40 votes compare" in rows["agent-00"] and "few votes" not in rows["agent-00"]
    assert "1000 +50/−50 40 votes compare" in rows["agent-01"]
    assert "1200 +200/−100 12 votes few votes compare" in rows["agent-03"]
    assert "– compare" in rows["agent-02"]
