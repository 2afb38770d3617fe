"""A flagged voter's votes leave the board a reader sees: the hourly check flags the voter, the published
ratings turn stale (the board says "Updating"), and once the worker has refitted them the board shows the
ratings of everyone else's votes, figures worked out by hand from the seed's rule."""

from __future__ import annotations

import csv
import io
import re

import pytest

from leaderboard import stale
from snapshots.models import BoardSnapshot
from snapshots.tasks import recompute_snapshot
from tests.builders.voting import build_world, cast, make_user
from voting.cells import votes_add
from voting.models import Vote, VoterFlag
from voting.tasks import voters_flag_all

pytestmark = pytest.mark.django_db

# The crowd: 12 imported votes in one task among three agents (X zephyrbot, Y marlinide, Z thistledev).
#   X-Y: X won 2, Y won 1;  Y-Z: Y won 3, Z won 2;  X-Z: X won 3, Z won 1.
CROWD = (
    [("zephyrbot", "marlinide", "a")] * 2
    + [("zephyrbot", "marlinide", "b")]
    + [("marlinide", "thistledev", "a")] * 3
    + [("marlinide", "thistledev", "b")] * 2
    + [("zephyrbot", "thistledev", "a")] * 3
    + [("zephyrbot", "thistledev", "b")]
)

# The ratings of the crowd's votes alone, by hand. The rule (seed 003, "Vote"): Bradley-Terry fitted to all
# the votes at once, on Elo's scale, 1000 the average agent, +400 ten times the odds. Every agent won and lost
# against every other, so the plain maximum-likelihood fit exists and is the site's (no prior is added). The
# fit's equations say: each agent's wins = its expected wins. They hold pair by pair, hence exactly, when
# every pair's odds equal its wins / losses:
#   X/Y = 2/1;  Y/Z = 3/2;  X/Z = 3/1, and 2 * 3/2 = 3, so these odds are consistent and they are the fit.
# On the Elo scale, from Z:
#   X: 400 * log10(3) = 190.8485;  Y: 400 * log10(1.5) = 70.4365;  Z: 0;
#   mean (190.8485 + 70.4365 + 0) / 3 = 87.0950, and the mean is put at 1000:
#   X 1000 + 190.8485 - 87.0950 = 1103.7535;  Y 1000 + 70.4365 - 87.0950 = 983.3415;  Z 1000 - 87.0950 = 912.9050.
# Shown rounded: X 1104, Y 983, Z 913. Votes: X 3 + 4 = 7, Y 3 + 5 = 8, Z 5 + 4 = 9.
EXPECTED = {"zephyrbot": 1103.7535, "marlinide": 983.3415, "thistledev": 912.9050}
EXPECTED_VOTES = {"zephyrbot": 7, "marlinide": 8, "thistledev": 9}

_RATING_CELL = re.compile(r'title="95% interval (\d+)–(\d+), (\d+) votes">\s*(\d+)')


def _board_ratings(client, slug: str) -> tuple[dict[str, tuple[int, int]], str]:
    """{agent: (rating, votes)} from the Vote rating column of the board page, and the page."""
    html = client.get(f"/b/{slug}/").content.decode()
    found = {}
    for agent, row in re.findall(r'<tr data-agent="([^"]+)"[^>]*>(.*?)</tr>', html, re.S):
        cell = _RATING_CELL.search(row)
        if cell:
            found[agent] = (int(cell.group(4)), int(cell.group(3)))
    return found, html


def _csv_ratings(client, world) -> dict[str, float]:
    text = client.get(f"/b/{world.benchmark.slug}/r/{world.round.key}/board.csv?tab=overall").content.decode()
    rows = [row for row in csv.DictReader(io.StringIO(text)) if row["rating"]]
    for row in rows:  # each rating beside its own 95% interval
        assert float(row["rating_ci_low"]) <= float(row["rating"]) <= float(row["rating_ci_high"])
        assert float(row["rating_ci_low"]) < float(row["rating_ci_high"])
    return {row["agent"]: float(row["rating"]) for row in rows}


def _run(world, slug):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[0].id)


def _work(ids, django_capture_on_commit_callbacks) -> None:
    """What the worker does with the queued snapshot ids, and what happens when its transaction commits."""
    for snapshot_id in ids:
        with django_capture_on_commit_callbacks(execute=True):
            recompute_snapshot.delay(snapshot_id)


def test_flagging_a_voter_marks_the_ratings_stale_and_the_board_then_shows_the_fit_without_their_votes(
    client, monkeypatch, django_capture_on_commit_callbacks
):
    world = build_world()
    votes_add(
        [
            Vote(
                task=world.tasks[0],
                agent_a=world.agents[a],
                agent_b=world.agents[b],
                winner=w,
                voter_label=f"crowd-{i}",
            )
            for i, (a, b, w) in enumerate(CROWD)
        ]
    )
    # A three-day-old account pushes Z over Y 30 times: counted (VOTE_FLAG_MIN_VOTES is 30, so the check
    # can judge it).
    pusher = make_user("pusher@example.com")
    for _ in range(30):
        cast(pusher, _run(world, "thistledev"), _run(world, "marlinide"), "a")
    stale.snapshots_mark_stale(round_ids=[world.round.id], benchmark_ids=[world.benchmark.id])
    _work(BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True), django_capture_on_commit_callbacks)

    before, html = _board_ratings(client, world.benchmark.slug)
    assert "Updating" not in html
    # With the push counted, Z (3 + 30 wins against Y) is rated above Y: the order is flipped.
    assert before["thistledev"][0] > before["marlinide"][0]
    assert before["thistledev"][1] == 9 + 30

    # The hourly check. Everyone else's fit rates Y (983.8) above Z (914.1), so none of the 30 votes agrees:
    # p = 0.5^30 (about 9.3e-10) < VOTE_FLAG_P_VALUE (0.001): flagged. The refit it queues is held back here
    # (the worker has not run yet) to see the page in between.
    queued: list[int] = []
    monkeypatch.setattr(stale, "enqueue_recompute", lambda ids, countdown=0: queued.extend(ids))
    with django_capture_on_commit_callbacks(execute=True):
        assert voters_flag_all.delay().get() == 1
    assert VoterFlag.objects.get().voter == pusher
    ratings = BoardSnapshot.objects.get(benchmark=world.benchmark, kind="ratings")
    assert ratings.stale is True and queued == [ratings.id]

    between, html = _board_ratings(client, world.benchmark.slug)
    assert "Updating: new results came in" in html  # stale ratings are marked, not shown as final
    assert between == before  # still the last published fit until the refit is done

    _work(queued, django_capture_on_commit_callbacks)
    after, html = _board_ratings(client, world.benchmark.slug)
    assert "Updating" not in html
    assert after == {agent: (round(EXPECTED[agent]), EXPECTED_VOTES[agent]) for agent in EXPECTED}
    assert after == {"zephyrbot": (1104, 7), "marlinide": (983, 8), "thistledev": (913, 9)}
    # The board's CSV carries the same ratings at full precision.
    assert _csv_ratings(client, world) == pytest.approx(EXPECTED, abs=0.001)
