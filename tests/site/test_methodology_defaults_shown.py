"""Each methodology's own defaults, where readers and editors see them: a scored task that states no time limit runs
under 002's "A timeout (default 300 seconds)", not 000's "30 minutes by default"; a weekly task under 004's 30-minute
cap; a checks task under the limits it states, none assumed. The task page, the run page, the API and the admin's
task form say so; a pass threshold is answered for scored benchmarks alone, and a token budget for checks tasks
alone."""

from __future__ import annotations

import re
from html import unescape

import pytest

from bundles.importer import bundle_import
from leaderboard.models import Benchmark, Task
from scoring.bundle import BundleError
from tests.builders.admin import admin_form
from tests.builders.review import make_user
from tests.builders.site import checks_bundle, outcomes_bundle, scored_bundle, weekly_bundle

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limit")]


@pytest.fixture
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0


def _text(page: bytes) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page.decode())))


def _limits_line(page: bytes) -> str:
    return _text(re.search(rb'<p class="muted" id="task-limits">.*?</p>', page, re.S).group(0)).strip()


def test_a_scored_task_that_states_no_limit_shows_002s_300_seconds_everywhere(load, client):
    load(scored_bundle())  # its tasks state no time_limit_min
    assert Task.objects.get(benchmark__slug="sbench", key="t1").time_limit_min is None
    task_page = client.get("/b/sbench/tasks/t1/").content
    assert _limits_line(task_page) == (
        "Time limit 300 s, the methodology's default (“A timeout (default 300 seconds)”)"
    )
    assert "30 min" not in _text(task_page)
    run_page = _text(client.get("/b/sbench/r/r1/runs/solo-t1-1/").content)
    assert "limit 300 s, the methodology's default" in run_page
    assert "30 min" not in run_page
    task = client.get("/api/benchmarks/sbench/tasks/t1").json()
    # 300 seconds / 60 = 5 minutes.
    assert (task["time_limit_min"], task["time_limit_source"]) == (5.0, "default")
    assert "token_budget" not in task


def test_an_outcomes_task_that_states_no_limit_shows_000s_30_minutes(load, client):
    load(outcomes_bundle())  # "flights" states no time_limit_min
    assert _limits_line(client.get("/b/obench/tasks/flights/").content) == (
        "Time limit 30 min, the methodology's default (“The run ends ... after time_limit_min (30 minutes by default)”)"
    )
    task = client.get("/api/benchmarks/obench/tasks/flights").json()
    assert (task["time_limit_min"], task["time_limit_source"]) == (30.0, "default")


def test_a_weekly_task_shows_the_cap_of_every_task_and_a_checks_task_the_limits_it_states(load, client):
    load(weekly_bundle(), checks_bundle())
    assert _limits_line(client.get("/b/wbench/tasks/trip/").content) == (
        "Time limit 30 min, the same cap for every task (“Wall-clock time ... stops when the agent finishes, or at "
        "30 minutes, whichever comes first”)"
    )
    assert client.get("/api/benchmarks/wbench/tasks/trip").json()["time_limit_source"] == "cap"
    # The checks task states 120 minutes and 5,000,000 tokens: its own, with no default beside them.
    assert _limits_line(client.get("/b/qbench/tasks/shop/").content) == "Time limit 120 min · token budget 5.00M"
    task = client.get("/api/benchmarks/qbench/tasks/shop").json()
    assert (task["time_limit_min"], task["time_limit_source"], task["token_budget"]) == (120, "task", 5_000_000)


def test_a_pass_threshold_is_answered_for_a_scored_benchmark_alone(load, client):
    load(scored_bundle(), outcomes_bundle(), weekly_bundle(), checks_bundle())
    answers = {b["slug"]: b for b in client.get("/api/benchmarks").json()}
    assert answers["sbench"]["pass_threshold"] == 0.8
    for slug in ("obench", "wbench", "qbench"):
        assert "pass_threshold" not in answers[slug], slug
        assert "pass_threshold" not in client.get(f"/api/benchmarks/{slug}").json()
        assert Benchmark.objects.get(slug=slug).pass_threshold is None
    # The download says it where it belongs, and only there.
    assert client.get("/b/sbench/download/bundle.json").json()["benchmark"]["params"]["pass_threshold"] == 0.8
    assert "pass_threshold" not in client.get("/b/obench/download/bundle.json").json()["benchmark"]["params"]


def test_a_pass_threshold_in_another_methodologys_bundle_is_not_kept(load):
    doc = outcomes_bundle()
    doc["benchmark"]["params"] = {"pass_threshold": 0.8, "preview_hours": 0}  # as every export carried it before
    load(doc)
    assert Benchmark.objects.get(slug="obench").pass_threshold is None


def test_a_weekly_task_stating_another_limit_than_the_cap_is_refused_at_import():
    doc = weekly_bundle()
    doc["tasks"][0]["time_limit_min"] = 45
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert "tasks[0].time_limit_min: task 'trip' states a time limit of 45 min" in str(refused.value)
    assert not Benchmark.objects.filter(slug="wbench").exists()


def _add_task(client, bench: Benchmark, **fields) -> tuple[int, str]:
    url = "/admin/leaderboard/task/add/"
    data = {**admin_form(client, url), "benchmark": str(bench.pk), "key": "new-task", "title": "New", **fields}
    response = client.post(url, data)
    return response.status_code, _text(response.content)


def test_the_admins_add_task_form_fills_in_no_limit(load, client):
    load(checks_bundle())
    client.force_login(make_user("ed", "Editors"))
    form = admin_form(client, "/admin/leaderboard/task/add/")
    assert form["time_limit_min"] == ""
    page = _text(client.get("/admin/leaderboard/task/add/").content)
    assert "scored: 300 seconds" in page and "outcomes: 30 min" in page and "checks: none, state it" in page


def test_the_admin_refuses_a_checks_task_without_its_limits_as_an_import_does(load, client):
    load(checks_bundle())
    client.force_login(make_user("ed", "Editors"))
    bench = Benchmark.objects.get(slug="qbench")
    status, page = _add_task(client, bench, token_budget="1000")
    assert status == 200
    assert "task 'new-task' has no time limit: every checks task needs a time limit and a token budget" in page
    status, page = _add_task(client, bench, time_limit_min="60")
    assert "task 'new-task' has no token budget" in page
    assert not Task.objects.filter(key="new-task").exists()
    status, _ = _add_task(client, bench, time_limit_min="60", token_budget="1000")
    assert status == 302
    assert Task.objects.get(key="new-task").time_limit_min == 60


def test_the_admin_keeps_a_scored_task_without_a_limit_on_the_methodologys_default(load, client):
    load(scored_bundle())
    client.force_login(make_user("ed", "Editors"))
    status, _ = _add_task(client, Benchmark.objects.get(slug="sbench"))
    assert status == 302
    task = Task.objects.get(key="new-task")
    assert task.time_limit_min is None
    limits = task.benchmark.rules.task_limits(task.time_limit_min, task.token_budget)
    assert (limits.time_limit_min, limits.source) == (5.0, "default")


def test_the_admin_refuses_a_weekly_task_with_another_limit_than_the_cap(load, client):
    load(weekly_bundle())
    client.force_login(make_user("ed", "Editors"))
    status, page = _add_task(client, Benchmark.objects.get(slug="wbench"), time_limit_min="45")
    assert status == 200
    assert "task 'new-task' states a time limit of 45 min" in page
    assert not Task.objects.filter(key="new-task").exists()


def test_the_admin_refuses_a_pass_threshold_on_a_benchmark_that_has_none(load, client):
    load(outcomes_bundle())
    client.force_login(make_user("ed", "Editors"))
    bench = Benchmark.objects.get(slug="obench")
    url = f"/admin/leaderboard/benchmark/{bench.pk}/change/"
    assert "pass_threshold" not in admin_form(client, url)
    response = client.post(
        "/admin/leaderboard/benchmark/add/",
        {
            **admin_form(client, "/admin/leaderboard/benchmark/add/"),
            "slug": "wk2",
            "name": "Wk2",
            "methodology": "weekly",
            "pass_threshold": "0.8",
        },
    )
    assert "A weekly benchmark has no pass threshold" in _text(response.content)
    assert not Benchmark.objects.filter(slug="wk2").exists()
