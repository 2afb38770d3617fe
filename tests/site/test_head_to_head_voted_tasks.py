"""The head-to-head on a board with a task ranked by blind votes (seed 003: invent and startup tasks: "Their
checks only admit the run ...; people rank the apps in blind votes"), read from the rendered page: the task
shows the two vote ratings and who is ahead by them, never the checks' "100.0 / 100.0 same"; the count of
tasks in the paired difference is the count of rows listed as in it; the direct vote record stands beside the
vote model's prediction, with the words that say why the two can differ."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from leaderboard.models import Benchmark
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle, rating_row, with_invent_task

pytestmark = pytest.mark.django_db


def _bundle() -> dict:
    """Three agents (00, 01, 02) on the builder's two to-spec tasks (shop, notes: three counted runs each),
    plus an invent task, "messenger", one run each: 00's and 01's apps pass every check (admitted), 02's never
    starts (not admitted). Ten votes between 00 and 01 on the messenger: 01 wins 6, 00 wins 3, 1 tie."""
    doc = with_invent_task(checks_bundle(agents=3, votes=False), admitted=("agent-00", "agent-01"))
    winners = ["b"] * 6 + ["a"] * 3 + ["tie"]
    doc["votes"] = [
        {
            "task": "messenger",
            "a": "agent-00",
            "b": "agent-01",
            "winner": w,
            "voter": f"v{k}",
            "cast_at": "2026-01-12T10:00:00Z",
        }
        for k, w in enumerate(winners)
    ]
    return doc


@pytest.fixture
def bench(load):
    load(_bundle())
    benchmark = Benchmark.objects.get(slug="qbench")
    # The ratings as the worker stores them, chosen by hand (the page reads this snapshot and nothing else):
    # over every task 00 1100 and 01 1000; in the messenger task 00 1109, 01 1087 (as the demo had them),
    # 02 1000 (rated, but its app was not admitted).
    ratings = {
        "all": [
            rating_row("agent-00", 1100.0, 1080.0, 1120.0, 410),
            rating_row("agent-01", 1000.0, 980.0, 1020.0, 380),
        ],
        "tasks": {
            "messenger": [
                rating_row("agent-00", 1109.0, 1089.0, 1129.0, 10),
                rating_row("agent-01", 1087.0, 1067.0, 1107.0, 10),
                rating_row("agent-02", 1000.0, 980.0, 1020.0, 4),
            ]
        },
    }
    BoardSnapshot.objects.update_or_create(
        benchmark=benchmark, round=None, kind="ratings", defaults={"data": ratings, "stale": False}
    )
    return benchmark


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _page(client, a: str = "agent-00", b: str = "agent-01") -> str:
    response = client.get(f"/b/qbench/compare/?a={a}&b={b}&round=r1")
    assert response.status_code == 200
    return response.content.decode()


def _task_row(html: str, key: str) -> str:
    found = re.search(rf'<tr data-task="{key}">(.*?)</tr>', html, re.S)
    assert found, f"no row for {key}"
    return _text(found.group(1))


def test_it_shows_a_vote_ranked_task_by_its_ratings_and_who_is_ahead(bench, client):
    html = _page(client)
    row = _task_row(html, "messenger")
    # Both apps were admitted (checks 100 and 100): the board orders the task by its vote rating, 1109 against
    # 1087, so Agent 00 is ahead there; "100.0" and "same" are the checks' admission, not the board's order.
    assert "1109 vote rating" in row and "1087 vote rating" in row
    assert row.endswith("Agent 00 by vote rating"), row
    assert "100.0" not in row and "same" not in row
    # Swapped, the same board read the other way: Agent 00 is still the one ahead.
    assert _task_row(_page(client, "agent-01", "agent-00"), "messenger").endswith("Agent 00 by vote rating")
    # Against 02, whose app never started: not admitted, ranked after every admitted app, whatever its rating.
    row = _task_row(_page(client, "agent-02", "agent-01"), "messenger")
    assert "not admitted" in row and "1000" not in row and row.endswith("Agent 01 by vote rating"), row


def test_the_difference_counts_the_tasks_listed_in_it(bench, client):
    html = _page(client)
    text = _text(html)
    # The paired difference is over the to-spec tasks both agents have counted runs on: shop and notes, 2. The
    # messenger (invent) is not in the overall score, so not in the difference either.
    assert "over the 2 tasks both ran." in text
    inside, outside = re.findall(r'<tbody class="compare-group">(.*?)</tbody>', html, re.S)
    assert "In the difference: the 2 tasks both ran" in _text(inside)
    assert re.findall(r'<tr data-task="([^"]+)">', inside) == ["notes", "shop"]
    assert re.findall(r'<tr data-task="([^"]+)">', outside) == ["messenger"]
    assert "ranked by blind votes, so not in the overall score nor in this difference" in _text(outside)


def test_it_puts_the_direct_vote_record_beside_the_models_prediction_and_says_why_they_differ(bench, client):
    text = _text(_page(client))
    # Direct: 10 votes, 00 won 3, 01 won 6, 1 tie. 00's share, a tie counting half: (3 + 0.5) / 10 = 35%.
    assert "In 10 counted votes between them: Agent 00 won 3, Agent 01 won 6, 1 tie." in text
    assert "Agent 00 took 35% of them (a tie counting half; votes on every task)." in text
    # The model, from the ratings over every task, 1100 against 1000: 1 / (1 + 10^(-100/400)) = 0.6401, 64%.
    assert "the model predicts Agent 00 beats Agent 01 in 64% of votes." in text
    # Why 35% and 64% point different ways: the fit uses every vote of every agent (00's 410, 01's 380).
    assert (
        "The two can differ: the ratings are fitted to every counted vote of every agent (Agent 00's 410 and "
        "Agent 01's 380, against anyone), not only to the 10 between these two" in text
    )
