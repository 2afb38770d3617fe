"""The admin's re-run actions on a weekly table (004: "The agents in one table are run in the same week"; 000 §6:
"A disputed run may be re-run once"): an editor states when the re-run started, on a page the action asks first,
and a time outside the round's week is refused naming the rule, the round and the run (the same round rule
every door asks: scoring.round_rules, docs/doors.md). Nobody else creates a re-run. Other methodologies re-run at
once, as before (tests/runs/test_round_rules_doors.py, tests/review/test_review_publication.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from runs.models import Dispute, Run
from tests.builders.admin import AdminForm
from tests.builders.doors import assert_refused, page_text
from tests.builders.review import make_user
from tests.builders.weekly import disputed_week

pytestmark = pytest.mark.django_db

# Week 41 of 2026 starts on Monday 5 October: its week is 2026-10-05 00:00:00 UTC up to, not including,
# 2026-10-12 00:00:00 UTC (shown as "2026-10-05 00:00:00 UTC to 2026-10-11 23:59:59 UTC"). Every run started on
# Tuesday 6 October, 09:00 UTC.
WEEK = "2026-10-05 00:00:00 UTC to 2026-10-11 23:59:59 UTC"
OUTSIDE = "outside the round's week (2026-10-05 00:00:00 to 2026-10-11 23:59:59 UTC)"


@pytest.fixture
def week():
    return disputed_week(make_user("edna", "Editors"))


def _ask(client: Client, url: str, pk: int) -> str:
    """The re-run action on the list at `url`, as the list's action bar posts it; the page it answered."""
    answer = client.post(url, {"action": "create_reruns", "_selected_action": [pk]})
    assert answer.status_code == 200, answer.status_code
    return page_text(answer)


def _confirm(client: Client, url: str, asked: str, **fields: str):
    """The confirmation page `asked` posted back as a browser would, with `fields` filled in and its button."""
    form = AdminForm()
    form.feed(asked)
    # Every selected object (the parser keeps one value a name).
    selected = re.findall(r'name="_selected_action" value="(\d+)"', asked)
    data = {**form.data, "_selected_action": selected, **fields, "rerun_start": "Create the re-run"}
    return client.post(url, data, follow=True)


LISTS = {"runs": "/admin/runs/run/", "disputes": "/admin/runs/dispute/"}


def _selected(week, where: str) -> int:
    return week["run"].pk if where == "runs" else week["dispute"].pk


@pytest.mark.parametrize("where", LISTS)
@pytest.mark.parametrize(
    ("given", "stored"),
    [
        # 9 October 14:00 UTC: 4 days 14 hours into the week.
        ("2026-10-09T14:00", datetime(2026, 10, 9, 14, tzinfo=UTC)),
        # The week's last second: 6 days 23:59:59 after 5 October 00:00 UTC, one second before it ends.
        ("2026-10-11T23:59:59", datetime(2026, 10, 11, 23, 59, 59, tzinfo=UTC)),
    ],
)
def test_an_editor_reruns_a_disputed_weekly_run_stating_when_it_started(client, week, where, given, stored):
    client.force_login(week["editor"])
    url = LISTS[where]
    asked = _ask(client, url, _selected(week, where))
    # Asked first: nothing is created until the start time is given.
    assert "Re-run of ava-trip (Ava, trip) started at" in asked
    assert f"In UTC, within the round's week: {WEEK}. ava-trip started 2026-10-06 09:00:00 UTC." in asked
    assert not Run.objects.filter(rerun_of=week["run"]).exists()

    done = _confirm(client, url, asked, **{f"started_at_{week['run'].pk}": given})
    said = page_text(done)
    assert done.redirect_chain and done.redirect_chain[-1][0].endswith(url)
    assert f"Created re-run ava-trip-rerun of ava-trip, started {stored:%Y-%m-%d %H:%M:%S} UTC." in said
    rerun = Run.objects.get(rerun_of=week["run"])
    assert (rerun.key, rerun.started_at, rerun.task_version) == ("ava-trip-rerun", stored, "1.0")


@pytest.mark.parametrize("where", LISTS)
@pytest.mark.parametrize(
    ("given", "shown"),
    [
        # 12 October 00:00:00 UTC is the first instant after the week (5 October 00:00 + 7 days).
        ("2026-10-12T00:00:00", "2026-10-12 00:00:00"),
        # One second before the week began.
        ("2026-10-04T23:59:59", "2026-10-04 23:59:59"),
    ],
)
def test_a_rerun_start_outside_the_week_is_refused_naming_the_rule(client, week, where, given, shown):
    client.force_login(week["editor"])
    url = LISTS[where]
    asked = _ask(client, url, _selected(week, where))
    answer = _confirm(client, url, asked, **{f"started_at_{week['run'].pk}": given})
    said = page_text(answer)
    # The page again, with the rule's refusal on the re-run's field; nothing written.
    assert answer.status_code == 200 and not answer.redirect_chain
    assert "Re-run of ava-trip (Ava, trip) started at" in said
    assert_refused(said, "same_week", "wk/w41", ("ava-trip-rerun",))
    assert f"run ava-trip-rerun started {shown} UTC, {OUTSIDE}" in said
    assert not Run.objects.filter(rerun_of=week["run"]).exists()


def test_a_weekly_rerun_without_a_start_time_is_asked_again(client, week):
    client.force_login(week["editor"])
    url = LISTS["runs"]
    asked = _ask(client, url, week["run"].pk)
    said = page_text(_confirm(client, url, asked, **{f"started_at_{week['run'].pk}": ""}))
    assert "State when the re-run started: a weekly round's runs are checked against its week." in said
    assert not Run.objects.filter(rerun_of=week["run"]).exists()


def test_a_weekly_run_without_an_accepted_dispute_is_refused_without_asking_its_start(client, week):
    # bo-trip has no dispute: no start time would make its re-run allowed, so none is asked.
    client.force_login(week["editor"])
    bo = Run.objects.get(key="bo-trip")
    answer = client.post(
        LISTS["runs"], {"action": "create_reruns", "_selected_action": [bo.pk], "post": "yes"}, follow=True
    )
    said = page_text(answer)
    assert "started at" not in said
    assert_refused(said, "rerun", "wk/w41", ("bo-trip",))
    assert "re-runs bo-trip, whose dispute no editor accepted (it has no dispute)" in said
    assert not Run.objects.filter(rerun_of__isnull=False).exists()


def test_a_selection_asks_only_for_the_runs_that_may_be_rerun(client, week):
    # ava-trip (accepted) is asked its start; bo-trip (no dispute) is named among those refused, and stays so.
    client.force_login(week["editor"])
    bo = Run.objects.get(key="bo-trip")
    answer = client.post(LISTS["runs"], {"action": "create_reruns", "_selected_action": [week["run"].pk, bo.pk]})
    asked = page_text(answer)
    assert "Re-run of ava-trip (Ava, trip) started at" in asked and "Re-run of bo-trip" not in asked
    assert "These will not be re-run" in asked and "re-runs bo-trip, whose dispute no editor accepted" in asked
    said = page_text(_confirm(client, LISTS["runs"], asked, **{f"started_at_{week['run'].pk}": "2026-10-07T10:30"}))
    assert "Created re-run ava-trip-rerun of ava-trip, started 2026-10-07 10:30:00 UTC." in said
    assert "re-runs bo-trip, whose dispute no editor accepted (it has no dispute)" in said
    assert list(Run.objects.filter(rerun_of__isnull=False).values_list("key", flat=True)) == ["ava-trip-rerun"]


@pytest.mark.parametrize("who", ["anonymous", "voter", "vendor", "tester"])
@pytest.mark.parametrize("where", LISTS)
def test_only_an_editor_creates_a_rerun(client, week, who, where):
    if who == "vendor":
        client.force_login(week["vendor"])
    elif who == "voter":
        client.force_login(make_user("pat"))
    elif who == "tester":
        client.force_login(make_user("tess", "Testers"))
    form = {
        "action": "create_reruns",
        "_selected_action": [_selected(week, where)],
        f"started_at_{week['run'].pk}": "2026-10-09T14:00",
        "rerun_start": "Create the re-run",
    }
    answer = client.post(LISTS[where], form)
    if who == "tester":  # staff, but neither the action nor (for disputes) the list is theirs
        assert answer.status_code in (200, 302, 403)
        assert "Created re-run" not in page_text(answer)
    else:  # not staff: the admin's sign-in page
        assert answer.status_code == 302 and "/admin/login/" in answer["Location"]
    assert not Run.objects.filter(rerun_of=week["run"]).exists()
    assert Dispute.objects.get(pk=week["dispute"].pk).status == "accepted"
