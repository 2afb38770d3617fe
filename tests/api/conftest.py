"""A small bundle for the API tests: one benchmark with a published round, a preview round and a draft
round, two agents, two tasks (one with round parameters), verdicts, evidence, a dispute and a few votes.
The draft and preview rounds hold values the tests look for to prove they never leak."""

from __future__ import annotations

import copy

import pytest

from bundles.importer import bundle_import

SECRET_CITY = "Secret-Preview-City"
DRAFT_CITY = "Secret-Draft-City"
PREVIEW_NOTE = "preview tester note: must stay private"


def _run(run_id: str, rnd: str, agent: str, task: str, outcome: str, **kw) -> dict:
    run = {
        "id": run_id,
        "round": rnd,
        "agent": agent,
        "task": task,
        "task_version": "1.0",
        "trial": 1,
        "status": "completed",
        "outcome": outcome,
        "tokens_input": 1000,
        "tokens_output": 200,
        "cost_usd": 0.25,
        "wall_seconds": 300.0,
        "verdicts": [
            {"role": "tester", "outcome": outcome, "note": f"tester on {run_id}"},
            {"role": "second", "outcome": outcome, "note": f"second on {run_id}"},
        ],
    }
    run.update(kw)
    return run


BUNDLE = {
    "benchmark": {
        "slug": "demo",
        "name": "Demo Bench",
        "methodology": "outcomes",
        "description": "A benchmark for API tests.",
        "params": {"preview_hours": 0},
    },
    "agents": [
        {
            "slug": "nimbus",
            "name": "Nimbus",
            "organization": "Nimbus Labs",
            "primary_language": "en",
            "languages": ["en"],
        },
        {
            "slug": "tianji",
            "name": "Tianji",
            "organization": "Tianji AI",
            "primary_language": "zh",
            "languages": ["zh", "en"],
        },
        {"slug": "hidden-agent", "name": "Hidden Agent", "organization": "Stealth Co"},
    ],
    "tasks": [
        {
            "key": "flight-compare",
            "title": "Compare nonstop flights",
            "version": "1.0",
            "kind": "core",
            "dimensions": ["research", "browsing"],
            "time_limit_min": 30,
            "domain": "research",
            "prompt": "Find the three cheapest nonstop flights from {origin} to {destination}.",
            "parameters": ["origin", "destination"],
            "criteria": {"pass": ["three flights"], "fail": ["connecting flights"]},
        },
        {
            "key": "email-reply",
            "title": "Reply to an email",
            "version": "1.0",
            "kind": "core",
            "dimensions": ["communication"],
            "time_limit_min": 20,
            "prompt": "Reply to the latest email.",
        },
    ],
    "rounds": [
        {
            "key": "r1",
            "name": "Round 1",
            "status": "published",
            "published_at": "2026-09-20T12:00:00Z",
            "entries": [
                {"agent": "nimbus", "product_version": "2.1", "plan": "Pro"},
                {"agent": "tianji", "product_version": "5.0", "region": "cn"},
            ],
            "parameters": {"flight-compare": {"origin": "Denver", "destination": "Miami"}},
            "changelog": [
                {
                    "what": "r1-tianji-email: outcome corrected from fail to partial",
                    "why": "missed draft",
                    "who": "editor",
                    "at": "2026-09-22T09:00:00Z",
                }
            ],
        },
        {
            "key": "r2",
            "name": "Round 2",
            "status": "preview",
            "preview_started_at": "2026-10-18T12:00:00Z",
            "entries": [{"agent": "nimbus"}, {"agent": "hidden-agent"}],
            "parameters": {"flight-compare": {"origin": SECRET_CITY, "destination": "Oslo"}},
        },
        {
            "key": "r3",
            "name": "Round 3",
            "status": "draft",
            "entries": [{"agent": "nimbus"}],
            "parameters": {"flight-compare": {"origin": DRAFT_CITY, "destination": "Rome"}},
        },
    ],
    "runs": [
        _run(
            "r1-nimbus-flight",
            "r1",
            "nimbus",
            "flight-compare",
            "pass",
            evidence=[
                {
                    "kind": "recording",
                    "url": "https://media.example.org/r1/nimbus/flight.mp4",
                    "caption": "screen recording",
                }
            ],
        ),
        _run("r1-nimbus-email", "r1", "nimbus", "email-reply", "partial"),
        _run(
            "r1-tianji-flight",
            "r1",
            "tianji",
            "flight-compare",
            "fail",
            disputes=[{"reason": "wrong_plan", "note": "we were on the Pro plan", "status": "rejected"}],
        ),
        _run(
            "r1-tianji-email",
            "r1",
            "tianji",
            "email-reply",
            "partial",
            verdicts=[
                {"role": "tester", "outcome": "fail", "note": "t"},
                {"role": "second", "outcome": "fail", "note": "s"},
                {"role": "third", "outcome": "partial", "matched": ["partial"], "note": "third decides"},
            ],
        ),
        _run(
            "r2-nimbus-flight",
            "r2",
            "nimbus",
            "flight-compare",
            "pass",
            verdicts=[{"role": "tester", "outcome": "pass", "note": PREVIEW_NOTE}],
        ),
        _run(
            "r2-hidden-flight",
            "r2",
            "hidden-agent",
            "flight-compare",
            "fail",
            verdicts=[{"role": "tester", "outcome": "fail", "note": PREVIEW_NOTE}],
        ),
        _run(
            "r3-nimbus-flight",
            "r3",
            "nimbus",
            "flight-compare",
            "pass",
            verdicts=[{"role": "tester", "outcome": "pass", "note": PREVIEW_NOTE}],
        ),
    ],
    "votes": [
        {
            "task": "flight-compare",
            "a": "nimbus",
            "b": "tianji",
            "winner": "a",
            "voter": "v1",
            "cast_at": "2026-09-21T10:00:00Z",
        },
        {
            "task": "flight-compare",
            "a": "tianji",
            "b": "nimbus",
            "winner": "b",
            "voter": "v2",
            "cast_at": "2026-09-21T11:00:00Z",
        },
        {
            "task": "email-reply",
            "a": "nimbus",
            "b": "tianji",
            "winner": "tie",
            "voter": "v3",
            "cast_at": "2026-09-21T12:00:00Z",
        },
    ],
}


def small_bundle() -> dict:
    return copy.deepcopy(BUNDLE)


@pytest.fixture
def demo(db, django_capture_on_commit_callbacks):
    """The bundle imported, with its board and ratings snapshots computed (Celery runs eagerly in tests)."""
    with django_capture_on_commit_callbacks(execute=True):
        report = bundle_import(doc=small_bundle())
    return report


@pytest.fixture
def bundle_doc() -> dict:
    return small_bundle()


@pytest.fixture
def no_rate_limit(settings):
    settings.API_RATE_LIMIT = 0
