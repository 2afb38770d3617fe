import copy

import pytest

from scoring.boards import compute_boards
from scoring.bundle import BundleError
from scoring.recount import recount, vote_tallies
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
    assert set(r1) == {
        "statistics",
        "overall",
        "safety",
        "local-china",
        "local-global",
        "other-language",
        "pairs",
        "standings",
        "interval_tasks",
        "readings",
    }
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
    assert list(out["ratings"]) == ["margins", "all", "tasks"]  # margins first: old printed lines stay
    assert set(out["ratings"]["tasks"]) == {"c1"}


def test_it_leaves_ratings_out_without_votes():
    assert "ratings" not in recount(bundle())


@pytest.mark.parametrize(
    "methodology,keys",
    [
        ("outcomes", {"overall", "safety", "local-china", "local-global", "other-language", "pairs", "interval_tasks"}),
        ("scored", {"overall", "meta", "pairs", "interval_tasks"}),
        ("checks", {"overall", "tasks", "pairs", "interval_tasks"}),
        ("weekly", {"overall"}),
    ],
)
def test_it_dispatches_by_methodology(methodology, keys):
    r = make_round(methodology, [make_task("t1", kind="to-spec")], [make_run("a", "t1", outcome="pass")])
    # Every methodology's boards also carry the round's statistics (scoring.boards.round_statistics), first, and
    # every run's standing (scoring.standings), last.
    boards = compute_boards(r)
    assert list(boards)[0] == "statistics" and list(boards)[-1] == "standings"
    assert set(boards) == keys | {"statistics", "standings"}
    assert ("review" in boards["statistics"]) == (methodology == "outcomes")
    # Boards with intervals also carry the noise floor (scoring.noise), first in the statistics.
    assert ("noise" in boards["statistics"]) == (methodology != "weekly")
    assert list(boards["statistics"])[0] == ("noise" if methodology != "weekly" else "tasks")


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


def test_a_votes_file_is_tallied_per_task_pair_and_winner_counting_only_counted_votes():
    # Lines in no particular order: a beats b three times in c1 (one line says "counts": true, two say
    # nothing, which counts), once more with "counts": false (not counted); b and a tie once in c1; b beats a
    # once in c2. Tallies come sorted by (task, a, b, winner): (c1, a, b, a) 3, (c1, b, a, tie) 1, (c2, a, b, b) 1.
    votes = [
        {"task": "c2", "a": "a", "b": "b", "winner": "b"},
        {"task": "c1", "a": "b", "b": "a", "winner": "tie"},
        {"task": "c1", "a": "a", "b": "b", "winner": "a"},
        {"task": "c1", "a": "a", "b": "b", "winner": "a", "counts": True},
        {"task": "c1", "a": "a", "b": "b", "winner": "a", "counts": False},
        {"task": "c1", "a": "a", "b": "b", "winner": "a"},
    ]
    assert vote_tallies(bundle(), iter(votes)) == [
        ("c1", "a", "b", "a", 3),
        ("c1", "b", "a", "tie", 1),
        ("c2", "a", "b", "b", 1),
    ]


def test_a_votes_file_names_each_bad_line_by_its_number_and_what_is_wrong():
    good = {"task": "c1", "a": "a", "b": "b", "winner": "a"}
    votes = [
        good,
        "a line that is not an object",
        {**good, "task": "c9"},
        {**good, "a": "ghost"},
        {**good, "b": "ghost"},
        {**good, "b": "a"},
        {**good, "winner": "draw"},
        good,
    ]
    with pytest.raises(BundleError) as exc:
        vote_tallies(bundle(), votes)
    assert exc.value.problems == [
        "votes file line 2: not a JSON object",
        "votes file line 3: task 'c9' is not in the bundle",
        "votes file line 4: a: agent 'ghost' is not in the bundle",
        "votes file line 5: b: agent 'ghost' is not in the bundle",
        "votes file line 6: an agent cannot be matched against itself",
        "votes file line 7: winner 'draw' is not one of a, b, tie",
    ]


@pytest.mark.parametrize(
    "bad_lines,listed_last",
    [
        # 20 bad lines are all listed; past 20 the rest are counted on one more line: 21 -> 1 more, 23 -> 3 more.
        (20, "votes file line 20: task 'c9' is not in the bundle"),
        (21, "votes file: 1 more bad line(s)"),
        (23, "votes file: 3 more bad line(s)"),
    ],
)
def test_a_votes_file_lists_at_most_20_bad_lines_and_counts_the_rest(bad_lines, listed_last):
    votes = [{"task": "c9", "a": "a", "b": "b", "winner": "a"}] * bad_lines
    with pytest.raises(BundleError) as exc:
        vote_tallies(bundle(), votes)
    assert exc.value.problems[0] == "votes file line 1: task 'c9' is not in the bundle"
    assert len(exc.value.problems) == min(bad_lines, 21) and exc.value.problems[-1] == listed_last


def test_a_votes_file_refuses_a_bundle_without_tasks_or_agents_for_its_votes():
    doc = {"tasks": None, "agents": None}
    with pytest.raises(BundleError) as exc:
        vote_tallies(doc, [{"task": "c1", "a": "a", "b": "b", "winner": "a"}])
    assert exc.value.problems == ["votes file line 1: task 'c1' is not in the bundle"]


def test_a_bundle_with_a_votes_file_recounts_its_ratings_from_the_file_and_not_without_it():
    doc = {**bundle(), "votes_file": {"votes": 2, "url": "https://example.com/votes.jsonl.gz"}}
    with pytest.raises(BundleError) as exc:
        recount(doc)
    assert exc.value.problems == [
        "votes_file: the votes are in a separate file; recount the bundle with it (--votes FILE)"
    ]
    votes = [{"task": "c1", "a": "a", "b": "b", "winner": w} for w in ("a", "a", "b", "tie")]
    out = recount(doc, votes_file=votes)
    # Read from the file: a won 2, lost 1, tied 1; b won 1, lost 2, tied 1; a rated above b.
    by_agent = {r["agent"]: (r["wins"], r["losses"], r["ties"]) for r in out["ratings"]["tasks"]["c1"]}
    assert by_agent == {"a": (2, 1, 1), "b": (1, 2, 1)}
    assert [r["agent"] for r in out["ratings"]["all"]] == ["a", "b"]
    # A file of uncounted votes only gives no ratings at all.
    assert "ratings" not in recount(doc, votes_file=[{**votes[0], "counts": False}])


def test_boards_are_shown_with_the_vote_ratings_only_where_the_methodology_ranks_by_votes():
    from scoring.boards import boards_as_shown
    from scoring.bundle import round_task_keys

    # checks: an invent board of two admitted apps is ordered by their ratings (b above a); a scored board
    # has no board ranked by votes and is shown as stored.
    stored = {
        "tasks": {
            "chat": [{"agent": "a", "name": "A", "admitted": True}, {"agent": "b", "name": "B", "admitted": True}]
        }
    }
    ratings = {"tasks": {"chat": [{"agent": "b", "rating": 1100.0}, {"agent": "a", "rating": 900.0}]}}
    shown = boards_as_shown("checks", stored, ratings)
    assert [(r["agent"], r["rank"]) for r in shown["tasks"]["chat"]] == [("b", 1), ("a", 2)]
    assert boards_as_shown("scored", stored, ratings) is stored
    assert boards_as_shown("checks", None, ratings) == {} and boards_as_shown("checks", {}, ratings) == {}
    # A round's task set without a frozen list: the tasks of its runs, as bundle rows or inputs.
    assert round_task_keys({}, [{"task": "t2"}, {"task": "t1"}, {"task": "t2"}]) == {"t1", "t2"}
    assert round_task_keys({"tasks": ["t3"]}, [{"task": "t1"}]) == {"t3"}


def test_a_recount_ranks_an_invent_board_by_the_bundles_votes_as_the_site_does():
    # Two apps admitted on the invent task (every check passed: 100 each); the votes: b beats a 3 times.
    # Seed 003: "people rank the apps in blind votes" -> b first, a second.
    doc = {
        "benchmark": {"slug": "apps", "name": "Apps", "methodology": "checks"},
        "agents": [{"slug": "a", "name": "A"}, {"slug": "b", "name": "B"}],
        "tasks": [{"key": "chat", "version": "1.0", "kind": "invent", "time_limit_min": 60, "token_budget": 1_000_000}],
        "rounds": [{"key": "r1", "status": "published", "entries": [{"agent": "a"}, {"agent": "b"}]}],
        "runs": [
            {
                "id": agent,
                "round": "r1",
                "agent": agent,
                "task": "chat",
                "status": "completed",
                "app_started": True,
                "api_checks_passed": 2,
                "api_checks_total": 2,
            }
            for agent in ("a", "b")
        ],
        "votes": [{"task": "chat", "a": "a", "b": "b", "winner": "b"}] * 3,
    }
    board = recount(doc)["rounds"][0]["boards"]["tasks"]["chat"]
    assert [(r["agent"], r["rank"]) for r in board] == [("b", 1), ("a", 2)]
