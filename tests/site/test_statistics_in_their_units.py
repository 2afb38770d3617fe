"""The round statistics in the unit of the board they are shown under, and one rule for the votes that hold a
vote-ranked order, read from the rendered pages: the noise floor named with its scale, and left out (saying
why) on a board ranked by vote ratings; every two neighbours of a vote order listed, with a count or with their
overlap; the Inspect quiz's score, pass rate and mean pass@k reconciled in words, its one dot drawn on the whole
0-1 axis, and its millisecond times never shown as 0s."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path

import pytest

from bundles.importer import bundle_import
from bundles.inspect_logs import logs_to_bundle, read_logs
from leaderboard.models import Benchmark
from scoring.vote_margins import vote_margins
from snapshots.models import BoardSnapshot
from tests.builders.site import checks_bundle, rating_row, with_invent_task
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

FULL = {"api_checks_passed": 10, "api_checks_total": 10, "browser_steps_passed": 9, "browser_steps_total": 9}
NONE = {"api_checks_passed": 0, "api_checks_total": 10, "browser_steps_passed": 0, "browser_steps_total": 9}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def _bundle() -> dict:
    """Two agents, two to-spec tasks, one run each (seed 003: score = half the API checks' share + half the
    browser steps'): agent-00 passes every shop check (100) and none of notes (0); agent-01 none anywhere (0, 0).
    Both apps of the invent task pass its checks (admitted)."""
    doc = with_invent_task(checks_bundle(agents=2, votes=False, runs_per_task=1), admitted=("agent-00", "agent-01"))
    for run in doc["runs"]:
        if run["task"] != "messenger":
            run.update(FULL if (run["agent"], run["task"]) == ("agent-00", "shop") else NONE)
    return doc


# The noise floor by hand: one pair, 00 - 01 = 100 on shop and 0 on notes. A resample draws the 2 tasks with
# replacement: both shop (1/4) gives +100, one of each (1/2) +50, both notes (1/4) 0. 2.5% and 97.5% fall in the
# 1/4 tails: the 95% interval is [0, +100], its half-width 50. The median over the one pair: 50.0, on the
# board's scale, the Overall (0-100).


def test_the_noise_floor_says_its_scale_and_stays_off_a_board_ranked_by_votes(load, client):
    load(_bundle())
    text = _text(client.get("/b/qbench/").content.decode())
    assert "Noise floor: about 50.0 on the Overall (0-100)." in text
    assert "Two agents must differ by about 50.0 on the Overall (0-100) before the gap means anything here" in text
    # The same on a to-spec task's tab, whose numbers are on that scale too.
    assert "Noise floor: about 50.0 on the Overall (0-100)." in _text(
        client.get("/b/qbench/?tab=tasks&task=shop").content.decode()
    )
    # The invent task's tab is ranked by vote ratings (1000s, not 0-100): no 50.0 beside them.
    text = _text(client.get("/b/qbench/?tab=tasks&task=messenger").content.decode())
    assert "Noise floor: about" not in text and "50.0" not in text
    assert "Noise floor: none in vote ratings. This board is ranked by vote ratings" in text


def test_a_task_ranked_by_votes_is_not_read_as_one_that_separates_no_one(load, client):
    load(_bundle())
    # Both apps of the messenger were admitted (checks 100 and 100): the same number for both, which the task
    # statistics would flag "does not separate agents". But the task is ranked by votes and is in no overall
    # score: the statistics of which tasks separate the overall board's agents leave it out.
    html = client.get("/b/qbench/r/r1/tasks/").content.decode()
    assert re.findall(r'<tr id="task-([^"]+)">', html) == ["notes", "shop"]
    text = _text(client.get("/b/qbench/tasks/messenger/").content.decode())
    assert "How this task separates agents" not in text and "does not separate agents" not in text


def _store_ratings(cells: list[tuple], rows: list[dict]) -> None:
    """The benchmark's ratings snapshot as the worker stores it, from hand-made rating rows (the same rows over
    every task and in the messenger) and the margins the scoring code finds from `cells`."""
    ratings = {"all": rows, "tasks": {"messenger": rows}}
    BoardSnapshot.objects.update_or_create(
        benchmark=Benchmark.objects.get(slug="qbench"),
        round=None,
        kind="ratings",
        defaults={"data": {"margins": vote_margins(cells, ratings), **ratings}, "stale": False},
    )


def test_the_votes_line_says_which_order_it_holds(load, client):
    load(_bundle())
    # 00 beat 01 6 times and lost 4: with two agents the fit puts them level exactly when their wins are equal
    # (the virtual ties are the same for both), so the top place rests on 6 - 4 = 2 of the 10 votes.
    cells = [("messenger", "agent-00", "agent-01", "a", 6), ("messenger", "agent-00", "agent-01", "b", 4)]
    _store_ratings(cells, [rating_row("agent-00", 1200, 1150, 1250), rating_row("agent-01", 1100, 1060, 1140)])
    text = _text(client.get("/b/qbench/?tab=tasks&task=messenger").content.decode())
    assert "Votes that hold this board's order: Agent 00 stays ahead of Agent 01 unless at most 2 of 10 votes" in text
    # On the overall board, ranked by the checks, the same figure is about its Vote rating column, and says so.
    text = _text(client.get("/b/qbench/").content.decode())
    assert "Votes that hold the vote ratings' order (the Vote rating column: this board is not ranked by votes)" in text


def test_an_overlapping_pair_is_said_not_left_out(load, client):
    load(with_invent_task(checks_bundle(agents=3, votes=False, runs_per_task=1), admitted=("agent-00", "agent-01")))
    # The messenger's order 00 > 01 > 02, 01's and 02's intervals overlapping (1080 <= 1090): the pair below the
    # top two is listed and says it, rather than left out as a board whose intervals overlap used to.
    cells = [("messenger", "agent-00", "agent-01", "a", 6), ("messenger", "agent-01", "agent-02", "a", 5)]
    rows = [rating_row("agent-00", 1200, 1150, 1250), rating_row("agent-01", 1100, 1080, 1140)]
    _store_ratings(cells, [*rows, rating_row("agent-02", 1050, 1000, 1090)])
    text = _text(client.get("/b/qbench/?tab=tasks&task=messenger").content.decode())
    assert "Agent 01 and Agent 02: their 95% intervals overlap, so the votes do not clearly order them." in text


QUIZ = Path(__file__).resolve().parents[2] / "fixtures" / "inspect-quiz.eval"


@pytest.fixture
def quiz(load):
    """The demo's Inspect quiz (fixtures/inspect-quiz.eval), imported as a published round."""
    doc = logs_to_bundle(read_logs([(QUIZ.name, QUIZ)]), benchmark="quiz", round_key="r1").doc
    doc["rounds"][0].update(status="published", published_at="2026-03-02T12:00:00Z")
    doc["benchmark"]["params"] = {"preview_hours": 0}  # as load_demo imports it: no vendor window
    bundle_import(doc=doc)
    compute_all()


def test_the_inspect_quiz_reconciles_its_score_pass_rate_and_pass_at_k(quiz, client):
    response = client.get("/b/quiz/")
    html = response.content.decode()
    row = _text(re.search(r'<tr data-agent="[^"]+"[^>]*>(.*?)</tr>', html, re.S).group(1))
    # The log's six samples, two epochs of three questions: add 1.0, 1.0; capital 1.0, 1.0; "3" 0.0 then 1.0.
    # Best trial of each task: 1, 1, 1. Score = (1 + 1 + 1) / 3 = 1.00; pass rate = 3 of 3 tasks = 100%.
    # pass@k per task (seed 002: trials scoring >= 0.80 / trials): 2/2, 2/2, 1/2; their mean (1 + 1 + 0.5) / 3
    # = 0.833: 83%.
    assert re.search(r"1\.00 ±0\.00 100% 83%", row), row
    text = _text(html)
    assert "Score and pass rate take each task's best trial" in text
    assert (
        "mean pass@k over tasks counts every trial: each task's pass@k is the share of its trials scoring at least 0.80"
        in text
    )
    # Time per run: the samples' working times, 0.013, 0.199, 0.015, 0.013, 0.012 and 0.012 s: a mean of
    # 0.264 / 6 = 0.044 s, recorded, so shown as such and never as "0s" (nor as missing).
    assert "0.04s" in row and " 0s " not in f" {row} "
    # Its one dot (1.00, interval 1.00 to 1.00) on the score's whole range, 0 to 1, not on 0.90-1.00.
    (chart,) = [c for c in response.context["charts"] if c["id"] == "score-chart"]
    labels = [t["label"] for t in chart["chart"]["ticks"]]
    assert labels[0] == "0.00" and labels[-1] == "1.00", labels
