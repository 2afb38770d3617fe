"""Every vote of a bundle is kept, exactly once, however anonymous or simultaneous it is (a vote is identified
by its `id`, or by its position in an id-less document, never by its content)."""

from datetime import UTC, datetime

import pytest

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Benchmark
from scoring.bundle import BundleError
from scoring.bundle_checks import validate_bundle
from tests.builders.bundles import make_bundle
from voting.cells import votes_add
from voting.models import Vote

pytestmark = pytest.mark.django_db
ANON = {"task": "t1", "a": "alpha", "b": "beta", "winner": "a"}  # no voter, no time, as in public vote sets


def test_it_keeps_two_identical_anonymous_votes():
    bundle_import(doc=make_bundle(votes=[dict(ANON), dict(ANON)]))
    assert Vote.objects.count() == 2


def test_it_adds_nothing_when_an_id_less_bundle_is_imported_twice():
    doc = make_bundle(votes=[dict(ANON), dict(ANON), {**ANON, "winner": "tie"}])
    bundle_import(doc=doc)
    report = bundle_import(doc=doc)
    assert Vote.objects.count() == 3
    assert report.created.get("votes", 0) == 0


def test_it_keeps_every_vote_of_one_second_through_import_and_export():
    # 400 voters x 16 votes, all with one timestamp: the merge by (voter, time, pair, winner) lost some of
    # these; all 6,400 must come back.
    agents = [{"slug": f"ag{i}", "name": f"Agent {i}"} for i in range(8)]
    votes = []
    for voter in range(400):
        for j in range(16):
            a, b = j % 8, (j + 1 + voter) % 8
            if a == b:
                b = (b + 1) % 8
            votes.append(
                {
                    "task": "t1",
                    "a": f"ag{a}",
                    "b": f"ag{b}",
                    "winner": "ab"[j % 2],
                    "voter": f"voter-{voter}",
                    "cast_at": "2026-09-02T10:00:00Z",
                }
            )
    entries = [{"agent": a["slug"]} for a in agents]
    doc = make_bundle(
        agents=agents,
        runs=[],
        votes=votes,
        # The round holds t1 though nobody ran it: votes on a task no published round holds are not public.
        rounds=[
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-09-01T12:00:00Z",
                "entries": entries,
                "tasks": ["t1"],
            }
        ],
    )
    bundle_import(doc=doc)
    assert Vote.objects.count() == 6400
    exported = bundle_export(benchmark=Benchmark.objects.get(slug="tb"))
    assert len(exported["votes"]) == 6400
    assert len({v["id"] for v in exported["votes"]}) == 6400
    # The export re-imported is a no-op: its ids are the stored ones.
    bundle_import(doc=exported)
    assert Vote.objects.count() == 6400


def test_it_keeps_a_bundles_vote_ids_and_writes_them_back():
    doc = make_bundle(votes=[{**ANON, "id": "arena-17"}, {**ANON, "id": 18, "winner": "b"}])
    bundle_import(doc=doc)
    exported = bundle_export(benchmark=Benchmark.objects.get(slug="tb"))
    assert sorted(v["id"] for v in exported["votes"]) == ["18", "arena-17"]


def test_a_site_vote_exports_with_an_id_that_reimports_onto_itself():
    bundle_import(doc=make_bundle(votes=[]))
    bench = Benchmark.objects.get(slug="tb")
    task = bench.tasks.get(key="t1")
    from leaderboard.models import Agent

    (site_vote,) = votes_add(
        [
            Vote(
                task=task,
                agent_a=Agent.objects.get(slug="alpha"),
                agent_b=Agent.objects.get(slug="beta"),
                winner="b",
                cast_at=datetime(2026, 9, 3, tzinfo=UTC),
            )
        ]
    )
    exported = bundle_export(benchmark=bench)
    assert [v["id"] for v in exported["votes"]] == [site_vote.key]
    bundle_import(doc=exported)
    assert Vote.objects.count() == 1


def test_it_updates_counts_by_id_instead_of_adding_a_copy():
    doc = make_bundle(votes=[{**ANON, "id": "v1", "counts": True}])
    bundle_import(doc=doc)
    doc["votes"][0]["counts"] = False
    bundle_import(doc=doc)
    assert list(Vote.objects.values_list("key", "counts")) == [("v1", False)]


def test_it_refuses_an_id_already_stored_for_another_vote_and_writes_nothing():
    bundle_import(doc=make_bundle(votes=[{**ANON, "id": "v1"}]))
    doc = make_bundle(votes=[{**ANON, "id": "v1", "winner": "b"}, {**ANON, "id": "v2"}])
    with pytest.raises(BundleError) as exc:
        bundle_import(doc=doc)
    assert exc.value.problems == ["votes[0].id: 'v1' is already stored as another vote (t1: alpha vs beta, winner a)"]
    assert list(Vote.objects.values_list("key", flat=True)) == ["v1"]


def test_a_duplicate_id_in_one_bundle_is_reported_with_its_path():
    doc = make_bundle(votes=[{**ANON, "id": "v1"}, {**ANON, "id": "v1"}])
    assert "votes[1].id: duplicate vote id 'v1' (votes[0])" in validate_bundle(doc)
