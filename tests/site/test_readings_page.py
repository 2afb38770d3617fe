"""A board under every reading of its methodology's open questions, as a reader sees it: each rank a reading moves
shows its range across the readings ("1–3 across readings"), and the round's Readings page quotes the seed, names
both readings and says what moves under the other, in plain words. The numbers are worked out by hand in
tests/scoring/test_readings.py."""

import html as markup
import json
import re

import pytest
from django.urls import reverse

from scoring.recount import recount
from tests.builders import readings as built

pytestmark = pytest.mark.django_db


def rank_text(html: str, agent: str) -> str:
    row = re.search(rf'<tr data-agent="{agent}".*?</tr>', html, re.S)
    assert row, agent
    cell = re.search(r'<td class="num rank[^"]*"[^>]*>(.*?)</td>', row.group(0), re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", cell.group(1)).split())


def test_the_board_shows_each_rank_range_across_readings(load, client):
    load(built.infra_error_bundle())
    html = client.get("/b/kbench/").content.decode()
    # KBravo is 1st here and 3rd when k3 counts 0; KAlpha 2nd or 1st; KCharlie 3rd or 2nd.
    assert rank_text(html, "kbravo") == "1 1–3 across readings"
    assert rank_text(html, "kalpha") == "2 1–2 across readings"
    assert rank_text(html, "kcharlie") == "3 2–3 across readings"
    assert reverse("readings", args=["kbench", "r1"]) + "#agent-kbravo" in html


def test_a_rank_no_reading_moves_shows_no_range(load, client):
    load(built.spread_bundle())
    html = client.get("/b/spread/").content.decode()
    # Lee 50.0 and Mira 41.7 keep their places under every reading (only Mira's range moves).
    assert rank_text(html, "lee") == "1" and rank_text(html, "mira") == "2"
    assert "across readings" not in html


def readings_page(client, slug: str) -> str:
    response = client.get(reverse("readings", args=[slug, "r1"]))
    assert response.status_code == 200
    return markup.unescape(" ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split()))


# question -> what its Readings page says moves under the other reading, worked out in test_readings.py.
MOVES = {
    "infra-error": "KBravo moves from 1st to 3rd; its overall goes from 50.0 to 33.3 (−16.7)",
    "spread": "Mira stays 2nd; its overall stays 41.7; its range goes from 8.3–66.7 to 0.0–100.0.",
    "missing-usage": "Ana moves from 1st to 2nd; its overall goes from 100.0 to 0.0 (−100.0)",
    "overall-mean": "Bravo moves from 2nd to 1st; its score goes from 0.35 to 0.58 (+0.23).",
    "heuristic-cap": "Hana moves from 1st to 2nd; its score goes from 0.84 to 0.60 (−0.24).",
    "unsupported": "Alpha moves from 2nd to 1st; its overall goes from 6.7 to 10.0 (+3.3).",
    "weekly-review": "Rook moves from 2nd to 1st; its pass rate goes from 0% to 50% (+50%).",
    "interventions": "Quill moves from 2nd to 1st; its pass rate stays 40%.",
}


@pytest.mark.parametrize("question", sorted(MOVES))
def test_the_readings_page_says_what_moves_under_the_other_reading(load, client, question):
    make, other = built.BY_QUESTION[question]
    doc = make()
    load(doc)
    text = readings_page(client, doc["benchmark"]["slug"])
    section = text.split(f"{question} ", 1)[1]
    assert MOVES[question] in section.split(" Recount it: ", 1)[0]
    assert f"--reading {question}={other}" in section


def test_the_readings_page_quotes_the_seed_and_names_both_readings(load, client):
    load(built.infra_error_bundle())
    text = readings_page(client, "kbench")
    assert "“A platform failure (infra_error) is our fault and never goes into the score.” Seed 003" in text
    assert "“a task without runs counts as 0” Seed 003" in text
    assert "This site's reading left-out The task is left out of the agent's overall" in text
    assert "The other reading zero The task has no run that counts, so it counts 0" in text
    # Every board states its limits, so 000's default time limit moves nothing here.
    limits = text.split("time-limit-default ", 1)[1].split("Recount it", 1)[0]
    assert "Nothing moves: every rank and score of this round is the same under both readings." in limits
    assert "KBravo : ranked 1 to 3 across the readings" in text


def test_a_run_still_in_review_moves_nothing_under_the_testers_reading(load, client):
    # Rook's trip run: the tester labeled it pass and the second reviewer fail; no third reviewer has decided, so
    # the run is in review and its verdicts are not public (000 §5: the second judges "without seeing the first
    # outcome"). Read "tester-alone" it would be a pass and put Rook first (50%, 0 interventions against Sage's 1):
    # shown on the board, that would publish the tester's label. The readings are those of what the public
    # download holds, where the run has no verdicts: it stays in review under both readings, and Rook, with no
    # pass (0%), stays 2nd behind Sage's 1 of 2 = 50%.
    doc = built.weekly_review_bundle()
    doc["runs"][0]["verdicts"] = doc["runs"][0]["verdicts"][:2]
    load(doc)
    html = client.get("/b/review/").content.decode()
    assert rank_text(html, "sage") == "1" and rank_text(html, "rook") == "2"
    assert "across readings" not in html
    section = readings_page(client, "review").split("weekly-review ", 1)[1].split(" Recount it: ", 1)[0]
    assert "Nothing moves: every rank and score of this round is the same under both readings." in section
    # The board's readings are what a recount of the public download gives.
    download = json.loads(client.get("/b/review/download/bundle.json").content)
    (counted,) = recount(download)["rounds"]
    stored = client.get("/api/benchmarks/review/rounds/r1/board").json()["data"]
    assert counted["boards"]["readings"] == stored["readings"]


def test_an_unpublished_rounds_readings_are_not_found(load, client):
    doc = built.unsupported_bundle()
    doc["rounds"][0].update(status="draft", published_at=None)
    load(doc)
    assert client.get(reverse("readings", args=["unsup", "r1"])).status_code == 404


@pytest.mark.parametrize("question", ["infra-error", "overall-mean", "unsupported", "interventions"])
def test_each_methodology_page_lists_its_open_questions_and_links_the_readings(load, client, question):
    make, other = built.BY_QUESTION[question]
    doc = make()
    load(doc)
    slug = doc["benchmark"]["slug"]
    response = client.get(reverse("methodology", args=[slug]))
    text = markup.unescape(" ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split()))
    assert "Rules that can be read another way" in text
    assert f"( {question} )" in text and f"( {other} )" in text
    assert reverse("readings", args=[slug, "r1"]) in response.content.decode()
