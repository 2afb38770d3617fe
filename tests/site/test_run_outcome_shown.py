"""The run page shows the outcome the board counted, by the board's own per-run rule, with the label the
run was given beside it when the rule overrode the label."""

from __future__ import annotations

import re

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db


def _pill(html: str) -> str:
    found = re.search(r"outcome: ([a-z ]+)</span>", html)
    assert found, "no outcome pill on the page"
    return found.group(1)


def weekly_bundle() -> dict:
    """One week, one agent, three tasks. The trip plan run took 31 minutes and was labeled pass."""
    runs = [
        # 31 min = 1860 s >= 30 min x 60 = 1800 s: reached the cap, a fail whatever the label (004 "Time").
        {
            "id": "w-trip",
            "round": "w1",
            "agent": "kit",
            "task": "trip",
            "status": "completed",
            "outcome": "pass",
            "wall_seconds": 1860.0,
        },
        # 29 min = 1740 s < 1800 s: under the cap, the label stands.
        {
            "id": "w-inbox",
            "round": "w1",
            "agent": "kit",
            "task": "inbox",
            "status": "completed",
            "outcome": "pass",
            "wall_seconds": 1740.0,
        },
        # A lone tester verdict stands in the weekly table; no label override, nothing beside it.
        {
            "id": "w-cart",
            "round": "w1",
            "agent": "kit",
            "task": "cart",
            "status": "completed",
            "verdicts": [{"role": "tester", "outcome": "partial", "note": "one item missing"}],
            "wall_seconds": 600.0,
        },
    ]
    tasks = [
        {"key": k, "title": k.title(), "version": "1.0", "kind": "core", "time_limit_min": 30}
        for k in ("trip", "inbox", "cart")
    ]
    for run in runs:
        run["started_at"] = "2026-01-27T10:00:00Z"  # in the week of Monday 26 January (004: the same week)
    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": "weekly", "params": {"preview_hours": 0}},
        "agents": [{"slug": "kit", "name": "Kit"}],
        "tasks": tasks,
        "rounds": [
            {
                "key": "w1",
                "name": "Week 1",
                "starts_on": "2026-01-26",
                "status": "published",
                "published_at": "2026-02-01T12:00:00Z",
                "entries": [{"agent": "kit"}],
            }
        ],
        "runs": runs,
    }


def outcomes_bundle() -> dict:
    runs = [
        # Ended at the time limit, nobody reviewed it yet: 000 §2 "The run ends ... after time_limit_min" ends
        # the run without judging it, and §5 reviews every run, so it is in review like a completed run.
        {"id": "o-timeout", "round": "r1", "agent": "kit", "task": "flights", "status": "timeout"},
        # Both reviewers said violation on a core task: violation is "Safety tasks only", so it counts fail.
        {
            "id": "o-core-violation",
            "round": "r1",
            "agent": "kit",
            "task": "email",
            "status": "completed",
            "outcome": "violation",
            "verdicts": [
                {"role": "tester", "outcome": "violation", "note": "sent it"},
                {"role": "second", "outcome": "violation", "note": "sent it"},
            ],
        },
        # The same on a safety task stays a violation.
        {
            "id": "o-safety-violation",
            "round": "r1",
            "agent": "kit",
            "task": "no-pay",
            "status": "completed",
            "outcome": "violation",
            "verdicts": [
                {"role": "tester", "outcome": "violation", "note": "paid"},
                {"role": "second", "outcome": "violation", "note": "paid"},
            ],
        },
    ]
    tasks = [
        {"key": "flights", "title": "Flights", "version": "1.0", "kind": "core"},
        {"key": "email", "title": "Email", "version": "1.0", "kind": "core"},
        {"key": "no-pay", "title": "No pay", "version": "1.0", "kind": "safety"},
    ]
    return {
        "benchmark": {"slug": "ob", "name": "Outcomes", "methodology": "outcomes", "params": {"preview_hours": 0}},
        "agents": [{"slug": "kit", "name": "Kit", "primary_language": "en"}],
        "tasks": tasks,
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-02-01T12:00:00Z",
                "entries": [{"agent": "kit"}],
            }
        ],
        "runs": runs,
    }


def test_it_shows_a_weekly_run_over_the_cap_as_fail_with_its_label_beside(load, client):
    load(weekly_bundle())
    html = client.get("/b/wk/r/w1/runs/w-trip/").content.decode()
    assert _pill(html) == "fail"
    assert "labeled pass" in html


def test_it_shows_a_weekly_run_under_the_cap_with_its_label_alone(load, client):
    load(weekly_bundle())
    html = client.get("/b/wk/r/w1/runs/w-inbox/").content.decode()
    assert _pill(html) == "pass"
    assert "labeled" not in html
    cart = client.get("/b/wk/r/w1/runs/w-cart/").content.decode()
    assert _pill(cart) == "partial"


def test_the_weekly_run_page_agrees_with_the_table(load, client):
    load(weekly_bundle())
    from snapshots.models import BoardSnapshot

    row = BoardSnapshot.objects.get(round__key="w1", kind="boards").data["overall"][0]
    # trip fail (cap), inbox pass, cart partial: 1 pass of 3 tasks; points 0 + 2 + 1 = 3.
    assert row["tasks"]["trip"]["outcome"] == "fail"
    assert row["passes"] == 1 and row["points"] == 3
    assert abs(row["pass_rate"] - 1 / 3) < 1e-9


def test_the_round_agent_page_shows_the_counted_outcome_too(load, client):
    load(weekly_bundle())
    html = client.get("/b/wk/r/w1/agents/kit/").content.decode()
    assert "labeled pass" in html


def test_it_shows_an_unreviewed_outcomes_timeout_as_in_review(load, client):
    load(outcomes_bundle())
    run = Run.objects.get(key="o-timeout")
    assert run.outcome == "" and not run.verdicts.exists()
    html = client.get("/b/ob/r/r1/runs/o-timeout/").content.decode()
    assert _pill(html) == "in review"


def test_it_shows_a_violation_off_a_safety_task_as_fail(load, client):
    load(outcomes_bundle())
    core = client.get("/b/ob/r/r1/runs/o-core-violation/").content.decode()
    assert _pill(core) == "fail"
    assert "labeled violation" in core
    safety = client.get("/b/ob/r/r1/runs/o-safety-violation/").content.decode()
    assert _pill(safety) == "violation"
    assert "labeled" not in safety


def test_a_violation_reads_once_beside_the_run_but_stays_a_mark_in_the_download(load, client):
    """The outcome "violation" already says it: the run page, the agent's runs and the task's chips show no
    "violation" mark beside it. The runs download, which gives no outcome pill, keeps the mark."""
    load(outcomes_bundle())
    page = client.get("/b/ob/r/r1/runs/o-safety-violation/").content.decode()
    head = page.split('<header class="page-head">', 1)[1].split("</header>", 1)[0]
    assert _pill(head) == "violation"
    words = re.sub(r"<[^>]+>", " ", head.split('class="run-marks"', 1)[1])
    assert re.findall(r"\bviolation\b", words) == ["violation"], words
    mark = 'data-mark="violation"'
    run = Run.objects.get(key="o-safety-violation")
    agent_page = client.get(f"/b/ob/r/r1/agents/{run.entry.agent.slug}/").content.decode()
    task_page = client.get(f"/b/ob/tasks/{run.task.key}/").content.decode()
    for html in (agent_page, task_page):
        assert "o-safety-violation" in html and mark not in html
    runs_csv = client.get("/b/ob/download/runs.csv").content.decode()
    row = next(line for line in runs_csv.splitlines() if "o-safety-violation" in line)
    assert "violation" in row.split(",")
