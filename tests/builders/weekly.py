"""A weekly table (004) whose vendor disputed one run and an editor accepted it: the re-run it allows must state
when it started, in the round's week (tests/runs/test_rerun_start_admin.py, tests/test_round_rules_parity.py).

Week 41 of 2026 starts on Monday 5 October: its week is 2026-10-05 00:00:00 UTC up to, not including,
2026-10-12 00:00:00 UTC. Every run started on Tuesday 6 October, 09:00 UTC."""

from __future__ import annotations

from bundles.importer import bundle_import
from leaderboard.models import Round
from runs.models import Run
from runs.services import dispute_decide, dispute_file, round_enter_preview
from tests.builders.review import make_user


def weekly_doc() -> dict:
    """Two agents of two vendors, two tasks, one run each, in week 41; a 48-hour vendor window."""
    return {
        "benchmark": {"slug": "wk", "name": "Weekly", "methodology": "weekly", "params": {"preview_hours": 48}},
        "agents": [
            {"slug": "ava", "name": "Ava", "organization": "Ava Labs"},
            {"slug": "bo", "name": "Bo", "organization": "Bo Inc"},
        ],
        "tasks": [
            {"key": "trip", "title": "Trip plan", "version": "1.0", "kind": "core", "prompt": "Plan a weekend."},
            {"key": "inbox", "title": "Inbox", "version": "1.0", "kind": "core", "prompt": "Sort my inbox."},
        ],
        "rounds": [
            {
                "key": "w41",
                "name": "Week 41",
                "status": "draft",
                "starts_on": "2026-10-05",
                "entries": [{"agent": "ava"}, {"agent": "bo"}],
            }
        ],
        "runs": [
            {
                "id": f"{agent}-{task}",
                "round": "w41",
                "agent": agent,
                "task": task,
                "task_version": "1.0",
                "status": "completed",
                "outcome": "pass",
                "started_at": "2026-10-06T09:00:00Z",
            }
            for agent in ("ava", "bo")
            for task in ("trip", "inbox")
        ],
    }


def disputed_week(editor) -> dict:
    """Week 41 in its vendor preview: Ava Labs (its user "ava-vendor") disputed ava-trip ("the network was down") and
    `editor` accepted it; no other run is disputed."""
    bundle_import(doc=weekly_doc())
    rnd = Round.objects.get(benchmark__slug="wk", key="w41")
    round_enter_preview(round=rnd, by=editor)
    run = Run.objects.get(round=rnd, key="ava-trip")
    vendor = make_user("ava-vendor", "Vendors", org="Ava Labs")
    dispute = dispute_file(run=run, user=vendor, reason="environment", note="The network was down.")
    dispute_decide(dispute=dispute, accept=True, by=editor)
    return {"editor": editor, "vendor": vendor, "run": run, "dispute": dispute}
