"""A round's readings through the API: each open question with the seed's words, both readings and what moves
under the other (whose rank and score, by how much, in words), every reading at once, and the rank ranges; the
board's own data carries the same under "readings". Numbers worked out in tests/scoring/test_readings.py."""

from __future__ import annotations

import pytest

from bundles.importer import bundle_import
from tests.builders import readings as built

pytestmark = pytest.mark.usefixtures("no_rate_limit")


@pytest.fixture
def kbench(db, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        bundle_import(doc=built.infra_error_bundle())


def test_it_gives_each_question_and_what_moves_under_the_other_reading(kbench, client):
    body = client.get("/api/benchmarks/kbench/rounds/r1/readings").json()
    assert (body["benchmark"], body["round"], body["computed"], body["stale"]) == ("kbench", "r1", True, False)
    assert [q["id"] for q in body["questions"]] == ["infra-error", "spread", "missing-usage", "time-limit-default"]
    infra = body["questions"][0]
    assert infra["words"][0] == {
        "seed": "003",
        "text": "A platform failure (infra_error) is our fault and never goes into the score.",
    }
    assert (infra["site"]["value"], infra["alternatives"][0]["value"]) == ("left-out", "zero")
    (overall,) = infra["alternatives"][0]["changes"]
    assert overall["board"] == "overall"
    # KBravo (50 + 50) / 2 = 50.0 first; (50 + 50 + 0) / 3 = 33.3 and third on tokens under the other reading.
    bravo = next(m for m in overall["moves"] if m["agent"] == "kbravo")
    assert (bravo["site"]["rank"], bravo["site"]["score"]) == (1, 50.0)
    assert (bravo["other"]["rank"], round(bravo["other"]["score"], 1)) == (3, 33.3)
    assert overall["sentences"][0].startswith(
        "KBravo moves from 1st to 3rd; its overall goes from 50.0 to 33.3 (−16.7)"
    )
    # 000's default time limit: every task here states one, so nothing moves.
    assert body["questions"][3]["alternatives"][0]["changes"] == []
    assert body["ranges"] == [
        {
            "board": "overall",
            "label": "Overall",
            "agents": [
                {"agent": "kalpha", "name": "KAlpha", "low": 1, "high": 2},
                {"agent": "kbravo", "name": "KBravo", "low": 1, "high": 3},
                {"agent": "kcharlie", "name": "KCharlie", "low": 2, "high": 3},
            ],
        }
    ]
    assert [(r["id"], r["value"]) for r in body["together"]["readings"]] == [
        ("infra-error", "zero"),
        ("spread", "single-runs"),
        ("missing-usage", "not-counted"),
        ("time-limit-default", "30-minutes"),
    ]


def test_the_board_carries_the_readings_it_was_computed_with(kbench, client):
    data = client.get("/api/benchmarks/kbench/rounds/r1/board").json()["data"]
    assert data["readings"]["ranges"] == {"overall": {"kbravo": [1, 3], "kalpha": [1, 2], "kcharlie": [2, 3]}}
    assert [v["key"] for v in data["readings"]["variants"]] == [
        "infra-error=zero",
        "spread=single-runs",
        "missing-usage=not-counted",
        "time-limit-default=30-minutes",
        "all",
    ]


def test_an_unpublished_rounds_readings_are_not_found(db, client, django_capture_on_commit_callbacks):
    doc = built.unsupported_bundle()
    doc["rounds"][0].update(status="draft", published_at=None)
    with django_capture_on_commit_callbacks(execute=True):
        bundle_import(doc=doc)
    response = client.get("/api/benchmarks/unsup/rounds/r1/readings")
    assert response.status_code == 404
    assert "r1" in response.json()["detail"]


# question -> (the agent a reading moves, its rank and headline figure under this site's reading, and under the
# other), each worked out by hand from the seed in tests/scoring/test_readings.py; the API gives the same moves as
# the Readings page (tests/site/test_readings_page.py) and `recount --reading` (tests/scoring/test_recount_readings.py).
API_MOVES = {
    # KBravo (50 + 50) / 2 = 50.0 first; (50 + 50 + 0) / 3 = 33.3, third on tokens.
    "infra-error": ("kbravo", (1, 100 / 2), (3, 100 / 3)),
    # Ana's run with unknown output tokens counts (100, first) or does not (0, behind Ben's 75).
    "missing-usage": ("ana", (1, 100.0), (2, 0.0)),
    # Bravo 1.74 / 5 = 0.348 (second to Alpha's 0.4) or 1.74 / 3 = 0.58 over the tasks it ran (first).
    "overall-mean": ("bravo", (2, 1.74 / 5), (1, 1.74 / 3)),
    # Hana 0.6 x 1.0 + 0.4 x min(0.90, 0.60) = 0.84 (first, Ivo 0.82) or capped whole at 0.60 (second).
    "heuristic-cap": ("hana", (1, 0.6 + 0.4 * 0.6), (2, 0.6)),
    # Alpha pass, pass, unsupported: 2 + 2 + 0 = 4 of 6 points x 10 = 6.7 (second to Beta's 2 + 2 + 1 = 5 of 6,
    # 8.3); the unsupported task left out, 4 of 4 x 10 = 10.0 (first).
    "unsupported": ("alpha", (2, 4 / 6 * 10), (1, 4 / 4 * 10)),
    # Rook's trip run: the third reviewer's fail, 0 of 2 = 0% (second) or the tester's pass, 1 of 2 = 50% (first).
    "weekly-review": ("rook", (2, 0 / 2), (1, 1 / 2)),
    # Both 2 of 5 = 40%: Quill's interventions unknown (second) or the sum of its runs, 0, against Piper's 5.
    "interventions": ("quill", (2, 2 / 5), (1, 2 / 5)),
}


@pytest.mark.parametrize("question", sorted(API_MOVES))
def test_each_question_moves_its_agent_through_the_api_as_worked_out_by_hand(
    db, client, django_capture_on_commit_callbacks, question
):
    make, other = built.BY_QUESTION[question]
    doc = make()
    with django_capture_on_commit_callbacks(execute=True):
        bundle_import(doc=doc)
    body = client.get(f"/api/benchmarks/{doc['benchmark']['slug']}/rounds/r1/readings").json()
    (asked,) = [q for q in body["questions"] if q["id"] == question]
    (alternative,) = asked["alternatives"]
    assert alternative["value"] == other
    agent, site, moved = API_MOVES[question]
    found = [m for change in alternative["changes"] for m in change["moves"] if m["agent"] == agent]
    assert found, alternative["changes"]
    move = found[0]
    assert (move["site"]["rank"], move["site"]["score"]) == (site[0], pytest.approx(site[1]))
    assert (move["other"]["rank"], move["other"]["score"]) == (moved[0], pytest.approx(moved[1]))
    assert any(r["agent"] == agent and r["low"] == 1 for b in body["ranges"] for r in b["agents"])
