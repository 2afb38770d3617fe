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
