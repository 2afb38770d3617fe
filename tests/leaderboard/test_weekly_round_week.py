"""004 "Same conditions": "The agents in one table are run in the same week." Every way a run gets into a weekly
round refuses one that started outside the round's week, naming the rule, the round, the run and its start: the
editor's import, the upload API, the admin's run form, and the round form when the round's week moves. A run
without a start time is refused too, its week cannot be checked (the rule: scoring.round_rules,
tests/scoring/test_same_week.py; every door: tests/runs/test_round_rules_doors.py)."""

from __future__ import annotations

import html
import json
from datetime import UTC, date, datetime

import pytest
from django.test import Client

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Round
from runs.models import Run
from scoring.bundle import BundleError
from tests.builders.admin import admin_form
from tests.builders.review import make_user
from tests.builders.site import weekly_bundle
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db

# weekly_bundle's round w1 starts on Monday 2 March 2026: its week is 2026-03-02 00:00:00 to 2026-03-08 23:59:59 UTC.
OUTSIDE = "outside the round's week (2026-03-02 00:00:00 to 2026-03-08 23:59:59 UTC)"
RULE = 'Same week (004: "The agents in one table are run in the same week.")'


def week_doc() -> dict:
    """weekly_bundle: every run started on the Tuesday of the week, 2026-03-03 10:00 UTC."""
    return weekly_bundle()


def test_the_editors_import_refuses_runs_of_january_and_june_by_name_and_start():
    doc = week_doc()
    starts = {"aider-trip": "2026-01-12T09:00:00Z", "claude-inbox": "2026-06-03T17:45:00+02:00"}
    for run in doc["runs"]:
        run["started_at"] = starts.get(run["id"], run.get("started_at"))
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert refused.value.problems == [
        f"{RULE}: round wbench/w1: run aider-trip started 2026-01-12 09:00:00 UTC, {OUTSIDE}; "
        f"run claude-inbox started 2026-06-03 15:45:00 UTC, {OUTSIDE}"
    ]
    assert not Run.objects.exists()


def test_the_editors_import_refuses_a_weekly_run_without_a_start_time():
    doc = week_doc()
    del doc["runs"][0]["started_at"]  # zed-trip
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=doc)
    assert refused.value.problems == [
        f"{RULE}: round wbench/w1: run zed-trip has no start time (started_at), so its week cannot be checked"
    ]
    assert not Run.objects.exists()


def test_the_upload_api_refuses_a_run_outside_the_week_and_takes_it_inside():
    bundle_import(doc=week_doc())
    key = api_key_create(name="CI", benchmark=Benchmark.objects.get(slug="wbench"))[1]
    doc = week_doc()
    doc["rounds"] = [{"key": "w2", "status": "draft", "starts_on": "2026-03-09", "entries": [{"agent": "aider"}]}]
    doc["runs"] = [
        {"id": "w2-aider-trip", "round": "w2", "agent": "aider", "task": "trip", "status": "completed"},
        {"id": "w2-aider-inbox", "round": "w2", "agent": "aider", "task": "inbox", "status": "completed"},
    ]

    def upload(trip_start: str):
        doc["runs"][0]["started_at"] = trip_start
        return Client().post(
            "/api/benchmarks/wbench/bundle",
            json.dumps(doc),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {key}",
        )

    # 2026-03-16 00:00:00 UTC is 7 days after 2026-03-09 00:00 UTC: the first second after the week.
    refused = upload("2026-03-16T00:00:00Z")
    assert refused.status_code == 422
    assert refused.json()["problems"] == [
        f"{RULE}: round wbench/w2: run w2-aider-inbox has no start time (started_at), so its week cannot be "
        "checked; run w2-aider-trip started 2026-03-16 00:00:00 UTC, outside the round's week "
        "(2026-03-09 00:00:00 to 2026-03-15 23:59:59 UTC)"
    ]
    assert not Round.objects.filter(key="w2").exists()
    # Its last second is in it; the inbox run, given its start time, is taken too.
    doc["runs"][1]["started_at"] = "2026-03-09T00:00:00Z"
    assert upload("2026-03-15T23:59:59Z").status_code == 200
    assert Run.objects.get(key="w2-aider-trip").started_at == datetime(2026, 3, 15, 23, 59, 59, tzinfo=UTC)


@pytest.fixture
def edit(client):
    """`edit(url, **changes)`: an editor posts the admin form at `url` with `changes`; the page answered, as text."""
    bundle_import(doc=week_doc())
    client.force_login(make_user("edna", "Editors"))

    def post(url: str, **changes: str) -> tuple[int, str]:
        answer = client.post(url, {**admin_form(client, url), **changes})
        return answer.status_code, html.unescape(answer.content.decode())

    return post


def test_the_admins_run_form_refuses_a_start_outside_the_week(edit):
    run = Run.objects.get(key="aider-trip")
    url = f"/admin/runs/run/{run.pk}/change/"
    why = {"change_reason": "Start time from the log."}
    status, page = edit(url, started_at_0="2026-03-09", started_at_1="00:00:00", **why)
    refusal = f"{RULE}: round wbench/w1: run aider-trip started 2026-03-09 00:00:00 UTC, {OUTSIDE}"
    assert status == 200 and refusal in page
    assert Run.objects.get(pk=run.pk).started_at == datetime(2026, 3, 3, 10, tzinfo=UTC)
    assert edit(url, started_at_0="2026-03-08", started_at_1="23:59:59", **why)[0] == 302
    assert Run.objects.get(pk=run.pk).started_at == datetime(2026, 3, 8, 23, 59, 59, tzinfo=UTC)


def test_the_admins_round_form_refuses_a_week_that_leaves_runs_outside(edit):
    rnd = Round.objects.get(key="w1")
    url = f"/admin/leaderboard/round/{rnd.pk}/change/"
    why = {"change_reason": "The week was misdated."}
    status, page = edit(url, starts_on="2026-03-04", **why)
    assert status == 200
    # Every run, each named: all six started on 3 March, before the week of 4 March.
    assert f"{RULE}: round wbench/w1: " in page
    for key in ("aider-inbox", "aider-trip", "claude-inbox", "claude-trip", "zed-inbox", "zed-trip"):
        assert (
            f"run {key} started 2026-03-03 10:00:00 UTC, outside the round's week (2026-03-04 00:00:00 to "
            "2026-03-10 23:59:59 UTC)" in page
        )
    assert Round.objects.get(pk=rnd.pk).starts_on == date(2026, 3, 2)
    assert edit(url, starts_on="2026-03-03", **why)[0] == 302  # the runs' own day: their 10:00 is in that week
    assert Round.objects.get(pk=rnd.pk).starts_on == date(2026, 3, 3)


def test_a_runs_page_says_its_week_or_that_it_is_unknown(client):
    bundle_import(doc=week_doc())
    compute_all()
    page = client.get("/b/wbench/r/w1/runs/aider-trip/").content.decode().replace("&#x27;", "'")
    assert "<dt>Week</dt><dd>the round's week" in page
    assert "(2 Mar 2026, 00:00 to 8 Mar 2026, 23:59:59 UTC)" in page
    # A run stored before every door asked for a start time (written here around the doors) still says so.
    Run.objects.filter(key="zed-trip").update(started_at=None)
    page = client.get("/b/wbench/r/w1/runs/zed-trip/").content.decode()
    assert "<dt>Week</dt><dd>unknown: no start time was recorded</dd>" in page


def test_the_methodology_page_lists_the_week_among_its_choices(client):
    bundle_import(doc=week_doc())
    page = client.get("/b/wbench/methodology/").content.decode().replace("&#x27;", "'")
    choices = page[page.index("Choices we made where the method leaves room") :]
    assert "The agents in one table are run in the same week" in choices
    assert "seven days from 00:00 UTC on the round's start date" in choices
    assert "A run with no recorded start time is refused" in choices
    rerun = "A re-run after an accepted dispute is run in the same week too: the editor who creates it states when"
    assert rerun in choices
