"""How many votes hold the top place (issue #30 §4), where readers see the ratings: under the board for the
benchmark's ratings, and on the task page for the task's."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from leaderboard.models import Agent, Benchmark
from scoring.bradley_terry import ratings_from_cells
from scoring.vote_margins import with_vote_margins
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle

pytestmark = pytest.mark.django_db

# agent-00 beat agent-01 700 times on "shop" and lost 400 times. With two agents the fit puts them level
# exactly when their wins are equal (the virtual ties are the same for both), and removing a win of
# agent-01 only widens the lead: the top place rests on 700 - 400 = 300 of the 1,100 votes.
CELLS = [("shop", "agent-00", "agent-01", "a", 700), ("shop", "agent-00", "agent-01", "b", 400)]


@pytest.fixture
def bench(load):
    load(checks_bundle(agents=2, votes=False))
    benchmark = Benchmark.objects.get(slug="qbench")
    BoardSnapshot.objects.update_or_create(
        benchmark=benchmark,
        round=None,
        kind="ratings",
        defaults={"data": with_vote_margins(CELLS, ratings_from_cells(CELLS)), "stale": False},
    )
    return benchmark


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html)))


def test_the_board_says_how_many_votes_hold_its_top_place(bench, client):
    first, second = (Agent.objects.get(slug=s).name for s in ("agent-00", "agent-01"))
    text = _text(client.get("/b/qbench/").content.decode())
    assert f"{first} stays ahead of {second} unless at most 300 of 1,100 votes are removed." in text
    assert "an upper bound" in text


def test_the_task_page_says_it_for_the_tasks_ratings(bench, client):
    text = _text(client.get("/b/qbench/tasks/shop/").content.decode())
    assert "The top place rests on at most 300 of 1,100 votes" in text
