"""The consistency crawler: random published worlds of every methodology (`tests.builders.worlds`: re-runs with and
without results, later trials, the weekly cap, checks time limits and token budgets, violations on core tasks,
runs decided by verdicts alone, platform failures, region blocks, skipped tasks, ties, blind votes), each
imported as a published round and recomputed as the worker does; then every public surface is read back and each
figure and standing it shows for a run, an agent or a task is compared with the one the board stored: the board
tabs, board.csv, every run page and its JSON, the task pages, the agents' round pages and agent pages, the
head-to-head of every two agents, the trade-offs, runs.csv, the API (runs and board) and `recount` of the
public bundle download. Beyond standings, every figure a page tags (`pages.figures.FIGURES`: each run's result,
its time as published, its marks and its language when reported apart; each agent's pass@k and range on each task
and its violations) is read on every surface that shows it and compared with the board's output
(`tests.site.crawler_figures`); a figure a template tags that the crawler does not compare fails
`test_the_crawler_compares_every_figure_a_page_shows`.

A bounded number of worlds per methodology runs in `make test` (`CRAWLER_EXAMPLES` random ones, default 5, and
the world of seed 1); a failure
names the world's seed, which rebuilds it (`CRAWLER_SEED=<seed>` runs that one world alone)."""

from __future__ import annotations

import csv
import html
import io
import itertools
import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from bundles.importer import bundle_import
from pages.figures import FIGURES
from pages.formatting import fmt_score
from scoring.common import rank_value
from scoring.intervals import paired_difference
from scoring.methodologies import get
from scoring.recount import recount
from scoring.run_figures import OTHER_LANGUAGE
from tests.builders.worlds import METHODOLOGIES, ROUND, world
from tests.isolation import cache_clear_own
from tests.site.conftest import compute_all
from tests.site.crawler_figures import COMPARED, FigureChecks, marks_in

pytestmark = pytest.mark.django_db

EXAMPLES = int(os.environ.get("CRAWLER_EXAMPLES", "5"))
SEEDS = st.just(int(os.environ["CRAWLER_SEED"])) if os.environ.get("CRAWLER_SEED") else st.integers(0, 2**31 - 1)
_worlds = itertools.count(1)


@pytest.fixture(autouse=True)
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0  # the crawler reads the API many times


@pytest.mark.parametrize("methodology", METHODOLOGIES)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a seed is the whole world, and each costs seconds
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(seed=1)  # a world of each methodology with a vote-ranked task, trials replaced, runs at the limits
@given(seed=SEEDS)
def test_every_public_surface_says_what_the_board_stored(client, methodology, seed):
    slug = f"crawl-{methodology[:3]}-{next(_worlds)}"
    note(f"world: tests.builders.worlds.world({methodology!r}, {seed}, {slug!r}); rerun with CRAWLER_SEED={seed}")
    doc = world(methodology, seed, slug)
    cache_clear_own()
    # Each world in a savepoint rolled back afterwards: every example starts from the same empty site.
    with transaction.atomic():
        bundle_import(doc=doc)
        compute_all()
        try:
            Crawl(client, doc).check_everything()
        except AssertionError as failure:
            raise AssertionError(f"{methodology} world seed {seed} (CRAWLER_SEED={seed}): {failure}") from failure
        finally:
            transaction.set_rollback(True)


def _text(response) -> str:
    assert response.status_code == 200, response
    return re.sub(r"\s+", " ", html.unescape(response.content.decode()))


def _csv(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None or a == "" or b == "":
        return a in (None, "") and b in (None, "")
    return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(a)))


class Crawl(FigureChecks):
    def __init__(self, client, doc: dict[str, Any]):
        self.client, self.doc = client, doc
        self.slug = doc["benchmark"]["slug"]
        self.m = doc["benchmark"]["methodology"]
        self.rules = get(self.m)
        self.runs = {r["id"]: r for r in doc["runs"]}
        self.agents = {a["slug"]: a for a in doc["agents"]}
        board = self.client.get(f"/api/benchmarks/{self.slug}/rounds/{ROUND}/board").json()
        assert board["stale"] is False and board["data"], "the board was not computed"
        self.boards: dict[str, Any] = board["data"]
        self.standings: dict[str, dict[str, Any]] = self.boards["standings"]

    def check_everything(self) -> None:
        self.every_run_has_one_standing()
        self.standings_agree_with_the_board()
        self.recount_of_the_download_is_the_board()
        self.runs_csv_and_api_say_the_standing()
        self.run_pages_say_the_standing()
        self.task_and_agent_pages_say_the_standing()
        self.board_csv_is_the_board()
        self.board_tabs_link_the_runs_that_stand()
        self.agent_pages_give_the_boards_rank_and_score()
        self.tradeoffs_give_the_boards_figures()
        self.head_to_head_agrees_with_the_board()
        self.check_figures()

    # --- the board and its standings ----------------------------------------------------------------------

    def every_run_has_one_standing(self) -> None:
        assert set(self.standings) == set(self.runs), "a run without a standing, or a standing without a run"
        for key, s in self.standings.items():
            assert s["standing"] in ("counts", "replaced", "over_limit", "in_review", "not_scored", "not_in_round")
            assert (s["standing"] == "counts") == (s["why"] is None), key
            assert not s["stands"] or s["standing"] == "counts", f"{key} stands but does not count"
            assert (s["replaced_by"] is not None) == (s["standing"] == "replaced"), key
            seen, at = {key}, s
            while at["replaced_by"]:  # a chain (a disputed run's re-run replaced by a later trial) ends somewhere
                by = self.runs[at["replaced_by"]]
                assert (by["agent"], by["task"]) == (self.runs[key]["agent"], self.runs[key]["task"]), key
                assert by["id"] not in seen, f"{key}: replaced in a circle"
                seen.add(by["id"])
                at = self.standings[by["id"]]

    def standings_agree_with_the_board(self) -> None:
        """Each agent's number on each task (the registry's `task_numbers`, what the head-to-head shows) is the
        standing run's: the same run, the same points or score; and no agent has two standing runs of a task on
        one board."""
        rows = self.boards.get("overall") or []
        for row in rows:
            for task, number in self.rules.task_numbers(self.boards, row["agent"]).items():
                run = number["run"]
                if run is None or number["value"] is None:
                    continue
                s = self.standings[run]
                assert s["stands"], f"{row['agent']} on {task}: the board's run {run} does not stand"
                own = s["points"] if self.rules.counts_outcomes else s["score"]
                assert _close(own, number["value"]), f"{run}: board {number['value']}, standing {own}"
                if number["label"] is not None:
                    assert s["outcome"] == number["label"], run
        standing_cells = Counter(
            (self.runs[k]["agent"], self.runs[k]["task"], s.get("board"))
            for k, s in self.standings.items()
            if s["stands"]
        )
        assert max(standing_cells.values(), default=1) == 1, "two runs stand for one agent on one task"
        if self.rules.counts_outcomes:
            self._outcome_rows_add_up()

    def _outcome_rows_add_up(self) -> None:
        """outcomes and weekly: a row's points are the points of the runs that count for it on that board."""
        for board in (k for k, v in self.boards.items() if isinstance(v, list) and k not in ("pairs",)):
            for row in self.boards[board]:
                counted = [
                    s
                    for k, s in self.standings.items()
                    if s["standing"] == "counts"
                    and self.runs[k]["agent"] == row["agent"]
                    and s.get("board", "overall") == board
                ]
                assert row["points"] == sum(s["points"] for s in counted), f"{board} {row['agent']} points"

    def recount_of_the_download_is_the_board(self) -> None:
        download = self.client.get(f"/b/{self.slug}/download/bundle.json")
        (counted,) = recount(json.loads(download.content))["rounds"]
        assert counted["boards"] == self.boards, "recount of the download differs from the board the site shows"

    # --- runs: downloads and API --------------------------------------------------------------------------

    def _expected_label(self, key: str) -> str:
        s = self.standings[key]
        if self.rules.counts_outcomes and s["outcome"] is None:
            return ""
        return self.runs[key].get("outcome") or ""

    def runs_csv_and_api_say_the_standing(self) -> None:
        rows = {r["run"]: r for r in _csv(self.client.get(f"/b/{self.slug}/download/runs.csv"))}
        api: dict[str, dict] = {}
        page = 1
        while True:
            answer = self.client.get(f"/api/benchmarks/{self.slug}/runs?page={page}&page_size=200").json()
            api.update({r["key"]: r for r in answer["items"]})
            if page >= answer["pages"]:
                break
            page += 1
        assert set(rows) == set(api) == set(self.runs)
        for key, s in self.standings.items():
            row, item = rows[key], api[key]
            assert row["standing"] == s["standing"] and row["counted"] == ("yes" if s["standing"] == "counts" else "no")
            assert row["why_not_counted"] == (s["why"] or "") and row["replaced_by"] == (s["replaced_by"] or "")
            assert row["median_run"] == ("yes" if s["stands"] else "no"), key
            assert row["outcome"] == (s["outcome"] or "") and row["label"] == self._expected_label(key), key
            assert _close(row["score"], s["score"]), key
            assert item["standing"] == {"board": None, **s}, key
            assert (item["counts"], item["why_not_counted"]) == (s["standing"] == "counts", s["why"]), key
            assert (item["outcome"], item["label"]) == (row["outcome"], row["label"]), key

    # --- pages ---------------------------------------------------------------------------------------------

    def _run_url(self, key: str) -> str:
        return f"/b/{self.slug}/r/{ROUND}/runs/{key}/"

    def run_pages_say_the_standing(self) -> None:
        label = self.rules.standing_label
        for key, s in self.standings.items():
            page = _text(self.client.get(self._run_url(key)))
            apart = OTHER_LANGUAGE in s["marks"]  # 000 §2: reported separately, never in the main score
            if s["standing"] == "counts":
                counts = "counts apart: reported separately" if apart else "counts in the rankings"
                assert counts in page and 'warn">does not count' not in page, key
            else:
                assert f"does not count: {s['why']}</span>" in page and "counts in the rankings" not in page, key
            if s["replaced_by"]:
                assert f'href="{self._run_url(s["replaced_by"])}"' in page, key
            assert (f'<span class="pill good">{label}</span>' in page) == (s["stands"] and not apart), key
            shown = re.search(r"(outcome|score): ([^<]+)</span>", page)
            assert shown, key
            if self.rules.counts_outcomes:
                if s["outcome"]:
                    assert shown.group(2) == s["outcome"], key
                else:
                    assert shown.group(2) not in ("pass", "partial", "fail", "violation"), key
            elif s["score"] is not None:
                assert shown.group(2) == fmt_score(s["score"], self.m), key
            document = self.client.get(f"/b/{self.slug}/r/{ROUND}/runs/{key}.json").json()
            assert document["standing"] == s, key

    def task_and_agent_pages_say_the_standing(self) -> None:
        label = self.rules.standing_label
        for task in {r["task"] for r in self.runs.values()}:
            page = _text(self.client.get(f"/b/{self.slug}/tasks/{task}/"))
            for key in (k for k, r in self.runs.items() if r["task"] == task):
                s = self.standings[key]
                chip = re.search(rf'<a class="chip([^"]*)" href="{re.escape(self._run_url(key))}"[^>]*>(.*?)</a>', page)
                assert chip, f"no chip for {key} on the task page"
                assert ("not-counted" in chip.group(1)) == (s["standing"] != "counts"), key
                # A run reported apart (another language, 000 §2) is listed apart, never as the one that stands.
                assert ("standing" in chip.group(1).split()) == (s["stands"] and OTHER_LANGUAGE not in s["marks"]), key
                if s["standing"] != "counts":
                    assert f"not counted: {s['why']}" in chip.group(2), key
        for agent in self.agents:
            page = _text(self.client.get(f"/b/{self.slug}/r/{ROUND}/agents/{agent}/"))
            rows = {
                m.group(1): m.group(0)
                for m in re.finditer(r'<tr>(?:(?!</tr>).)*?href="[^"]*/runs/([^/"]+)/"(?:(?!</tr>).)*</tr>', page)
            }
            for tab, tab_label in self.rules.tabs:  # the agent's place on each board, as the board has it
                board = self.boards.get(tab)
                row = next((r for r in board if r["agent"] == agent), None) if isinstance(board, list) else None
                if row is not None:
                    score = fmt_score(row.get(self.rules.headline_key), self.m)
                    place = f"rank {row['rank']} of {len(board)}"
                    stat = f'<span class="stat-label">{tab_label}</span><span class="stat-value">{score}</span>'
                    assert f'{stat}<span class="stat-sub">{place}</span>' in page, (agent, tab)
            for key in (k for k, r in self.runs.items() if r["agent"] == agent):
                s, row = self.standings[key], rows.get(key, "")
                assert row, f"no row for {key} on {agent}'s round page"
                assert (f"not counted: {s['why']}" in row) == (s["standing"] != "counts"), key
                stands = s["stands"] and OTHER_LANGUAGE not in s["marks"]
                assert (f'<span class="badge good">{label}</span>' in row) == stands, key

    def board_csv_is_the_board(self) -> None:
        headline = self.rules.headline_key
        for tab, _ in self.rules.tabs:
            rows = _csv(self.client.get(f"/b/{self.slug}/r/{ROUND}/board.csv?tab={tab}"))
            board = self.boards.get(tab)
            if not isinstance(board, list):
                continue
            assert [r["agent"] for r in rows] == [r["agent"] for r in board], tab
            for shown, row in zip(rows, board, strict=True):
                assert shown["rank"] == str(row["rank"]), (tab, row["agent"])
                if headline in shown:
                    assert _close(shown[headline], row.get(headline)), (tab, row["agent"], headline)

    def board_tabs_link_the_runs_that_stand(self) -> None:
        """Each tab lists the board's agents in the board's order, and a run a row links to is that agent's run
        and still in play (never one replaced or outside the round)."""
        for tab, _ in self.rules.tabs:
            page = _text(self.client.get(f"/b/{self.slug}/r/{ROUND}/?tab={tab}"))
            board = self.boards.get(tab)
            rows = re.findall(r'<tr data-agent="([^"]+)"[^>]*>(.*?)</tr>', page)
            if isinstance(board, list):
                assert [a for a, _ in rows] == [r["agent"] for r in board], tab
            for agent, row in rows:
                for key in re.findall(rf"/b/{self.slug}/r/{ROUND}/runs/([^/\"]+)/", row):
                    assert self.runs[key]["agent"] == agent, (tab, agent, key)
                    assert self.standings[key]["standing"] not in ("replaced", "not_in_round"), (tab, key)

    def agent_pages_give_the_boards_rank_and_score(self) -> None:
        headline = self.rules.headline_key
        for row in self.boards.get("overall") or []:
            page = _text(self.client.get(f"/agents/{row['agent']}/"))
            link = f"/b/{self.slug}/r/{ROUND}/agents/{row['agent']}/"
            found = re.search(
                rf'<a href="{re.escape(link)}" data-figure="headline">([^<]*)</a>.*?</td> <td class="num">([^<]*)', page
            )
            assert found, f"no round row on {row['agent']}'s page"
            assert found.group(1) == fmt_score(row.get(headline), self.m), row["agent"]
            assert found.group(2).strip() == (str(row["rank"]) if row["rank"] else "–"), row["agent"]

    def tradeoffs_give_the_boards_figures(self) -> None:
        if self.rules.tradeoff_axes is None:
            return
        page = _text(self.client.get(f"/b/{self.slug}/tradeoffs/?round={ROUND}"))
        rows = self.boards.get("overall") or []
        if 'id="no-axes"' in page:  # nothing to trade off: no agent reports cost or time
            assert all(self.rules.tradeoff_axes(r)[1:3] == (None, None) for r in rows)
            return
        for row in rows:
            found = re.search(rf'<tr data-agent="{re.escape(row["agent"])}">(.*?)</tr>', page)
            assert found, f"{row['agent']} missing from the trade-offs"
            cells = re.findall(r"<td[^>]*>(.*?)</td>", found.group(1))
            texts = [re.sub(r"<span class=\"badge[^>]*>[^<]*</span>", "", c).strip() for c in cells]
            score = self.rules.tradeoff_axes(row)[0]
            assert fmt_score(score, self.m) in texts, (row["agent"], cells)
            assert str(row["rank"]) in texts, (row["agent"], cells)
            # The marks beside the headline: the heuristic fallback where the board's row rests on it (002).
            assert marks_in(found.group(1)) == (["heuristic"] if row.get("heuristic") else []), (row["agent"], cells)

    # --- the head-to-head ------------------------------------------------------------------------------------

    def _task_places(self, agent: str) -> dict[str, float | None]:
        """What each task's board orders `agent` by, higher first: its place, negated, where blind votes rank the
        task (checks invent and startup tasks, as shown with the ratings); else its number on the task (points,
        best score, median), to nine decimals as the boards compare them."""
        out: dict[str, float | None] = {}
        task_boards = self.boards.get("tasks") if isinstance(self.boards.get("tasks"), dict) else {}
        for key, number in self.rules.task_numbers(self.boards, agent).items():
            rows = task_boards.get(key) or []
            row = next((r for r in rows if r["agent"] == agent), None)
            if row is not None and "admitted" in row:  # ranked by votes: the board's own order
                out[key] = -row["rank"] if row["rank"] is not None else None
            else:
                out[key] = rank_value(number["value"]) if number["value"] is not None else None
        return out

    def head_to_head_agrees_with_the_board(self) -> None:
        """Every two agents: on each task the one ahead is the one the task's board puts first ("same" only when
        it puts them level); the difference's tasks are listed apart, as many as the sentence and the stored pair
        say; the direct vote record is the public votes between them."""
        agents = [r["agent"] for r in self.boards.get("overall") or []]
        names = {a: self.agents[a]["name"] for a in agents}
        for a, b in itertools.combinations(agents, 2):
            page = _text(self.client.get(f"/b/{self.slug}/compare/?a={a}&b={b}&round={ROUND}"))
            mine, theirs = self._task_places(a), self._task_places(b)
            table = page.split('id="compare-table"', 1)[1].split("</table>", 1)[0]
            rows = dict(re.findall(r'<tr data-task="([^"]+)">(.*?)</tr>', table))
            assert set(rows) == set(mine) | set(theirs), f"{a} vs {b}: the tasks listed"
            for key, row in rows.items():
                cell = re.findall(r"<td>(.*?)</td>", row)[-1].replace('<span class="sub">by vote rating</span>', "")
                ahead = re.sub(r"<[^>]+>", "", cell).strip()
                x, y = mine.get(key), theirs.get(key)
                if x is None or y is None:
                    assert ahead == "not both", f"{a} vs {b} on {key}: {ahead}"
                    continue
                expected = names[a] if x > y else names[b] if y > x else "same"
                assert ahead == expected, f"{a} vs {b} on {key}: the board says {expected}, the page {ahead}"
            pair = paired_difference(self.boards.get("pairs"), a, b)
            over = re.search(r"over the (\d+) tasks? both ran", page)
            if pair is None:
                assert over is None, f"{a} vs {b}: a difference the board has not"
            else:
                inside = table.split("In the difference", 1)[1].split("</tbody>", 1)[0] if pair["tasks"] else ""
                listed = len(re.findall(r"<tr data-task=", inside))
                assert over and int(over.group(1)) == pair["tasks"] == listed, f"{a} vs {b}: tasks both ran"
            self._head_to_head_votes(page, a, b)

    def _head_to_head_votes(self, page: str, a: str, b: str) -> None:
        votes = [v for v in self.doc.get("votes") or [] if {v["a"], v["b"]} == {a, b} and v.get("counts", True)]
        if not votes:
            return
        wins_a = sum(1 for v in votes if (v["winner"] == "a") == (v["a"] == a) and v["winner"] != "tie")
        ties = sum(1 for v in votes if v["winner"] == "tie")
        record = f"In {len(votes)} counted vote{'s' if len(votes) != 1 else ''} between them:"
        assert record in page, (a, b)
        assert f"won {wins_a}," in page and f"{ties} tie" in page, (a, b)


def _shown_figures() -> dict[str, set[str]]:
    """Every figure name a page tags (`data-figure="<name>"`), by where it is tagged: the templates of every app,
    the page code's literal tags, and the figures `pages.figures` names (its filters tag those)."""
    root = Path(__file__).resolve().parents[2]
    found: dict[str, set[str]] = {}
    sources = [*root.glob("*/templates/**/*.html"), *root.glob("templates/**/*.html"), *root.glob("pages/*.py")]
    for path in sources:
        for name in re.findall(r'data-figure=\\?"([a-z_]+)', path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(str(path.relative_to(root)))
    for name in FIGURES:
        found.setdefault(name, set()).add("pages/figures.py FIGURES")
    return found


def test_the_crawler_compares_every_figure_a_page_shows():
    """A figure a page tags and the crawler does not compare could differ from the board unseen: each name a
    template or the page code tags is one the crawler reads on every surface (`crawler_figures.COMPARED`), and
    each of those is named, with what it is, in `pages.figures.FIGURES`."""
    shown = _shown_figures()
    assert {"result", "time", "marks", "pass_at_k", "range", "violations", "language"} <= set(shown)
    unread = {name: sorted(where) for name, where in shown.items() if name not in COMPARED}
    assert not unread, f"pages show figures the crawler does not compare: {unread}"
    assert set(COMPARED) <= set(FIGURES), f"compared but never described: {set(COMPARED) - set(FIGURES)}"
