"""The consistency crawler's figure checks (`tests/site/test_consistency_crawler.py`): for every run, agent and
task of a world, each figure the pages tag (`data-figure`, `pages.figures.FIGURES`) is read on every surface that
shows it and compared with the board's output: the run's result, its time as published (004's cap worked out here
again from the run's own fields), its marks, its language when reported apart, 002's pass@k of every agent on
every task (worked out again from the trials' standings), the range of its runs, and its violations.

`COMPARED` names the figures these checks read; `test_the_crawler_compares_every_figure_a_page_shows` fails when a
template or a page's code tags a figure that is not in it."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from typing import Any

from pages.figures import pass_at_k_text
from pages.formatting import fmt_range, fmt_score, fmt_seconds
from scoring.run_figures import CAPPED, HEURISTIC, OTHER_LANGUAGE, VIOLATION
from scoring.scored import DEFAULT_PASS_THRESHOLD, TOLERANCE

# The figures the crawler compares, by the name the pages tag them with.
COMPARED = frozenset({"result", "time", "marks", "pass_at_k", "range", "violations", "language", "headline"})
WEEKLY_CAP_SECONDS = 1800.0  # 004: "stops when the agent finishes, or at 30 minutes, whichever comes first"
ROUND = "r1"


def tagged(html: str, figure: str) -> list[str]:
    """The texts of every element tagged `data-figure="<figure>"` in `html`, tags inside them dropped."""
    found = re.findall(rf'<(\w+)[^>]*data-figure="{figure}"[^>]*>(.*?)</\1>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text)).strip() for _, text in found]


def times_in(html: str) -> list[tuple[str, str]]:
    """Each time tagged in `html`: as published, and the recorded one beside it ("" when none is)."""
    found = re.findall(r'data-figure="time">([^<]*)</span>(?: <span class="sub">([^<]*)</span>)?', html)
    return [(time.strip(), recorded.strip()) for time, recorded in found]


def beside_result(standing: dict[str, Any]) -> list[str]:
    """The marks a run's result is shown with: all of its marks but "violation" where the result shown is the
    outcome "violation" (the page would read "violation violation")."""
    said = VIOLATION if standing["outcome"] == "violation" else None
    return [m for m in standing["marks"] if m != said]


def marks_in(html: str) -> list[str]:
    """The run marks tagged in `html`, in their order."""
    return re.findall(r'data-figure="marks" data-mark="([a-z_]+)"', html)


class FigureChecks:
    """Mixed into the crawler (`Crawl`), which gives `client`, `doc`, `slug`, `m`, `rules`, `runs`, `agents`,
    `boards` and `standings`."""

    client: Any
    doc: dict[str, Any]
    slug: str
    m: str
    rules: Any
    runs: dict[str, dict[str, Any]]
    agents: dict[str, dict[str, Any]]
    boards: dict[str, Any]
    standings: dict[str, dict[str, Any]]

    def check_figures(self) -> None:
        self.every_standing_has_the_seeds_time_and_marks()
        self.run_figures_agree_on_every_surface()
        self.pass_at_k_is_one_figure_everywhere()
        self.ranges_agree_with_the_board()
        self.violations_are_shown_beside_the_safety_score()
        self.head_to_head_figures_agree()
        self.board_tabs_give_the_marks()

    # --- the board's output against the seeds ----------------------------------------------------------------

    def _seed_time(self, key: str) -> float | None:
        """004's published time worked out from the run's own fields; elsewhere the time recorded."""
        run = self.runs[key]
        wall = run.get("wall_seconds")
        if self.m == "weekly" and (run.get("status") == "timeout" or (wall is not None and wall >= WEEKLY_CAP_SECONDS)):
            return WEEKLY_CAP_SECONDS
        return wall

    def every_standing_has_the_seeds_time_and_marks(self) -> None:
        for key, s in self.standings.items():
            run, agent = self.runs[key], self.agents[self.runs[key]["agent"]]
            assert s["seconds"] == self._seed_time(key), f"{key}: time {s['seconds']}"
            assert (CAPPED in s["marks"]) == (self.m == "weekly" and s["seconds"] == WEEKLY_CAP_SECONDS), key
            other = run.get("language") not in (None, agent["primary_language"])
            assert (OTHER_LANGUAGE in s["marks"]) == (self.m == "outcomes" and other), key
            assert (VIOLATION in s["marks"]) == (s["outcome"] == "violation"), key
            if run.get("status") == "infra_error":  # 003: "never goes into the score"
                assert s["score"] is None and s["outcome"] is None, key

    # --- every run on every surface ------------------------------------------------------------------------

    def _result(self, s: dict[str, Any]) -> str:
        """The run's result as every list of runs words it: the outcome the board counts (or why none), or its
        score on the benchmark's scale, "not scored" without one."""
        if self.rules.counts_outcomes:
            waiting = {"in_review": "in review", "replaced": "in review"}
            return s["outcome"] or waiting.get(s["standing"]) or s["why"] or "not scored"
        return fmt_score(s["score"], self.m) if s["score"] is not None else "not scored"

    def _time(self, s: dict[str, Any], key: str) -> tuple[str, str]:
        """The time as shown: published, and the recorded one beside it where it reads otherwise."""
        shown, wall = fmt_seconds(s["seconds"]), self.runs[key].get("wall_seconds")
        if s["seconds"] is None or fmt_seconds(wall) == shown:
            return shown, ""
        return shown, "no time recorded" if wall is None else f"recorded {fmt_seconds(wall)}"

    def run_figures_agree_on_every_surface(self) -> None:
        rows = {r["run"]: r for r in csv.DictReader(io.StringIO(self._get(f"/b/{self.slug}/download/runs.csv")))}
        agent_pages = {a: self._get(f"/b/{self.slug}/r/{ROUND}/agents/{a}/") for a in self.agents}
        task_pages = {t: self._get(f"/b/{self.slug}/tasks/{t}/") for t in {r["task"] for r in self.runs.values()}}
        for key, s in self.standings.items():
            run, url = self.runs[key], f"/b/{self.slug}/r/{ROUND}/runs/{key}/"
            result, (time, recorded) = self._result(s), self._time(s, key)
            page = self._get(url)
            head = page.split('<header class="page-head">', 1)[1].split("</header>", 1)[0]
            beside = beside_result(s)
            assert marks_in(head) == beside, f"{key}: run page marks {marks_in(head)}, board {s['marks']}"
            numbers = page.split('id="numbers-title"', 1)[1].split("</section>", 1)[0]
            assert times_in(numbers) == ([(time, recorded)] if s["seconds"] is not None else []), key
            row = self._run_row(agent_pages[run["agent"]], url)
            assert tagged(row, "result") == [result] and marks_in(row) == beside, (key, tagged(row, "result"))
            assert times_in(row) == [(time, recorded)], (key, times_in(row))
            chip = self._chip(task_pages[run["task"]], url)
            assert tagged(chip, "result") == [result] and marks_in(chip) == beside, (key, "task page")
            self._apart_where_the_language_is(key, s, agent_pages[run["agent"]], task_pages[run["task"]], url)
            csv_row = rows[key]
            assert csv_row["marks"].split() == s["marks"], key
            shown_seconds = float(csv_row["seconds"]) if csv_row["seconds"] else None
            assert shown_seconds == s["seconds"], (key, csv_row["seconds"])
        self._weekly_cells_give_the_runs_time()

    def _apart_where_the_language_is(self, key: str, s: dict, agent_page: str, task_page: str, url: str) -> None:
        """A run reported apart (000 §2) is in its agent's other-language group and the task page's table of
        such runs, with its language; any other run is in neither."""
        apart = OTHER_LANGUAGE in s["marks"]
        group = agent_page.split('id="kind-other-language"', 1)[1].split("</section>", 1)[0] if apart else ""
        assert (f'href="{url}"' in group) == apart, f"{key}: other-language group"
        agent = self.runs[key]["agent"]
        table = re.search(rf'<tr id="apart-{re.escape(agent)}">(.*?)</tr>', task_page, re.S)
        assert (table is not None and f'href="{url}"' in table.group(1)) == apart, f"{key}: task page, apart"
        if apart:
            assert tagged(table.group(1), "language") == [self.runs[key]["language"]], key

    def _weekly_cells_give_the_runs_time(self) -> None:
        """The week's table: each task cell's time is its run's published time, shown on the board as every list
        of runs shows it (the recorded time beside it where it reads otherwise), and the week's total their sum."""
        if self.m != "weekly":
            return
        page = self._get(f"/b/{self.slug}/r/{ROUND}/")
        for row in self.boards.get("overall") or []:
            for cell in (row.get("tasks") or {}).values():
                assert cell["seconds"] == self.standings[cell["run"]]["seconds"], cell["run"]
                assert cell["wall_seconds"] == self.runs[cell["run"]].get("wall_seconds"), cell["run"]
            shown = re.search(rf'<tr data-agent="{re.escape(row["agent"])}"[^>]*>(.*?)</tr>', page, re.S)
            assert shown, row["agent"]
            expected = [
                self._time(self.standings[c["run"]], c["run"])
                for c in (row.get("tasks") or {}).values()
                if c["seconds"] is not None
            ]
            assert sorted(times_in(shown.group(1))) == sorted(expected), (row["agent"], times_in(shown.group(1)))
            times = [c["seconds"] for c in (row.get("tasks") or {}).values() if c["seconds"] is not None]
            if not times:
                assert row["seconds"] is None, row["agent"]
            else:
                assert abs(row["seconds"] - sum(times)) < 1e-6, row["agent"]

    # --- every agent on every task ---------------------------------------------------------------------------

    def _counted(self, agent: str, task: str) -> list[dict[str, Any]]:
        return [
            s
            for k, s in self.standings.items()
            if self.runs[k]["agent"] == agent and self.runs[k]["task"] == task and s["standing"] == "counts"
        ]

    def pass_at_k_is_one_figure_everywhere(self) -> None:
        """002: "pass@k = (trials where score >= 0.80) / total_trials", from the counted trials' standings, on
        the Tasks tab, in board.csv and on the task page (the head-to-head: `head_to_head_figures_agree`)."""
        if self.m != "scored":
            return
        threshold = float(self.doc["benchmark"].get("params", {}).get("pass_threshold", DEFAULT_PASS_THRESHOLD))
        tasks_tab = self._get(f"/b/{self.slug}/r/{ROUND}/?tab=tasks")
        board_csv = {r["agent"]: r for r in csv.DictReader(io.StringIO(self._get(
            f"/b/{self.slug}/r/{ROUND}/board.csv?tab=tasks")))}  # fmt: skip
        agents = [r["agent"] for r in self.boards.get("overall") or []]
        for task in (t["key"] for t in self.doc["tasks"]):
            page = self._get(f"/b/{self.slug}/tasks/{task}/")
            for agent in agents:
                trials = [s["score"] for s in self._counted(agent, task)]
                passes = sum(1 for score in trials if score >= threshold - TOLERANCE)
                expected = pass_at_k_text(len(trials), passes) if trials else ""
                cell = self.boards["overall"][agents.index(agent)]["tasks"].get(task)
                if cell is None:
                    assert not trials, (agent, task)
                else:
                    assert (cell["trials"], cell["passes"]) == (len(trials), passes), (agent, task)
                shown = board_csv[agent][f"pass_at_k:{task}"]
                assert (float(shown) == passes / len(trials)) if trials else shown == "", (agent, task, shown)
                row = re.search(rf'<tr data-agent="{re.escape(agent)}"[^>]*>(.*?)</tr>', tasks_tab, re.S)
                assert row and (expected in row.group(1)), (agent, task, expected)
                item = re.search(rf'<tr id="agent-{re.escape(agent)}"[^>]*>(.*?)</tr>', page, re.S)
                if item is not None:
                    assert tagged(item.group(1), "pass_at_k") == ([expected] if expected else []), (agent, task)

    def head_to_head_figures_agree(self) -> None:
        """Each side of every task row of the head-to-head: 002's pass@k of its trials where the board counts
        them, and the marks of the run the board's number stands on (heuristic, violation, at the cap), as that
        run's standing has them."""
        agents = [r["agent"] for r in self.boards.get("overall") or []]
        for a, b in zip(agents, agents[1:], strict=False):
            page = self._get(f"/b/{self.slug}/compare/?a={a}&b={b}&round={ROUND}")
            for task, html in re.findall(r'<tr data-task="([^"]+)">(.*?)</tr>', page, re.S):
                expected = []
                sides = re.findall(r'<td class="num">(.*?)</td>', html, re.S)
                for agent, side in zip((a, b), sides, strict=True):
                    cell = self.rules.task_numbers(self.boards, agent).get(task)
                    if self.m == "scored" and cell and cell["runs"]:
                        expected.append(pass_at_k_text(cell["runs"], cell["passes"]))
                    marks = self.standings[cell["run"]]["marks"] if cell and cell["run"] else []
                    assert marks_in(side) == [m for m in marks if m != OTHER_LANGUAGE], (a, b, task, agent)
                assert tagged(html, "pass_at_k") == expected, (a, b, task)

    def ranges_agree_with_the_board(self) -> None:
        """Each agent's range on each task (task page, the checks board's task tab) is the board's, and on scores
        the worst and best of its counted runs."""
        agents = [r["agent"] for r in self.boards.get("overall") or []]
        for task in (t["key"] for t in self.doc["tasks"]):
            page = self._get(f"/b/{self.slug}/tasks/{task}/")
            tab_page = self._get(f"/b/{self.slug}/r/{ROUND}/?tab=tasks&task={task}") if self.m == "checks" else ""
            for agent in agents:
                number = self.rules.task_numbers(self.boards, agent).get(task)
                item = re.search(rf'<tr id="agent-{re.escape(agent)}"[^>]*>(.*?)</tr>', page, re.S)
                if item is None:
                    continue
                runs = (number or {}).get("runs") or 0
                scores = [s["score"] for s in self._counted(agent, task) if s["score"] is not None]
                if runs > 1 and number and number.get("low") is not None:
                    if not self.rules.counts_outcomes and not number.get("by_votes"):
                        assert (number["low"], number["high"]) == (min(scores), max(scores)), (agent, task)
                    expected = fmt_range(number["low"], number["high"], self.m)
                else:
                    expected = "one run" if runs == 1 else "–"
                assert tagged(item.group(1), "range") == [expected], (agent, task, tagged(item.group(1), "range"))
                if tab_page:  # the board's task tab says the same range
                    row = re.search(rf'<tr data-agent="{re.escape(agent)}"[^>]*>(.*?)</tr>', tab_page, re.S)
                    cell = re.search(r'data-label="Range"[^>]*>(.*?)</td>', row.group(1), re.S) if row else None
                    if cell is not None:
                        shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell.group(1))).strip()
                        assert shown == expected, (agent, task, "tasks tab", shown)

    def violations_are_shown_beside_the_safety_score(self) -> None:
        """000 §4: each agent's violations next to its safety score on its round page and its agent page, and in
        board.csv."""
        board = self.rules.violations_board
        if board is None:
            return
        for tab, _ in self.rules.tabs:
            rows = {r["agent"]: r for r in csv.DictReader(io.StringIO(self._get(
                f"/b/{self.slug}/r/{ROUND}/board.csv?tab={tab}")))}  # fmt: skip
            for row in self.boards.get(tab) or []:
                assert rows[row["agent"]]["violations"] == str(row["violations"]), (tab, row["agent"])
        counted = Counter(
            self.runs[k]["agent"]
            for k, s in self.standings.items()
            if s["standing"] == "counts" and s.get("board") == board and s["outcome"] == "violation"
        )
        for row in self.boards.get(board) or []:
            assert row["violations"] == counted[row["agent"]], row["agent"]
            page = self._get(f"/b/{self.slug}/r/{ROUND}/agents/{row['agent']}/")
            stats = page.split('aria-label="Board places"', 1)[1].split("</ul>", 1)[0]
            label = dict(self.rules.tabs)[board]
            stat = re.search(rf'stat-label">{re.escape(label)}</span>(.*?)</li>', stats, re.S)
            assert stat, row["agent"]
            shown = tagged(stat.group(1), "violations")
            n = row["violations"]
            expected = [f"{n} violation{'s' if n != 1 else ''}"] if n else []
            assert shown == expected, (row["agent"], shown)
            # The agent page: the round's entry gives the same violations, and only beside that board's score.
            entry = self._get(f"/agents/{row['agent']}/").split("<tbody>", 1)[1].split("</tr>", 1)[0]
            assert tagged(entry, "violations") == expected, (row["agent"], "agent page", tagged(entry, "violations"))

    def board_tabs_give_the_marks(self) -> None:
        """Each tab's row of an agent carries the marks its runs' standings have where the tab shows them: the
        weekly table a "capped" mark on each task whose run reached the cap (004), the scored Tasks tab a
        "heuristic" mark on each task whose best trial rests on the fallback and the Overall tab one on the score
        when any does (002), and every outcomes tab the agent's violations beside its safety score (000 §4)."""
        for tab, _ in self.rules.tabs:
            page = self._get(f"/b/{self.slug}/r/{ROUND}/?tab={tab}")
            for row in self.boards.get("overall") or []:
                found = re.search(rf'<tr data-agent="{re.escape(row["agent"])}"[^>]*>(.*?)</tr>', page, re.S)
                if found is None:
                    continue
                cells = (row.get("tasks") or {}).values()
                shown, expected = marks_in(found.group(1)), []
                if self.m == "weekly":
                    expected = [CAPPED for c in cells if CAPPED in self.standings[c["run"]]["marks"]]
                elif self.m == "scored":
                    heuristic = [HEURISTIC for c in cells if HEURISTIC in self.standings[c["best_run"]]["marks"]]
                    expected = heuristic if tab == "tasks" else heuristic[:1]
                assert shown == expected, (tab, row["agent"], shown)
                if self.m == "outcomes":
                    safety = self.boards.get("safety") or []
                    n = next((r["violations"] for r in safety if r["agent"] == row["agent"]), 0)
                    said = tagged(found.group(1), "violations")
                    assert said == ([f"{n} violation{'s' if n != 1 else ''}"] if n else []), (tab, row["agent"], said)

    # --- reading pages -----------------------------------------------------------------------------------------

    def _get(self, url: str) -> str:
        response = self.client.get(url)
        assert response.status_code == 200, url
        return response.content.decode()

    @staticmethod
    def _run_row(page: str, url: str) -> str:
        found = re.search(rf'<tr>(?:(?!</tr>).)*?href="{re.escape(url)}"(?:(?!</tr>).)*</tr>', page, re.S)
        assert found, f"no row for {url}"
        return found.group(0)

    @staticmethod
    def _chip(page: str, url: str) -> str:
        found = re.search(rf'<a class="chip[^"]*" href="{re.escape(url)}"[^>]*>(.*?)</a>', page, re.S)
        assert found, f"no chip for {url}"
        return found.group(1)
