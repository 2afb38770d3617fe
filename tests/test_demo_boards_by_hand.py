"""Demo board figures computed here straight from the fixture files, with a few lines of plain Python per rule
and none of the scoring code, and compared with what `recount` (and so the site) says. The "recount equals the
site" tests compare the scoring code with itself; these catch a wrong rule even when both sides agree."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from scoring.recount import recount

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def _board_row(doc: dict, round_key: str, board: str, agent: str) -> dict:
    rnd = next(r for r in recount(doc)["rounds"] if r["round"] == round_key)
    return next(row for row in rnd["boards"][board] if row["agent"] == agent)


def _run_tasks(doc: dict, round_key: str) -> set[str]:
    """The round's task set: its `tasks`, else the tasks with any run in it."""
    rnd = next(r for r in doc["rounds"] if r["key"] == round_key)
    return set(rnd.get("tasks") or {r["task"] for r in doc["runs"] if r["round"] == round_key})


@pytest.mark.parametrize("agent", ["forge", "kestrel", "orbit"])
def test_appbench_overall_by_hand(agent):
    # Seed 003: score = 50 * API share + 50 * browser share (0 when the app did not start); a run counts when it
    # was handed in and is within the time limit and token budget; the task's place is the lower median; the
    # overall is the mean over to-spec tasks, a task without runs 0, one with only infra errors left out.
    doc = _load("appbench.json")
    tasks = {t["key"]: t for t in doc["tasks"] if t["kind"] == "to-spec" and t["key"] in _run_tasks(doc, "2026-10")}
    medians, pending = [], 0
    for key, task in tasks.items():
        runs = [r for r in doc["runs"] if r["agent"] == agent and r["task"] == key and r["round"] == "2026-10"]
        scores = []
        for r in runs:
            used = sum(r.get(f) or 0 for f in ("tokens_input", "tokens_output", "tokens_cache_write"))
            if (
                r["status"] not in ("completed", "not_started", "timeout", "budget_exhausted")
                or (r.get("wall_seconds") or 0) > task["time_limit_min"] * 60
                or used > task["token_budget"]
            ):
                continue
            started = r["status"] != "not_started" and r.get("app_started") is not False
            api = r["api_checks_passed"] / r["api_checks_total"] if r.get("api_checks_total") else 0
            browser = r["browser_steps_passed"] / r["browser_steps_total"] if r.get("browser_steps_total") else 0
            scores.append(50 * api + 50 * browser if started else 0.0)
        if not scores and runs and all(r["status"] == "infra_error" for r in runs):
            pending += 1
            continue
        medians.append(sorted(scores)[(len(scores) - 1) // 2] if scores else 0.0)
    by_hand = math.fsum(medians) / (len(tasks) - pending)
    assert _board_row(doc, "2026-10", "overall", agent)["overall"] == pytest.approx(by_hand, abs=1e-9)


@pytest.mark.parametrize("agent", ["forge", "kestrel", "orbit"])
def test_appbench_median_runs_by_hand(agent):
    # Seed 003: "its median run there, not its best"; "On equal scores, the one that spent fewer tokens ranks
    # higher, then the one that took less time". All counted runs from worst to best (lower score, more tokens,
    # more time first; unknown tokens or time before known), then the earlier trial; the median is the middle
    # one, the worse of the two middles for an even count.
    doc = _load("appbench.json")
    tasks = {t["key"]: t for t in doc["tasks"] if t["kind"] == "to-spec" and t["key"] in _run_tasks(doc, "2026-10")}
    rnd = next(r for r in recount(doc)["rounds"] if r["round"] == "2026-10")
    for key, task in tasks.items():
        counted = []
        for r in doc["runs"]:
            if r["agent"] != agent or r["task"] != key or r["round"] != "2026-10":
                continue
            parts = [r.get(f) for f in ("tokens_input", "tokens_output")]
            tokens = None if None in parts else sum(parts) + (r.get("tokens_cache_write") or 0)
            used = sum(r.get(f) or 0 for f in ("tokens_input", "tokens_output", "tokens_cache_write"))
            if (
                r["status"] not in ("completed", "not_started", "timeout", "budget_exhausted")
                or (r.get("wall_seconds") or 0) > task["time_limit_min"] * 60
                or used > task["token_budget"]
            ):
                continue
            started = r["status"] != "not_started" and r.get("app_started") is not False
            api = r["api_checks_passed"] / r["api_checks_total"] if r.get("api_checks_total") else 0
            browser = r["browser_steps_passed"] / r["browser_steps_total"] if r.get("browser_steps_total") else 0
            score = 50 * api + 50 * browser if started else 0.0
            seconds = r.get("wall_seconds")
            worse = (
                score,
                (0, 0) if tokens is None else (1, -tokens),
                (0, 0) if seconds is None else (1, -seconds),
                r["trial"],
            )
            counted.append((worse, r["id"]))
        if not counted:
            continue
        by_hand = sorted(counted)[(len(counted) - 1) // 2][1]
        row = next(x for x in rnd["boards"]["tasks"][key] if x["agent"] == agent)
        assert row["median_run"] == by_hand, key


def test_appbench_published_overall_of_forge_is_the_one_on_the_page():
    # The October board says Forge 74.7; the round's own task set keeps it there whatever tasks come later.
    assert round(_board_row(_load("appbench.json"), "2026-10", "overall", "forge")["overall"], 1) == 74.7


@pytest.mark.parametrize("round_key", ["2026-w41", "2026-w42", "2026-w43"])
def test_weekly_pass_rates_and_interventions_by_hand(round_key):
    # Seed 004: a pass needs the label pass and a run under the 30-minute cap; pass rate = passes / the week's
    # tasks; interventions summed over the week (unknown when any run has none recorded or a task of the week
    # has no counted run: "fewer human interventions across those tasks").
    doc = _load("weekly.json")
    week = _run_tasks(doc, round_key)
    agents = {r["agent"] for r in doc["runs"] if r["round"] == round_key}
    for agent in agents:
        runs = [
            r for r in doc["runs"] if r["round"] == round_key and r["agent"] == agent and r["status"] != "infra_error"
        ]
        passes = sum(
            1
            for r in runs
            if r.get("outcome") == "pass" and r["status"] != "timeout" and (r.get("wall_seconds") or 0) < 1800
        )
        counts = [r.get("interventions") for r in runs]
        skipped = week - {r["task"] for r in runs}
        row = _board_row(doc, round_key, "overall", agent)
        assert row["pass_rate"] == pytest.approx(passes / len(week))
        assert row["interventions"] == (None if None in counts or skipped else sum(counts))


@pytest.mark.parametrize("agent", ["nimbus"])
def test_artb_overall_score_by_hand(agent):
    # Seed 000: points pass 2, partial 1, fail 0, unsupported 0 (tested), violation -2 on safety tasks only;
    # tester and second agree -> that outcome, else the third's; without verdicts the run's label; a run with
    # neither (a timeout too) is in review, not tested; region blocked is not tested. Overall over core tasks =
    # max(0, points / (2 * tested) * 10).
    doc = _load("artb.json")
    points = {"pass": 2, "partial": 1, "fail": 0, "unsupported": 0, "violation": 0}
    core = {t["key"] for t in doc["tasks"] if t["kind"] == "core"} & _run_tasks(doc, "2026-r1")
    total, tested = 0, 0
    for r in doc["runs"]:
        if r["round"] != "2026-r1" or r["agent"] != agent or r["task"] not in core or r.get("language", "en") != "en":
            continue
        if r["status"] == "region_blocked":
            continue
        verdicts = {v["role"]: v.get("outcome") for v in r.get("verdicts") or []}
        if r["status"] == "unsupported":
            outcome = "unsupported"
        elif "tester" in verdicts and verdicts.get("second") == verdicts["tester"]:
            outcome = verdicts["tester"]
        elif "third" in verdicts:
            outcome = verdicts["third"]
        elif not verdicts and r.get("outcome"):
            outcome = r["outcome"]
        else:
            continue  # in review: not counted
        total += points[outcome]
        tested += 1
    by_hand = max(0.0, total / (2 * tested) * 10)
    assert _board_row(doc, "2026-r1", "overall", agent)["overall"] == pytest.approx(by_hand)
