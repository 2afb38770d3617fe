"""004 "Same conditions": "The agents in one table are run in the same week." A weekly round's week is the seven
days from 00:00 UTC on its `starts_on`; a bundle whose run started outside it is refused, naming the run and its
start (scoring.round_rules, asked by every door of the stored round and by `recount` of a download). A weekly run
without a start time, or a weekly round without a start date, cannot be checked and is refused."""

from __future__ import annotations

import pytest

from scoring.bundle_checks import validate_bundle
from scoring.round_rules import document_problems

WEEK = "2026-10-05"  # a Monday: the week is 2026-10-05 00:00:00 UTC up to, not including, 2026-10-12 00:00:00 UTC
OUTSIDE = "outside the round's week (2026-10-05 00:00:00 to 2026-10-11 23:59:59 UTC)"
RULE = 'Same week (004: "The agents in one table are run in the same week."): round wk/w41'


def problems(d: dict) -> list[str]:
    """What `recount` refuses of the document: its form first, then the round rules."""
    return validate_bundle(d) or document_problems(d)


def doc(*starts: str | None, methodology: str = "weekly", starts_on: str | None = WEEK) -> dict:
    """A round w41 beginning on `starts_on`, one agent, and one run per start time (ids r0, r1, ...)."""
    rnd = {"key": "w41", "status": "draft", "entries": [{"agent": "a"}]}
    if starts_on is not None:
        rnd["starts_on"] = starts_on
    runs = []
    for i, start in enumerate(starts):
        run = {"id": f"r{i}", "round": "w41", "agent": "a", "task": "trip", "status": "completed", "trial": i + 1}
        if start is not None:
            run["started_at"] = start
        runs.append(run)
    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": methodology},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [
            {
                "key": "trip",
                "title": "Trip plan",
                "version": "1.0",
                "kind": "core",
                "time_limit_min": 30,
                "token_budget": 1_000_000,
            }
        ],
        "rounds": [rnd],
        "runs": runs,
    }


def test_runs_started_in_january_and_june_of_a_week_in_october_are_refused_by_name_and_start():
    assert problems(doc("2026-10-06T13:00:00Z", "2026-01-12T09:00:00Z", "2026-06-03T17:45:00Z")) == [
        f"{RULE}: run r1 started 2026-01-12 09:00:00 UTC, {OUTSIDE}; run r2 started 2026-06-03 17:45:00 UTC, {OUTSIDE}"
    ]


@pytest.mark.parametrize(
    ("started_at", "in_week"),
    [
        ("2026-10-04T23:59:59Z", False),  # the last second before the week
        ("2026-10-05T00:00:00Z", True),  # its first second
        ("2026-10-11T23:59:59Z", True),  # its last second: 6 days, 23 h 59 min 59 s after the start
        ("2026-10-11T23:59:59.999999Z", True),  # still before the eighth day
        ("2026-10-12T00:00:00Z", False),  # the first second after it: 7 days after the start
        ("2026-10-12", False),  # a date alone is 00:00 that day
        ("2026-10-05", True),
        # Times are compared in UTC: 01:30 on the 12th at +02:00 is 23:30 UTC on the 11th, in the week; 23:30 on
        # the 4th at -01:00 is 00:30 UTC on the 5th, in it too; 00:30 on the 5th at +01:00 is 23:30 UTC on the 4th.
        ("2026-10-12T01:30:00+02:00", True),
        ("2026-10-04T23:30:00-01:00", True),
        ("2026-10-05T00:30:00+01:00", False),
        ("2026-10-11T23:59:59", True),  # a time without an offset is UTC
        ("2026-10-12T00:00:00", False),
    ],
)
def test_the_week_is_seven_days_from_midnight_utc_on_the_rounds_start(started_at, in_week):
    assert (problems(doc(started_at)) == []) is in_week


def test_a_run_without_a_start_time_is_refused_and_one_that_never_started_is_not():
    # The week cannot be checked without a start time; a run whose status is not_started has none to give.
    assert problems(doc(None, "2026-10-07T10:00:00Z")) == [
        f"{RULE}: run r0 has no start time (started_at), so its week cannot be checked"
    ]
    never = doc(None, "2026-10-07T10:00:00Z")
    never["runs"][0]["status"] = "not_started"
    assert problems(never) == []


def test_a_round_without_a_start_date_is_refused_with_its_runs():
    # Without starts_on the round has no week: no run's start can be checked, so every run is named.
    assert problems(doc(None, "2026-10-07T10:00:00Z", starts_on=None)) == [
        f"{RULE}: the round has no start date (starts_on), so its week is unknown and no run can be checked "
        "against it (2 runs: r0, r1)"
    ]


def test_a_start_time_or_a_start_date_that_cannot_be_read_is_refused():
    assert validate_bundle(doc("last Tuesday")) == [
        "runs[0].started_at: 'last Tuesday' is not an ISO 8601 time, so the run's week cannot be checked"
    ]
    assert validate_bundle(doc("2026-10-07T10:00:00Z", starts_on="October")) == [
        "rounds[0].starts_on: 'October' is not a date, so the round's week is unknown"
    ]


def test_only_the_weekly_methodology_runs_its_agents_in_one_week():
    # 000, 002 and 003 say nothing of a week: a round of theirs may run over months.
    for methodology in ("outcomes", "scored", "checks"):
        assert problems(doc("2026-01-12T09:00:00Z", methodology=methodology)) == []


def test_times_at_the_ends_of_the_calendar_are_refused_or_checked_without_an_error():
    # 00:00 on 1 January of year 1 at +01:00 is 23:00 UTC on the day before, which no date holds: unreadable.
    assert validate_bundle(doc("0001-01-01T00:00:00+01:00")) == [
        "runs[0].started_at: '0001-01-01T00:00:00+01:00' is not an ISO 8601 time, so the run's week cannot be checked"
    ]
    # A week starting on the last day a date holds ends with that day.
    assert problems(doc("9999-12-31T23:59:59Z", starts_on="9999-12-31")) == []
