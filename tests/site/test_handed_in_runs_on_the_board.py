"""A checks run stopped at the time limit is handed in (003 "The run": "Whatever is in /work at that moment is
what's handed in"): the board, its download and the run pages count it; a completed run past the limit and a run
over its token budget say why they do not count. A checks task without a limit is refused at import, naming it."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest

from bundles.importer import bundle_import
from scoring.bundle import BundleError
from tests.builders.site import checks_handed_in_bundle

pytestmark = pytest.mark.django_db


def _rows(response) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_board_counts_the_timed_out_run_and_moves_the_median_and_the_overall(load, client):
    load(checks_handed_in_bundle())
    # stopped on shop: the timeout at 3,600.5 s of 3,600 s (4/4, 2/2 -> 100), completed 75 and 50: median of
    # (50, 75, 100) = 75, over 3 runs, range 50-100 (leaving the timeout out gave the lower middle of (50, 75):
    # 50 over 2 runs).
    shop = {r["agent"]: r for r in _rows(client.get("/b/hbench/r/r1/board.csv?tab=tasks&task=shop"))}
    assert (float(shop["stopped"]["median"]), shop["stopped"]["runs"]) == (75.0, "3")
    assert (float(shop["stopped"]["range_min"]), float(shop["stopped"]["range_max"])) == (50.0, 100.0)
    # Overall: stopped (75 + 50) / 2 = 62.5 (was 50), steady (62.5 + 50) / 2 = 56.25: stopped ranks first.
    overall = _rows(client.get("/b/hbench/r/r1/board.csv?tab=overall"))
    assert [(r["agent"], float(r["overall"]), r["rank"]) for r in overall] == [
        ("stopped", 62.5, "1"),
        ("steady", 56.25, "2"),
    ]
    board = _text(client.get("/b/hbench/").content.decode())
    assert board.index("Stopped") < board.index("Steady")
    assert "62.5" in board and "56.3" in board


def test_the_run_pages_and_runs_csv_say_which_runs_count_and_why_the_others_do_not(load, client):
    load(checks_handed_in_bundle())
    timed_out = _text(client.get("/b/hbench/r/r1/runs/stopped-shop-t1/").content.decode())
    assert "over the time limit" not in timed_out
    past = _text(client.get("/b/hbench/r/r1/runs/stopped-notes-t1/").content.decode())
    assert "over the time limit: 3,601 s of 3,600 s" in past
    greedy = _text(client.get("/b/hbench/r/r1/runs/steady-notes-t2/").content.decode())
    assert "over the token budget: 1,000,001 tokens of 1,000,000" in greedy
    rows = {r["run"]: r for r in _rows(client.get("/b/hbench/download/runs.csv"))}
    assert (rows["stopped-shop-t1"]["counted"], rows["stopped-shop-t1"]["why_not_counted"]) == ("yes", "")
    assert rows["stopped-notes-t1"]["why_not_counted"] == "over the time limit: 3,601 s of 3,600 s"


def test_importing_a_checks_task_without_a_time_limit_is_refused_naming_the_task():
    doc = checks_handed_in_bundle()
    del doc["tasks"][1]["time_limit_min"]
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert "tasks[1].time_limit_min: task 'notes' has no time limit" in str(refused.value)


def test_the_admin_refuses_to_clear_a_checks_tasks_time_limit_or_token_budget(load, client):
    from leaderboard.models import Task
    from tests.builders.admin import admin_form
    from tests.builders.review import make_user

    load(checks_handed_in_bundle())
    client.force_login(make_user("ed", "Editors"))
    task = Task.objects.get(benchmark__slug="hbench", key="notes")
    url = f"/admin/leaderboard/task/{task.pk}/change/"
    for field, what in (("time_limit_min", "time limit"), ("token_budget", "token budget")):
        data = {**admin_form(client, url), field: "", "change_reason": "no limit"}
        page = _text(client.post(url, data).content.decode())
        assert f"task 'notes' has no {what}: every checks task needs a time limit and a token budget" in page
    task.refresh_from_db()
    assert (task.time_limit_min, task.token_budget) == (60, 1_000_000)


def test_the_methodology_page_says_a_timed_out_run_counts_and_a_task_needs_both_limits(load, client):
    load(checks_handed_in_bundle())
    page = _text(client.get("/b/hbench/methodology/").content.decode())
    assert "A run stopped at the time limit counts however far past the limit its clock reads" in page
    assert (
        "Every task has a time limit and a token budget (“A run stops at the task's time limit or when the token "
        "budget runs out”)"
    ) in page
