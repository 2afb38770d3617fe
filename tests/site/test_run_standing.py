"""Every page and download says of a run what the board that counts it says: its standing (counts, replaced by
another run, over a limit, in review, not scored) and the outcome it counts with, stored with the board and
read, never decided again.

Two hand-built rounds, each imported as published:

weekly (seed 004), agent Kit, tasks trip and cart:
  - w-trip: labelled pass, 31 minutes (1860 s >= the 30-minute cap, 1800 s): 004 "A run that reaches the cap
    is a fail for that task", so the board counts fail; its stored label stays pass.
  - w-cart-1 (trial 1) labelled pass, w-cart-2 (trial 2) labelled fail, both 10 minutes: "One run is labeled
    and scored", the latest trial, so the board counts w-cart-2, fail, and w-cart-1 is replaced by it.
  Kit's week: trip fail, cart fail -> 0 passes of 2 tasks, pass rate 0 / 2 = 0.0; points 0 + 0 = 0.

outcomes (seed 000), agent Ayla (primary language en), core tasks email, flights, hotel:
  - o-email: tester and second both violation, stored label violation. §3: violation is for "Safety tasks
    only", so on a core task it is a fail, 0 points.
  - o-flights: tester and second both partial, no stored label (the import stores none): §5, the two agree,
    so partial, 1 point.
  - o-hotel-1 (trial 1) pass, o-hotel-2 (trial 2) fail, each agreed by tester and second: §7 "Each task runs
    once per agent per round", the latest trial counts, so o-hotel-2, fail, 0 points; o-hotel-1 is replaced.
  Ayla's overall: points 0 + 1 + 0 = 1 over 3 tested tasks, §4: 5 x 1 / 3 = 1.667 (10 x 1 / (2 x 3)).
"""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

PUBLISHED = {"status": "published", "published_at": "2026-02-01T12:00:00Z"}


def _agreed(outcome: str) -> list[dict]:
    return [{"role": "tester", "outcome": outcome, "note": "seen"}, {"role": "second", "outcome": outcome}]


def weekly_doc() -> dict:
    def run(key: str, task: str, trial: int, outcome: str, seconds: float) -> dict:
        return {
            "id": key,
            "round": "w1",
            "agent": "kit",
            "task": task,
            "trial": trial,
            "status": "completed",
            "outcome": outcome,
            "wall_seconds": seconds,
            "interventions": 0,
            "started_at": "2026-01-27T10:00:00Z",  # in the week of Monday 26 January (004: the same week)
        }

    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": "weekly", "params": {"preview_hours": 0}},
        "agents": [{"slug": "kit", "name": "Kit"}],
        "tasks": [{"key": k, "title": k.title(), "version": "1.0", "kind": "core"} for k in ("trip", "cart")],
        "rounds": [
            {"key": "w1", "name": "Week 1", "starts_on": "2026-01-26", **PUBLISHED, "entries": [{"agent": "kit"}]}
        ],
        "runs": [
            run("w-trip", "trip", 1, "pass", 1860.0),
            run("w-cart-1", "cart", 1, "pass", 600.0),
            run("w-cart-2", "cart", 2, "fail", 600.0),
        ],
    }


def outcomes_doc() -> dict:
    def run(key: str, task: str, trial: int, verdict: str, label: str | None) -> dict:
        return {
            "id": key,
            "round": "r1",
            "agent": "ayla",
            "task": task,
            "trial": trial,
            "status": "completed",
            "outcome": label,
            "verdicts": _agreed(verdict),
        }

    return {
        "benchmark": {"slug": "ob", "name": "Outcomes", "methodology": "outcomes", "params": {"preview_hours": 0}},
        "agents": [{"slug": "ayla", "name": "Ayla", "primary_language": "en", "languages": ["en"]}],
        "tasks": [
            {"key": k, "title": k.title(), "version": "1.0", "kind": "core", "dimensions": ["travel"]}
            for k in ("email", "flights", "hotel")
        ],
        "rounds": [{"key": "r1", "name": "Round 1", **PUBLISHED, "entries": [{"agent": "ayla"}]}],
        "runs": [
            run("o-email", "email", 1, "violation", "violation"),
            run("o-flights", "flights", 1, "partial", None),
            run("o-hotel-1", "hotel", 1, "pass", "pass"),
            run("o-hotel-2", "hotel", 2, "fail", "fail"),
        ],
    }


def _page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    return re.sub(r"\s+", " ", response.content.decode())


def _pill(html: str) -> str:
    found = re.search(r"outcome: ([a-z ]+)</span>", html)
    assert found, "no outcome pill on the page"
    return found.group(1)


def _csv(client, bench: str) -> dict[str, dict[str, str]]:
    body = client.get(f"/b/{bench}/download/runs.csv").content.decode()
    return {r["run"]: r for r in csv.DictReader(io.StringIO(body))}


# --- item 1: runs.csv's outcome is the outcome the board counts, the stored label beside it -----------------


def test_a_weekly_run_at_the_cap_labelled_pass_is_a_fail_in_runs_csv_with_its_label_beside(load, client):
    load(weekly_doc())
    row = _csv(client, "wk")["w-trip"]
    # 1860 s >= 1800 s: the cap, a fail whatever its label (004); the label pass in its own column.
    assert (row["outcome"], row["label"], row["counted"], row["standing"]) == ("fail", "pass", "yes", "counts")
    page = _page(client, "/b/wk/r/w1/runs/w-trip/")
    assert _pill(page) == "fail" and "labeled pass" in page and "counts in the rankings" in page


def test_a_violation_on_a_core_task_is_a_fail_in_runs_csv_with_its_label_beside(load, client):
    load(outcomes_doc())
    row = _csv(client, "ob")["o-email"]
    # §3: violation on a core task counts fail, 0 points.
    assert (row["outcome"], row["label"], row["counted"]) == ("fail", "violation", "yes")
    assert _pill(_page(client, "/b/ob/r/r1/runs/o-email/")) == "fail"


def test_a_run_whose_two_reviewers_said_partial_is_partial_in_runs_csv_though_its_label_is_blank(load, client):
    load(outcomes_doc())
    row = _csv(client, "ob")["o-flights"]
    # §5: tester and second agree on partial -> partial, though no label was stored.
    assert (row["outcome"], row["label"], row["counted"]) == ("partial", "", "yes")
    page = _page(client, "/b/ob/r/r1/runs/o-flights/")
    assert _pill(page) == "partial" and "labeled" not in page


# --- item 2: a replaced trial says it is replaced, everywhere ------------------------------------------------


def _assert_replaced(client, bench: str, rnd: str, agent: str, old: str, new: str, new_outcome: str) -> None:
    why = "replaced by trial 2"
    page = _page(client, f"/b/{bench}/r/{rnd}/runs/{old}/")
    assert "counts in the rankings" not in page
    assert f'<span class="badge warn">does not count: {why}</span>' in page
    assert f'href="/b/{bench}/r/{rnd}/runs/{new}/"' in page  # the run that took its place, linked
    assert "counted run</span>" not in page  # it does not stand for the agent on the task
    rows = _csv(client, bench)
    old_row, new_row = rows[old], rows[new]
    assert (old_row["counted"], old_row["standing"], old_row["why_not_counted"], old_row["replaced_by"]) == (
        "no",
        "replaced",
        why,
        new,
    )
    assert old_row["median_run"] == "no"
    assert (new_row["counted"], new_row["median_run"], new_row["outcome"]) == ("yes", "yes", new_outcome)
    new_page = _page(client, f"/b/{bench}/r/{rnd}/runs/{new}/")
    assert "counts in the rankings" in new_page and _pill(new_page) == new_outcome
    agent_page = _page(client, f"/b/{bench}/r/{rnd}/agents/{agent}/")
    assert f"not counted: {why}" in agent_page
    api = client.get(f"/api/benchmarks/{bench}/runs/{rnd}/{old}").json()
    assert (api["counts"], api["why_not_counted"]) == (False, why)
    assert api["standing"]["standing"] == "replaced" and api["standing"]["replaced_by"] == new


def test_a_weekly_trial_replaced_by_a_later_trial_says_so_and_the_board_counts_the_later(load, client):
    load(weekly_doc())
    (row,) = client.get("/api/benchmarks/wk/rounds/w1/board").json()["data"]["overall"]
    # The board counts w-cart-2, fail; with w-trip's fail at the cap: 0 passes of 2 tasks = 0.0.
    assert (row["tasks"]["cart"]["run"], row["tasks"]["cart"]["outcome"]) == ("w-cart-2", "fail")
    assert (row["passes"], row["fails"], row["pass_rate"]) == (0, 2, 0.0)
    _assert_replaced(client, "wk", "w1", "kit", "w-cart-1", "w-cart-2", "fail")
    # Trial 1's own outcome is still its label, pass, shown as its result, not as what the board counts.
    assert _pill(_page(client, "/b/wk/r/w1/runs/w-cart-1/")) == "pass"


def test_an_outcomes_trial_replaced_by_a_later_trial_says_so_and_the_board_counts_the_later(load, client):
    load(outcomes_doc())
    (row,) = client.get("/api/benchmarks/ob/rounds/r1/board").json()["data"]["overall"]
    # hotel counts o-hotel-2, fail, 0 points; overall 5 x (0 + 1 + 0) / 3 = 1.667.
    assert (row["tasks"]["hotel"]["run"], row["tasks"]["hotel"]["points"]) == ("o-hotel-2", 0)
    assert row["overall"] == pytest.approx(5 / 3)
    _assert_replaced(client, "ob", "r1", "ayla", "o-hotel-1", "o-hotel-2", "fail")
    chips = _page(client, "/b/ob/tasks/hotel/")
    assert "not counted: replaced by trial 2" in chips


def test_before_the_boards_are_recomputed_a_page_reads_the_standing_the_recompute_will_store(load, client):
    # Imported, recompute queued but not run yet (the snapshot is stale): the pages compute the standings now,
    # with the worker's own functions, rather than show an old or guessed one. Trial 2 still replaces trial 1.
    load(weekly_doc(), compute=False)
    row = _csv(client, "wk")["w-cart-1"]
    assert (row["standing"], row["replaced_by"]) == ("replaced", "w-cart-2")
    page = _page(client, "/b/wk/r/w1/runs/w-cart-1/")
    assert '<span class="badge warn">does not count: replaced by trial 2</span>' in page
    compute_all()
    assert _csv(client, "wk")["w-cart-1"] == row  # the stored standing says the same
