"""Each methodology's own limits and settings, from its own seed, never another's: a scored (002) task runs under
"A timeout (default 300 seconds)", an outcomes (000) task under "time_limit_min (30 minutes by default)", a weekly
(004) task under the table's 30-minute cap, and a checks (003) task under the limits it states, none assumed. Only
scored has a pass threshold ("An agent passes a task if its score >= 0.80"); only checks has token budgets."""

from __future__ import annotations

import pytest

from scoring import methodologies
from scoring.bundle_checks import validate_bundle


def _limits(methodology: str, time_limit_min=None, token_budget=None):
    return methodologies.get(methodology).task_limits(time_limit_min, token_budget)


def test_a_scored_task_without_a_limit_runs_under_002s_300_seconds():
    limits = _limits("scored")
    # 300 seconds / 60 = 5 minutes: the stored unit is minutes.
    assert (limits.time_limit_min, limits.source) == (5.0, "default")
    assert limits.in_seconds
    assert "default 300 seconds" in limits.words


def test_an_outcomes_task_without_a_limit_runs_under_000s_30_minutes():
    limits = _limits("outcomes")
    assert (limits.time_limit_min, limits.source) == (30.0, "default")
    assert not limits.in_seconds
    assert "30 minutes by default" in limits.words


def test_a_weekly_task_runs_under_004s_cap_whatever_it_states():
    assert (_limits("weekly").time_limit_min, _limits("weekly").source) == (30.0, "cap")
    assert (_limits("weekly", 30).time_limit_min, _limits("weekly", 30).source) == (30.0, "cap")


def test_a_checks_task_has_no_default_and_keeps_the_limits_it_states():
    assert (_limits("checks").time_limit_min, _limits("checks").source) == (None, "")
    stated = _limits("checks", 90, 3_000_000)
    assert (stated.time_limit_min, stated.source, stated.token_budget) == (90, "task", 3_000_000)


@pytest.mark.parametrize("methodology", ["outcomes", "scored"])
def test_a_stated_limit_is_the_tasks_own(methodology):
    limits = _limits(methodology, 12)
    assert (limits.time_limit_min, limits.source) == (12, "task")


@pytest.mark.parametrize("methodology", ["outcomes", "scored", "weekly"])
def test_only_checks_tasks_have_a_token_budget(methodology):
    assert _limits(methodology, 30, 1_000).token_budget is None
    assert not methodologies.get(methodology).token_budgets
    assert methodologies.get("checks").token_budgets


def test_only_scored_has_a_pass_threshold_and_its_default_is_0_80():
    assert methodologies.get("scored").pass_threshold(None) == 0.8
    assert methodologies.get("scored").pass_threshold(0.7) == 0.7
    for key in ("outcomes", "checks", "weekly"):
        assert methodologies.get(key).pass_threshold(0.8) is None


def _weekly_doc(**task) -> dict:
    return {
        "benchmark": {"slug": "w", "name": "W", "methodology": "weekly"},
        "tasks": [{"key": "trip", "title": "Trip", "version": "1.0", "kind": "core", **task}],
    }


def test_a_weekly_bundle_stating_another_time_limit_than_the_cap_is_refused():
    assert validate_bundle(_weekly_doc()) == []
    assert validate_bundle(_weekly_doc(time_limit_min=30)) == []
    (problem,) = validate_bundle(_weekly_doc(time_limit_min=45))
    assert problem.startswith("tasks[0].time_limit_min: task 'trip' states a time limit of 45 min")
    assert "30-minute cap" in problem


def test_a_checks_task_stating_neither_limit_is_refused_for_both():
    doc = {
        "benchmark": {"slug": "c", "name": "C", "methodology": "checks"},
        "tasks": [{"key": "shop", "title": "Shop", "version": "1.0", "kind": "to-spec"}],
    }
    problems = validate_bundle(doc)
    assert [p.split(":")[0] for p in problems] == ["tasks[0].time_limit_min", "tasks[0].token_budget"]
