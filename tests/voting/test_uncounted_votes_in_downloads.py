"""Votes that do not count (a flagged voter's, one over the daily cap, a new account's) are in the downloads
marked `"counts": false`, and `recount` of the download leaves them out: its ratings are the ones the board
shows, figures worked out by hand from the counted votes alone."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from leaderboard.stale import snapshots_mark_stale
from recompute.boards import snapshot_recompute
from snapshots.models import BoardSnapshot
from tests.builders.voting import build_world, cast, make_user
from voting.models import Vote
from voting.services.flagging import voters_flag

pytestmark = pytest.mark.django_db

# The counted votes: 6, by one three-day-old account: X (zephyrbot) over Y (marlinide) 3 times, Y over X once,
# and 2 ties. By hand (seed 003: Bradley-Terry on the Elo scale, 1000 the average, +400 ten times the odds): a
# tie is half a win for each side, and each side won and lost, so the plain maximum-likelihood fit exists and
# is the site's. With two agents the fit is the odds
#   X/Y = (3 + 2 * 0.5) / (1 + 2 * 0.5) = 4 / 2 = 2,
#   gap = 400 * log10(2) = 120.412; centred on 1000:
#   X = 1000 + 120.412 / 2 = 1060.206, Y = 1000 - 60.206 = 939.794 (shown 1060 and 940).
# Thistle Dev (Z) has only uncounted votes: no rating at all.
EXPECTED = {"zephyrbot": 1060.206, "marlinide": 939.794}


def _run(world, slug):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[0].id)


def _votes(world, settings) -> dict[str, int]:
    """Counted votes, and every kind of vote that does not count; {held reason: how many}."""
    x, y, z = (_run(world, s) for s in ("zephyrbot", "marlinide", "thistledev"))
    # A voter who always picks the crowd's loser, flagged by the agreement check: their 30 counted votes stop
    # counting (everyone else's fit, the 6 votes below, rates X above Y: 0 of 30 agree, p = 0.5^30).
    pusher = make_user("pusher@example.com")
    for _ in range(30):
        cast(pusher, y, x, "a")
    steady = make_user("steady@example.com")
    for winner in ("a", "a", "a", "b", "tie", "tie"):
        cast(steady, x, y, winner)
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert flag.voter == pusher
    cast(pusher, y, x, "a")  # cast while flagged: held from the start
    settings.VOTE_DAILY_CAP = 6
    cast(steady, y, x, "a")  # steady's seventh vote today: over the cap
    newcomer = make_user("newcomer@example.com", age_hours=1)
    for a, b in ((y, x), (y, x), (z, x)):
        cast(newcomer, a, b, "a")  # an hour-old account: counts only a day after sign-up
    snapshots_mark_stale(round_ids=[world.round.id], benchmark_ids=[world.benchmark.id])
    for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)
    held: dict[str, int] = {}
    for reason in Vote.objects.values_list("held", flat=True):
        held[reason] = held.get(reason, 0) + 1
    return held


def _download(client, world) -> list[dict]:
    response = client.get(reverse("votes_file", args=[world.benchmark.slug]))
    return [json.loads(line) for line in gzip.decompress(b"".join(response.streaming_content)).splitlines()]


def _recount(tmp_path, bundle: dict, votes_file: bytes | None = None) -> dict:
    bundle_path, out = tmp_path / "bundle.json", tmp_path / "recount.json"
    bundle_path.write_text(json.dumps(bundle))
    args = [str(bundle_path), "-o", str(out)]
    if votes_file is not None:
        (tmp_path / "votes.jsonl.gz").write_bytes(votes_file)
        args += ["--votes", str(tmp_path / "votes.jsonl.gz")]
    call_command("recount", *args)
    return json.loads(out.read_text())


def _shown(client, world) -> dict[str, int]:
    """{agent: rating} from the Vote rating column of the board page."""
    html = client.get(f"/b/{world.benchmark.slug}/").content.decode()
    shown = {}
    for agent, row in re.findall(r'<tr data-agent="([^"]+)"[^>]*>(.*?)</tr>', html, re.S):
        cell = re.search(r'title="95% interval \d+–\d+, \d+ votes">\s*(\d+)', row)
        if cell:
            shown[agent] = int(cell.group(1))
    return shown


def test_the_votes_file_marks_every_vote_that_does_not_count(client, world_and_votes):
    world, held = world_and_votes
    # 30 + 1 flagged, 1 over the cap, 3 from the new account; 6 counted: 41 votes, each in the file.
    assert held == {"flagged": 31, "daily-cap": 1, "new-account": 3, "": 6}
    lines = _download(client, world)
    assert len(lines) == 41
    counted = [v for v in lines if v["counts"] is True]
    assert len(counted) == 6 and sum(v["counts"] is False for v in lines) == 35
    # The counted ones are exactly the steady voter's first six: one pseudonym, no one else's.
    assert len({v["voter"] for v in counted}) == 1
    assert sorted((v["a"], v["b"], v["winner"]) for v in counted) == [
        ("zephyrbot", "marlinide", "a"),
        ("zephyrbot", "marlinide", "a"),
        ("zephyrbot", "marlinide", "a"),
        ("zephyrbot", "marlinide", "b"),
        ("zephyrbot", "marlinide", "tie"),
        ("zephyrbot", "marlinide", "tie"),
    ]
    assert all(v["counts"] is False for v in lines if "thistledev" in (v["a"], v["b"]))


def test_recount_of_the_download_leaves_the_uncounted_votes_out_as_the_board_does(
    client, world_and_votes, settings, tmp_path
):
    world, _ = world_and_votes
    assert _shown(client, world) == {"zephyrbot": 1060, "marlinide": 940}
    site = BoardSnapshot.objects.get(benchmark=world.benchmark, kind="ratings").data

    # The bundle with its votes inline (each with its "counts").
    bundle = client.get(reverse("bundle_json", args=[world.benchmark.slug])).json()
    assert len(bundle["votes"]) == 41 and sum(v["counts"] for v in bundle["votes"]) == 6
    inline = _recount(tmp_path, bundle)["ratings"]
    assert {r["agent"]: r["rating"] for r in inline["all"]} == pytest.approx(EXPECTED, abs=0.001)
    assert [(r["agent"], r["votes"]) for r in inline["all"]] == [("zephyrbot", 6), ("marlinide", 6)]
    assert inline == site

    # The bundle naming the votes file instead, recounted with that file.
    settings.VOTES_INLINE_LIMIT = 0
    bundle = client.get(reverse("bundle_json", args=[world.benchmark.slug])).json()
    assert bundle["votes"] == [] and bundle["votes_file"]["votes"] == 41
    response = client.get(reverse("votes_file", args=[world.benchmark.slug]))
    from_file = _recount(tmp_path, bundle, b"".join(response.streaming_content))["ratings"]
    assert from_file == site


@pytest.fixture
def world_and_votes(settings):
    world = build_world()
    return world, _votes(world, settings)
