"""`recount BUNDLE --reading ID=VALUE` and `--all-readings`: each open question's board recounted from the download
alone under the other reading, as worked out by hand in tests/scoring/test_readings.py."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.builders import readings as built


def recount(tmp_path, doc: dict, *args: str) -> dict:
    path, out = tmp_path / "bundle.json", tmp_path / "boards.json"
    path.write_text(json.dumps(doc))
    call_command("recount", str(path), *args, "-o", str(out))
    return json.loads(out.read_text())


def order(result: dict, board: str = "overall") -> list[str]:
    return [row["agent"] for row in result["rounds"][0]["boards"][board]]


# question -> (the site's order, the other reading's order), each worked out in tests/scoring/test_readings.py.
ORDERS = {
    # KBravo (50 + 50) / 2 = 50.0 first; read the other way (50 + 50 + 0) / 3 = 33.3, level with KAlpha and
    # KCharlie and last on tokens (unknown: k3 has no median run).
    "infra-error": (["kbravo", "kalpha", "kcharlie"], ["kalpha", "kcharlie", "kbravo"]),
    # Ana's run with unknown output tokens counts (100) or does not (0, behind Ben's 75).
    "missing-usage": (["ana", "ben"], ["ben", "ana"]),
    # Alpha 0.4 against Bravo 1.74 / 5 = 0.348; over the tasks it ran Bravo 1.74 / 3 = 0.58.
    "overall-mean": (["alpha", "bravo"], ["bravo", "alpha"]),
    # Hana 0.6 + 0.4 x 0.60 = 0.84 against Ivo 0.82; capped whole, Hana 0.60.
    "heuristic-cap": (["hana", "ivo"], ["ivo", "hana"]),
    # Alpha 4 / 6 x 10 = 6.7 against Beta 8.3; unsupported left out, Alpha 4 / 4 x 10 = 10.0.
    "unsupported": (["beta", "alpha"], ["alpha", "beta"]),
    # Rook's trip run: the third reviewer's fail (0%) or the tester's pass (50%, then 0 interventions against 1).
    "weekly-review": (["sage", "rook"], ["rook", "sage"]),
    # Both 40%: Quill's interventions unknown (a task not run) or 0, against Piper's 5.
    "interventions": (["piper", "quill"], ["quill", "piper"]),
}


@pytest.mark.parametrize("question", sorted(ORDERS))
def test_recount_gives_the_board_under_either_reading(tmp_path, question):
    make, other = built.BY_QUESTION[question]
    site_order, other_order = ORDERS[question]
    assert order(recount(tmp_path, make())) == site_order
    result = recount(tmp_path, make(), "--reading", f"{question}={other}")
    assert order(result) == other_order
    assert result["readings"] == {question: other}
    assert result["rounds"][0]["boards"]["readings_taken"] == {question: other}


def test_kbravo_is_33_3_under_the_other_reading(tmp_path):
    # (50 + 50 + 0) / 3 = 33.3 for each of the three.
    result = recount(tmp_path, built.infra_error_bundle(), "--reading", "infra-error=zero")
    assert [round(r["overall"], 1) for r in result["rounds"][0]["boards"]["overall"]] == [33.3, 33.3, 33.3]


def test_recount_gives_the_range_under_either_reading(tmp_path):
    # Mira: 25 / 3 = 8.3 to 200 / 3 = 66.7 from its worst and best runs per task; its single runs 0 to 100.
    site = {r["agent"]: r for r in recount(tmp_path, built.spread_bundle())["rounds"][0]["boards"]["overall"]}
    assert (round(site["mira"]["min"], 1), round(site["mira"]["max"], 1)) == (8.3, 66.7)
    result = recount(tmp_path, built.spread_bundle(), "--reading", "spread=single-runs")
    other = {r["agent"]: r for r in result["rounds"][0]["boards"]["overall"]}
    assert (other["mira"]["min"], other["mira"]["max"]) == (0.0, 100.0)


def test_a_checks_task_without_a_limit_is_refused_unless_read_with_000s_default(tmp_path):
    # The site's reading: 003 sets no default, so such a bundle cannot be recounted (nor imported).
    with pytest.raises(CommandError, match="1 problem"):
        recount(tmp_path, built.time_limit_bundle())
    # 000's 30 minutes: Tess's completed 2,400 s run is over 1,800 s and does not count; Uma's 50 leads.
    result = recount(tmp_path, built.time_limit_bundle(), "--reading", "time-limit-default=30-minutes")
    assert [(r["agent"], r["overall"]) for r in result["rounds"][0]["boards"]["overall"]] == [
        ("uma", 50.0),
        ("tess", 0.0),
    ]


def test_recount_gives_what_moves_under_each_reading_and_every_variants_boards(tmp_path):
    result = recount(tmp_path, built.weekly_review_bundle(), "--all-readings")
    r1 = result["rounds"][0]
    assert list(r1["under_readings"]) == ["weekly-review=tester-alone", "interventions=sum-of-runs", "all"]
    assert [row["agent"] for row in r1["under_readings"]["weekly-review=tester-alone"]["overall"]] == ["rook", "sage"]
    assert [row["agent"] for row in r1["under_readings"]["interventions=sum-of-runs"]["overall"]] == ["sage", "rook"]
    # The site's boards carry what moves: Sage 1st -> 2nd, Rook 2nd -> 1st (0% -> 50%) under tester-alone.
    readings = r1["boards"]["readings"]
    assert readings["ranges"] == {"overall": {"sage": [1, 2], "rook": [1, 2]}}
    moved = {m["agent"]: m for m in readings["variants"][0]["moves"]["overall"]}
    assert (moved["rook"]["site"]["rank"], moved["rook"]["other"]["rank"]) == (2, 1)
    assert (moved["rook"]["site"]["score"], moved["rook"]["other"]["score"]) == (0.0, 0.5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--reading", "nope=x"), "weekly has no open question 'nope'"),
        (("--reading", "infra-error=zero"), "weekly has no open question 'infra-error'"),
        (("--reading", "weekly-review=maybe"), "no reading 'maybe'"),
        (("--reading", "weekly-review"), "ID=VALUE"),
        (("--reading", "weekly-review=tester-alone", "--all-readings"), "one or the other"),
    ],
)
def test_recount_refuses_a_reading_the_methodology_does_not_have(tmp_path, args, message):
    with pytest.raises(CommandError, match=message):
        recount(tmp_path, built.weekly_review_bundle(), *args)
