"""`recount` on a bundle gives exactly the boards and ratings the site computes and stores for the same data."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Benchmark
from recompute.boards import snapshot_recompute, snapshots_sweep
from scoring.boards import boards_as_shown
from scoring.recount import recount
from snapshots.models import BoardSnapshot
from tests.builders.site import (
    checks_median_ties_bundle,
    checks_skipped_tie_bundle,
    checks_timeouts_bundle,
    outcomes_timeout_bundle,
    scored_bundle,
    weekly_gaps_bundle,
)

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO = sorted(p.name for p in FIXTURES.glob("*.json"))


def _compute_all():
    snapshots_sweep(older_than_seconds=0)
    for snapshot_id in BoardSnapshot.objects.values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)


@pytest.mark.parametrize("name", DEMO)
def test_recount_of_each_demo_bundle_equals_the_sites_snapshots(name):
    doc = json.loads((FIXTURES / name).read_text())
    bundle_import(doc=doc)
    _compute_all()
    benchmark = Benchmark.objects.get(slug=doc["benchmark"]["slug"])
    counted = recount(doc)
    snapshots = {s.round.key: s for s in BoardSnapshot.objects.filter(benchmark=benchmark, kind="boards")}
    ratings_snap = BoardSnapshot.objects.filter(benchmark=benchmark, kind="ratings", round=None).first()
    assert {r["round"] for r in counted["rounds"]} == set(snapshots)
    for r in counted["rounds"]:
        assert not snapshots[r["round"]].stale
        # What the site shows: the stored boards joined with the stored ratings (votes order some boards).
        shown = boards_as_shown(
            benchmark.methodology, snapshots[r["round"]].data, ratings_snap.data if ratings_snap else None
        )
        assert shown == json.loads(json.dumps(r["boards"]))
    if "ratings" in counted:
        ratings = BoardSnapshot.objects.get(benchmark=benchmark, kind="ratings", round=None)
        assert ratings.data == json.loads(json.dumps(counted["ratings"]))


def test_recount_of_the_public_download_equals_the_published_boards():
    doc = json.loads((FIXTURES / "artb.json").read_text())
    bundle_import(doc=doc)
    _compute_all()
    benchmark = Benchmark.objects.get(slug="artb")
    public = json.loads(json.dumps(bundle_export(benchmark=benchmark)))
    counted = recount(public)
    published = {
        s.round.key: s.data for s in BoardSnapshot.objects.filter(benchmark=benchmark, round__status="published")
    }
    assert {r["round"]: r["boards"] for r in counted["rounds"]} == published
    assert "2026-r3" not in published  # the draft round is neither downloaded nor recounted


def test_recomputing_the_same_inputs_changes_nothing():
    bundle_import(doc=json.loads((FIXTURES / "weekly.json").read_text()))
    _compute_all()
    before = list(BoardSnapshot.objects.order_by("id").values_list("id", "version", "computed_at", "digest"))
    for snapshot_id in BoardSnapshot.objects.values_list("id", flat=True):
        assert snapshot_recompute(snapshot_id=snapshot_id) is False
    assert list(BoardSnapshot.objects.order_by("id").values_list("id", "version", "computed_at", "digest")) == before


def test_the_recount_command_prints_the_boards(tmp_path, capsys):
    call_command("recount", str(FIXTURES / "weekly.json"), "--round", "2026-w42")
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"] == "weekly-shootout" and out["methodology"] == "weekly"
    assert [r["round"] for r in out["rounds"]] == ["2026-w42"]
    ranks = [row["rank"] for row in out["rounds"][0]["boards"]["overall"]]
    assert ranks == sorted(ranks) and ranks[0] == 1


def test_the_recount_command_names_problems(tmp_path):
    from django.core.management.base import CommandError

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"benchmark": {"slug": "x"}}))
    with pytest.raises(CommandError, match="problem"):
        call_command("recount", str(bad))


@pytest.mark.parametrize("name", DEMO)
def test_the_public_download_of_each_demo_benchmark_recounts_to_the_boards_the_site_shows(name, client):
    doc = json.loads((FIXTURES / name).read_text())
    bundle_import(doc=doc)
    _compute_all()
    slug = doc["benchmark"]["slug"]
    response = client.get(f"/b/{slug}/download/bundle.json")
    assert response.status_code == 200
    counted = recount(json.loads(response.content))
    benchmark = Benchmark.objects.get(slug=slug)
    ratings = BoardSnapshot.objects.filter(benchmark=benchmark, kind="ratings").first()
    shown = {
        s.round.key: boards_as_shown(benchmark.methodology, s.data, ratings.data if ratings else None)
        for s in BoardSnapshot.objects.filter(benchmark=benchmark, kind="boards", round__status="published")
    }
    assert {r["round"]: r["boards"] for r in counted["rounds"]} == shown
    if ratings is not None and ratings.data and ratings.data.get("all"):
        assert counted["ratings"] == ratings.data
    # And the board page shows the recounted leader.
    last = counted["rounds"][-1]
    leader = last["boards"]["overall"][0]["name"]
    assert leader in client.get(f"/b/{slug}/r/{last['round']}/").content.decode()


@pytest.mark.parametrize(
    "build",
    [
        scored_bundle,
        checks_timeouts_bundle,
        outcomes_timeout_bundle,
        weekly_gaps_bundle,
        checks_median_ties_bundle,
        checks_skipped_tie_bundle,
    ],
)
def test_recount_of_the_site_test_bundles_equals_the_sites_snapshots(build):
    # The small hand-built bundles of the rule tests (a skipped task's pass@k, time-limit runs
    # in the trade-off axes, ...): `recount` on the file gives
    # the boards the site stored, field for field.
    doc = build()
    bundle_import(doc=doc)
    _compute_all()
    benchmark = Benchmark.objects.get(slug=doc["benchmark"]["slug"])
    ratings = BoardSnapshot.objects.filter(benchmark=benchmark, kind="ratings", round=None).first()
    for r in recount(doc)["rounds"]:
        snap = BoardSnapshot.objects.get(benchmark=benchmark, kind="boards", round__key=r["round"])
        shown = boards_as_shown(benchmark.methodology, snap.data, ratings.data if ratings else None)
        assert shown == json.loads(json.dumps(r["boards"]))
