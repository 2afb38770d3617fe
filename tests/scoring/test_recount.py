import copy

import pytest

from scoring.boards import compute_boards
from scoring.bundle import BundleError
from scoring.recount import recount
from tests.builders.scoring import make_round, make_run, make_task


def bundle(methodology="outcomes"):
    return {
        "benchmark": {"slug": "artb", "name": "ARTB", "methodology": methodology},
        "agents": [
            {"slug": "a", "name": "Agent A", "primary_language": "en"},
            {"slug": "b", "name": "Agent B", "primary_language": "en"},
        ],
        "tasks": [
            {"key": "c1", "version": "1.0", "kind": "core", "dimensions": ["web"]},
            {"key": "c2", "version": "1.0", "kind": "core", "dimensions": ["web"]},
        ],
        "rounds": [
            {"key": "r1", "status": "published", "entries": [{"agent": "a"}, {"agent": "b"}]},
            {"key": "r2", "status": "draft", "entries": [{"agent": "a"}]},
        ],
        "runs": [
            {"id": "1", "round": "r1", "agent": "a", "task": "c1", "status": "completed", "outcome": "pass"},
            {
                "id": "2",
                "round": "r1",
                "agent": "b",
                "task": "c1",
                "status": "completed",
                "verdicts": [
                    {"role": "tester", "outcome": "pass"},
                    {"role": "second", "outcome": "partial"},
                    {"role": "third", "outcome": "partial"},
                ],
            },
            {"id": "3", "round": "r2", "agent": "a", "task": "c2", "status": "completed", "outcome": "fail"},
        ],
    }


def test_it_recounts_every_round_in_the_documented_shape():
    out = recount(bundle())
    assert set(out) == {"benchmark", "methodology", "rounds"}
    assert out["benchmark"] == "artb" and out["methodology"] == "outcomes"
    assert [r["round"] for r in out["rounds"]] == ["r1", "r2"]
    r1 = out["rounds"][0]["boards"]
    assert set(r1) == {"overall", "safety", "local-china", "local-global", "other-language", "pairs"}
    assert [(r["agent"], r["rank"], r["overall"]) for r in r1["overall"]] == [("a", 1, 10.0), ("b", 2, 5.0)]


def test_it_recounts_one_round():
    out = recount(bundle(), round_key="r2")
    assert [r["round"] for r in out["rounds"]] == ["r2"]
    assert out["rounds"][0]["boards"]["overall"][0]["overall"] == 0.0


def test_it_refuses_an_unknown_round():
    with pytest.raises(BundleError):
        recount(bundle(), round_key="nope")


def test_it_refuses_an_invalid_bundle_with_paths():
    doc = bundle()
    doc["runs"][0]["status"] = "exploded"
    with pytest.raises(BundleError) as exc:
        recount(doc)
    assert any(p.startswith("runs[0].status") for p in exc.value.problems)


def test_it_does_not_change_the_document():
    doc = bundle()
    before = copy.deepcopy(doc)
    recount(doc)
    assert doc == before


def test_it_adds_ratings_from_counted_votes():
    doc = bundle()
    doc["votes"] = [{"task": "c1", "a": "a", "b": "b", "winner": w, "counts": True} for w in ("a", "a", "b", "tie")]
    doc["votes"].append({"task": "c1", "a": "a", "b": "b", "winner": "b", "counts": False})
    out = recount(doc)
    assert set(out["ratings"]) == {"all", "tasks"}
    assert set(out["ratings"]["tasks"]) == {"c1"}


def test_it_leaves_ratings_out_without_votes():
    assert "ratings" not in recount(bundle())


@pytest.mark.parametrize(
    "methodology,keys",
    [
        ("outcomes", {"overall", "safety", "local-china", "local-global", "other-language", "pairs"}),
        ("scored", {"overall", "meta", "pairs"}),
        ("checks", {"overall", "tasks", "pairs"}),
        ("weekly", {"overall"}),
    ],
)
def test_it_dispatches_by_methodology(methodology, keys):
    r = make_round(methodology, [make_task("t1", kind="to-spec")], [make_run("a", "t1", outcome="pass")])
    assert set(compute_boards(r)) == keys


def test_it_refuses_an_unknown_methodology():
    with pytest.raises(ValueError):
        compute_boards(make_round("vibes", [make_task("t1")], []))


def test_it_gives_every_row_agent_name_and_rank():
    for methodology in ("outcomes", "scored", "checks", "weekly"):
        r = make_round(methodology, [make_task("t1")], [make_run("a", "t1", outcome="pass", score=0.5)])
        boards = compute_boards(r)
        for name, rows in boards.items():
            if not isinstance(rows, list):
                continue
            for row in rows:
                assert {"agent", "name", "rank"} <= set(row), (methodology, name)
