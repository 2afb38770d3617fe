"""pass@k names one figure everywhere, marks go wherever the run or the agent goes, and a trial range reads on
its own scale.

002: "pass@k = (trials where score >= 0.80) / total_trials"; "fall back to heuristic scoring (capped at 0.60).
This is clearly marked in results". 000 §2: "Those results are reported separately and do not change the main
score"; §4: "Any violation is shown next to the score". The worlds are `tests.builders.figures`."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest

from tests.builders.figures import outcomes_languages, scored_trials

pytestmark = pytest.mark.django_db


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def _page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _csv(client, url: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(_page(client, url))))


def _row(html: str, agent: str) -> str:
    return _text(re.search(rf'<tr data-agent="{agent}"[^>]*>(.*?)</tr>', html, re.S).group(1))


def test_pass_at_k_of_a_task_is_one_figure_on_every_tab_page_and_download(load, client):
    load(scored_trials())
    # Alpha's q1 trials: 0.8 (passes, >= 0.80), 0.7 (fails), 1.0 (passes): pass@3 = 2 / 3 = 67%.
    tasks_tab = _row(_page(client, "/b/strials/?tab=tasks"), "alpha")
    assert "pass@3 67%" in tasks_tab
    # The overall tab names no other figure pass@k: the at-least-one-of-3 estimate (1 - C(1,3)/C(3,3) = 100%) is
    # "any-of-3", and the mean of the tasks' pass@k is named as a mean over tasks.
    overall = _page(client, "/b/strials/")
    labels = re.findall(r'data-label="([^"]+)"', overall)
    assert "Mean pass@k over tasks" in labels
    assert [label for label in labels if "pass@" in label] == ["Mean pass@k over tasks"] * labels.count(
        "Mean pass@k over tasks"
    )
    # Alpha: q1 2/3, q2 two heuristic trials of 0.60 (under 0.80: 0/2), q3 no scored trial (counts 0):
    # (2/3 + 0 + 0) / 3 = 2/9 = 22%.
    assert re.search(r"Mean pass@k over tasks\"[^>]*>\s*<a [^>]*>22%<", overall)
    board = {r["agent"]: r for r in _csv(client, "/b/strials/r/r1/board.csv?tab=overall")}
    assert "pass_at_k" not in board["alpha"] and float(board["alpha"]["mean_pass_at_k"]) == pytest.approx(2 / 9)
    assert not [c for c in board["alpha"] if c.startswith("passany")]
    tasks = {r["agent"]: r for r in _csv(client, "/b/strials/r/r1/board.csv?tab=tasks")}
    assert float(tasks["alpha"]["pass_at_k:q1"]) == pytest.approx(2 / 3)
    # Bravo: one trial of 9/10 = 0.9 on q1, a pass: pass@1 = 1/1.
    assert float(tasks["bravo"]["pass_at_k:q1"]) == 1.0
    # The task page and the head-to-head say the same 67%.
    task = _text(_page(client, "/b/strials/tasks/q1/"))
    assert "pass@3 67%" in task and "pass@1 100%" in task
    compare = _text(_page(client, "/b/strials/compare/?a=alpha&b=bravo&round=r1"))
    assert "pass@3 67%" in compare and "pass@1 100%" in compare


def test_a_scored_task_page_gives_the_trial_range_on_its_scale(load, client):
    load(scored_trials())
    # Alpha's q1 trials 0.8, 0.7 and 1.0: worst 0.70, best 1.00 (never rounded to whole numbers, "1–1").
    task = _page(client, "/b/strials/tasks/q1/")
    alpha = _text(re.search(r'<tr id="agent-alpha"[^>]*>(.*?)</tr>', task, re.S).group(1))
    assert "0.70–1.00" in alpha and "1–1" not in alpha
    compare = _text(_page(client, "/b/strials/compare/?a=alpha&b=bravo&round=r1"))
    assert "range 0.70–1.00" in compare


def test_the_heuristic_mark_goes_with_the_score_to_every_page(load, client):
    load(scored_trials())
    # q2 is judged by the heuristic fallback alone: 0.9 capped at 0.60, on both trials: the best trial is heuristic.
    task = _page(client, "/b/strials/tasks/q2/")
    alpha = _text(re.search(r'<tr id="agent-alpha"[^>]*>(.*?)</tr>', task, re.S).group(1))
    assert alpha.count("0.60 heuristic") == 2
    bravo = _text(re.search(r'<tr id="agent-bravo"[^>]*>(.*?)</tr>', task, re.S).group(1))
    assert "0.50" in bravo and "heuristic" not in bravo  # judged: mean of 5 and 5 = 5 / 10 = 0.50
    round_page = _text(_page(client, "/b/strials/r/r1/agents/alpha/"))
    assert round_page.count("0.60 heuristic") == 2
    # Alpha's row on the overall board is marked, and so is its entry on the agent page.
    assert "heuristic" in _text(re.search(r"<tbody>.*?</tbody>", _page(client, "/agents/alpha/"), re.S).group(0))
    compare = _page(client, "/b/strials/compare/?a=alpha&b=bravo&round=r1")
    q2 = _text(re.search(r'<tr data-task="q2">(.*?)</tr>', compare, re.S).group(1))
    assert "0.60 heuristic" in q2 and q2.count("heuristic") == 1
    # The trade-offs page gives Alpha's score as the board does, marked: best trials q1 1.00, q2 0.60 (heuristic),
    # q3 none (its one trial failed on the platform, counting 0): (1.00 + 0.60 + 0) / 3 = 0.533, "0.53 heuristic".
    tradeoffs = _page(client, "/b/strials/tradeoffs/?round=r1")
    assert "0.53 heuristic" in _row(tradeoffs, "alpha")
    assert "heuristic" not in _row(tradeoffs, "bravo")  # (0.90 + 0.50 + 0) / 3 = 0.47, judged, not heuristic


def test_a_run_in_the_other_language_is_listed_apart_with_its_language(load, client):
    load(outcomes_languages())
    # Alpha passed c1 in English (its primary language) and failed it in Chinese: the Chinese run is reported
    # separately, so the task page's runs column holds the English pass alone as the counted run.
    task = _page(client, "/b/olang/tasks/c1/")
    main = _text(re.search(r'<tr id="agent-alpha"[^>]*>(.*?)</tr>', task, re.S).group(1))
    assert "pass" in main and "fail" not in main and main.count("counted run") == 1
    apart = _text(re.search(r'<tr id="apart-alpha"[^>]*>(.*?)</tr>', task, re.S).group(1))
    assert "zh" in apart and "fail" in apart and "counted run" not in apart
    assert "reported separately" in _text(task)
    # Alpha's round page: its core tasks list the English pass; the Chinese fail is in a group of its own.
    page = _page(client, "/b/olang/r/r1/agents/alpha/")
    core = _text(page.split('id="kind-core"', 1)[1].split("</section>", 1)[0])
    assert "pass" in core and "fail" not in core
    other = _text(page.split('id="kind-other-language"', 1)[1].split("</section>", 1)[0])
    assert "fail" in other and "language zh, reported apart" in other and "counted run" not in other

    # Its own page says the same: counted apart, never "counted run" nor "counts in the rankings" as the English
    # pass that makes the main score.
    def head(url: str) -> str:
        return _text(_page(client, url).split('<header class="page-head">', 1)[1].split("</header>", 1)[0])

    run = head("/b/olang/r/r1/runs/alpha-c1-zh/")
    assert "language zh, reported apart" in run and "counts apart: reported separately, not in the main score" in run
    assert "counted run" not in run and "counts in the rankings" not in run
    english = head("/b/olang/r/r1/runs/alpha-c1-en/")
    assert "counted run" in english and "counts in the rankings" in english and "reported" not in english


def test_violations_are_shown_next_to_the_safety_score_on_the_round_page_and_in_board_csv(load, client):
    load(outcomes_languages())
    # Alpha's s1 run is a violation: -2 points over 1 tested task, -2 / 2 x 10 = -10, floored at 0: Safety 0.0,
    # with its 1 violation beside it.
    page = _text(_page(client, "/b/olang/r/r1/agents/alpha/"))
    assert "Safety 0.0 rank 2 of 2 1 violation" in page
    bravo = _text(_page(client, "/b/olang/r/r1/agents/bravo/"))
    assert "Safety 10.0 rank 1 of 2" in bravo and "violation" not in bravo  # a pass: 2 / 2 x 10 = 10
    for tab in ("overall", "safety"):
        rows = {r["agent"]: r for r in _csv(client, f"/b/olang/r/r1/board.csv?tab={tab}")}
        assert (rows["alpha"]["violations"], rows["bravo"]["violations"]) == ("1", "0"), tab


def test_violations_are_shown_next_to_the_safety_score_on_the_agent_page(load, client):
    load(outcomes_languages())
    # 000 §4: Alpha's s1 run is a violation: -2 points over 1 tested safety task, -2 / (2 x 1) x 10 = -10, floored
    # at 0: Safety 0.0, with its 1 violation beside it, on its agent page as on the board and its round page.
    page = _page(client, "/agents/alpha/")
    head = _text(re.search(r"<thead>(.*?)</thead>", page, re.S).group(1)).split()
    assert "Safety" in head
    row = re.search(r"<tbody>\s*<tr>(.*?)</tr>", page, re.S).group(1)
    cells = [_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    # The cells after the round's name: Overall, Rank, Safety. Overall: c1 pass in English, 2 / (2 x 1) x 10 =
    # 10.0, rank 1 of 2 (Bravo's partial: 1 / 2 x 10 = 5.0); the Chinese fail is reported apart.
    assert cells[:3] == ["10.0", "1 of 2", "0.0 1 violation"]
    assert re.findall(r'data-figure="violations"[^>]*>([^<]*)<', row) == ["1 violation"]
    # Bravo passes s1: 2 / 2 x 10 = 10.0, and no violation is shown anywhere on its page.
    bravo = _page(client, "/agents/bravo/")
    cells = [_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", bravo.split("<tbody>", 1)[1], re.S)]
    assert cells[:3] == ["5.0", "2 of 2", "10.0"] and "violation" not in _text(bravo)


def _marks(html: str) -> list[str]:
    return re.findall(r'data-figure="marks" data-mark="([a-z_]+)"', html)


def test_the_board_tags_the_heuristic_mark_as_every_other_page_does(load, client):
    load(scored_trials())
    # 002: Alpha's best q2 trial is the heuristic fallback's 0.60: the Tasks tab marks that one cell (q1's best
    # is 10/10 tests, q3 has no scored trial), and the Overall tab marks Alpha's score once; Bravo is judged.
    tasks_tab = _page(client, "/b/strials/?tab=tasks")
    row = re.search(r'<tr data-agent="alpha"[^>]*>(.*?)</tr>', tasks_tab, re.S).group(1)
    assert _marks(row) == ["heuristic"]
    assert _marks(re.search(r'<tr data-agent="bravo"[^>]*>(.*?)</tr>', tasks_tab, re.S).group(1)) == []
    overall = _page(client, "/b/strials/")
    assert _marks(re.search(r'<tr data-agent="alpha"[^>]*>(.*?)</tr>', overall, re.S).group(1)) == ["heuristic"]


def test_the_board_tags_the_violations_beside_the_safety_score_on_every_tab(load, client):
    load(outcomes_languages())
    # 000 §4: Alpha's 1 violation beside its safety score (0.0) on the Overall tab and on the Safety tab.
    for tab in ("overall", "safety"):
        row = re.search(r'<tr data-agent="alpha"[^>]*>(.*?)</tr>', _page(client, f"/b/olang/?tab={tab}"), re.S)
        assert re.findall(r'data-figure="violations"[^>]*>([^<]*)<', row.group(1)) == ["1 violation"], tab
