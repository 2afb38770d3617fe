"""The round's statistics where readers look (issue #30): the noise floor and split-half reliability under the
board, the round's Tasks page with every task's discrimination and flag, the task page's line, the review
agreement of an outcomes round, the head-to-head's power sentence, the CSV and the API. Every number asserted
is worked out by hand in a comment."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from tests.builders.site import outcomes_bundle

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def _scored_round() -> dict:
    """Four agents, four tasks, one trial each, scores as tests passed out of 10 (scored: the best trial).

    task   A    B    C    D
    t1    1.0  0.8  0.6  0.4
    t2    0.8  0.6  0.4  0.2
    t3    0.2  0.0  0.6  0.4
    t4    0.5  0.5  0.5  0.5
    """
    scores = {
        "t1": {"a": 10, "b": 8, "c": 6, "d": 4},
        "t2": {"a": 8, "b": 6, "c": 4, "d": 2},
        "t3": {"a": 2, "b": 0, "c": 6, "d": 4},
        "t4": {"a": 5, "b": 5, "c": 5, "d": 5},
    }
    agents = [{"slug": s, "name": s.upper(), "primary_language": "en", "languages": ["en"]} for s in "abcd"]
    tasks = [
        {"key": k, "title": f"Task {k}", "version": "1.0", "kind": "core", "dimensions": [], "prompt": "Do it."}
        for k in scores
    ]
    runs = [
        {
            "id": f"{agent}-{task}",
            "round": "r1",
            "agent": agent,
            "task": task,
            "task_version": "1.0",
            "trial": 1,
            "status": "completed",
            "tests_passed": passed,
            "tests_total": 10,
        }
        for task, row in scores.items()
        for agent, passed in row.items()
    ]
    rnd = {
        "key": "r1",
        "name": "Round one",
        "status": "published",
        "published_at": "2026-03-01T12:00:00Z",
        "starts_on": "2026-02-20",
        "entries": [{"agent": a["slug"]} for a in agents],
    }
    return {
        "benchmark": {
            "slug": "sep",
            "name": "Separation",
            "methodology": "scored",
            "params": {"preview_hours": 0, "pass_threshold": 0.8},
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


# Discrimination, by hand: the correlation of the agents' numbers on the task with their mean on the others.
#   t1 = (1.0, .8, .6, .4), centred (.3, .1, -.1, -.3); others (t2 + t3 + t4) / 3 is an affine map of
#   (t2 + t3) / 2 = (.5, .3, .5, .3), centred (.1, -.1, .1, -.1) (t4 adds the same .5 to everyone, which a
#   correlation ignores). cov = .03 - .01 - .01 + .03 = .04; |t1|^2 = .2, |others|^2 = .04;
#   r = .04 / sqrt(.2 * .04) = 1 / sqrt(5) = 0.447 -> "0.45".
#   t2 = (.8, .6, .4, .2) against (t1 + t3) / 2 = (.6, .4, .6, .4): the same shape as t1: "0.45".
#   t3 = (.2, 0, .6, .4), centred (-.1, -.3, .3, .1), against (t1 + t2) / 2 = (.9, .7, .5, .3), centred
#   (.3, .1, -.1, -.3): cov = -.03 - .03 - .03 - .03 = -.12; |t3|^2 = .2, |others|^2 = .2; r = -.6 -> "−0.60",
#   negative: "separates the wrong way".
#   t4: every agent .5: "does not separate agents", discrimination "–".
# Mean and spread (population sd): t1 mean .7, sd sqrt((.09 + .01 + .01 + .09) / 4) = sqrt(.05) = 0.224 -> "0.22".
TASK_ROWS = {
    "t1": ("0.70", "0.22", "0.45", ""),
    "t2": ("0.50", "0.22", "0.45", ""),
    "t3": ("0.30", "0.22", "−0.60", "separates the wrong way"),
    "t4": ("0.50", "0.00", "–", "does not separate agents"),
}


def test_the_rounds_tasks_page_shows_every_tasks_discrimination_and_flag(load, client):
    load(_scored_round())
    html = client.get(reverse("round_tasks", args=["sep", "r1"])).content.decode()
    for key, (mean, spread, disc, flag) in TASK_ROWS.items():
        row = re.search(rf'<tr id="task-{key}">(.*?)</tr>', html, re.S)
        assert row, key
        cells = [_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)]
        assert cells[:4] == ["4", mean, spread, disc], (key, cells)
        assert flag in cells[4], (key, cells)
    assert "2 tasks flagged." in _text(html)
    # Weakest separators first: t3 (−0.60), t1 and t2 (0.45, by title), then t4 (none).
    ordered = client.get(reverse("round_tasks", args=["sep", "r1"]) + "?sort=discrimination").content.decode()
    assert re.findall(r'<tr id="task-(t\d)">', ordered) == ["t3", "t1", "t2", "t4"]


def test_the_task_page_says_how_the_task_separates_agents(load, client):
    load(_scored_round())
    line = _text(client.get(reverse("task", args=["sep", "t3"])).content.decode())
    assert "How this task separates agents: 4 agents, mean 0.30, spread 0.22, discrimination −0.60." in line
    assert "This task separates the wrong way" in line
    assert "does not separate agents" in _text(client.get(reverse("task", args=["sep", "t4"])).content.decode())


def test_the_board_says_its_noise_floor_and_reliability_and_links_the_tasks_page(load, client):
    load(_scored_round())
    html = client.get(reverse("board", args=["sep"])).content.decode()
    text = _text(html)
    # 4 agents: 4 * 3 / 2 = 6 pairs share every task.
    # Each figure with its unit, the board's headline scale.
    unit = r" on the Score \(0-1\)"
    assert re.search(rf"Noise floor: about \d\.\d\d{unit}\. Two agents must differ by about \d\.\d\d{unit}", text)
    assert "(6 pairs)" in text
    assert "Split-half reliability:" in text
    assert reverse("round_tasks", args=["sep", "r1"]) in html


def test_the_head_to_head_says_what_the_round_could_detect(load, client):
    load(_scored_round())
    url = reverse("compare", args=["sep"]) + "?a=a&b=c&round=r1"
    text = _text(client.get(url).content.decode())
    # A - C per task: .4, .4, -.4, 0; d = .1; the interval covers 0 (a resample of t3 alone gives -.4).
    # sd (n - 1): mean .1, deviations .3, .3, -.5, -.1; (.09 + .09 + .25 + .01) / 3 = .14667, sd = .38297.
    # detectable = 2.801585 * .38297 / sqrt(4) = 0.5365 -> "0.54";
    # tasks needed = ceil((2.801585 * .38297 / .1)^2) = ceil(10.7293^2) = ceil(115.12) = 116.
    assert "This round could detect a difference of about 0.54" in text
    assert "would take about 116 tasks like these" in text
    assert "standard deviation 0.38" in text


def test_outcomes_round_shows_review_agreement_by_role(load, client):
    load(outcomes_bundle())
    # Runs that can count (bram-flights is replaced by its re-run), tester vs second, as the boards read them:
    #   ayla-flights pass/partial (disagree, a third decided), ayla-email partial/partial, ayla-no-pay
    #   violation/violation (a safety task: a violation stands), bram-flights-rerun pass/pass, bram-no-pay
    #   pass/pass: 5 second reviews, 4 agreed (80%).
    # Kappa: tester pass 3, partial 1, violation 1; second pass 2, partial 2, violation 1;
    #   p_e = (3*2 + 1*2 + 1*1) / 25 = .36; kappa = (.8 - .36) / (1 - .36) = .6875 -> "0.69".
    expected = "Reviewers agreed on 4 of 5 second reviews (80%), Cohen's kappa 0.69. 1 run went to a third reviewer."
    for url in (reverse("board", args=["obench"]), reverse("methodology", args=["obench"])):
        assert expected in _text(client.get(url).content.decode()), url
    tasks = client.get(reverse("round_tasks", args=["obench", "r1"])).content.decode()
    table = re.search(r'<table id="disagreement-table">(.*?)</table>', tasks, re.S).group(1)
    # flights: ayla-flights and the re-run were double-reviewed (2), one disagreement.
    assert re.findall(r"<tr><th[^>]*><a[^>]*>([^<]+)</a></th><td[^>]*>(\d+)</td><td[^>]*>(\d+)</td>", table) == [
        ("flights", "2", "1")
    ]
    for html in (tasks, client.get(reverse("board", args=["obench"])).content.decode()):
        assert "Tester note" not in html and "reviewer@" not in html  # roles only, no notes or people


def test_the_tasks_csv_carries_full_precision_and_the_reliability(load, client):
    load(_scored_round())
    response = client.get(reverse("round_tasks_csv", args=["sep", "r1"]))
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["task", "title", "agents", "mean", "pass_share", "spread", "discrimination", "flag"]
    by_task = {r[0]: r for r in rows[1:]}
    assert abs(float(by_task["t1"][6]) - 5**-0.5) < 1e-9  # 1 / sqrt(5), by hand above
    assert abs(float(by_task["t3"][6]) + 0.6) < 1e-9 and by_task["t3"][7] == "wrong_way"
    assert by_task["t4"][6] == "" and by_task["t4"][7] == "no_separation"
    assert rows[-1][0] == "(split-half reliability)" and rows[-1][3] != ""


def test_the_api_board_carries_the_statistics(load, client):
    load(_scored_round())
    data = client.get("/api/benchmarks/sep/rounds/r1/board").json()["data"]
    tasks = {t["task"]: t for t in data["statistics"]["tasks"]["tasks"]}
    assert tasks["t3"]["flag"] == "wrong_way" and abs(tasks["t3"]["discrimination"] + 0.6) < 1e-9
    assert data["statistics"]["noise"]["pairs"] == 6


def test_an_unpublished_rounds_tasks_page_and_csv_are_not_found(load, client):
    load(outcomes_bundle(slug="hidden", status="preview"))
    assert client.get(reverse("round_tasks", args=["hidden", "r1"])).status_code == 404
    assert client.get(reverse("round_tasks_csv", args=["hidden", "r1"])).status_code == 404
