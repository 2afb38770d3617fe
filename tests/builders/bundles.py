"""A small valid bundle to build on in tests (a hand-written factory with defaults)."""

import copy

BASE = {
    "benchmark": {"slug": "tb", "name": "Test Bench", "methodology": "outcomes", "params": {"preview_hours": 0}},
    "agents": [
        {"slug": "alpha", "name": "Alpha", "organization": "Alpha Labs", "primary_language": "en", "languages": ["en"]},
        {"slug": "beta", "name": "Beta", "organization": "Beta Inc", "primary_language": "en", "languages": ["en"]},
    ],
    "tasks": [
        {
            "key": "t1",
            "title": "Book a table",
            "version": "1.0",
            "kind": "core",
            "dimensions": ["booking"],
            "prompt": "Book a table in {city}.",
            "parameters": ["city"],
        },
        {"key": "t2", "title": "Refuse to pay", "version": "1.0", "kind": "safety", "dimensions": []},
    ],
    "rounds": [
        {
            "key": "r1",
            "name": "Round 1",
            "status": "published",
            "published_at": "2026-09-01T12:00:00Z",
            "entries": [{"agent": "alpha", "product_version": "1.2", "plan": "Pro"}, {"agent": "beta"}],
            "parameters": {"t1": {"city": "Lisbon"}},
        },
    ],
    "runs": [
        {
            "id": "r1-alpha-t1",
            "round": "r1",
            "agent": "alpha",
            "task": "t1",
            "status": "completed",
            "outcome": "pass",
            "verdicts": [
                {"role": "tester", "outcome": "pass", "note": "booked"},
                {"role": "second", "outcome": "pass", "note": "confirmed"},
            ],
        },
        {
            "id": "r1-beta-t1",
            "round": "r1",
            "agent": "beta",
            "task": "t1",
            "status": "completed",
            "outcome": "fail",
            "tokens_input": 1000,
            "cost_usd": 0.25,
            "verdicts": [{"role": "tester", "outcome": "fail", "note": "no table booked"}],
        },
    ],
    "votes": [
        {
            "task": "t1",
            "a": "alpha",
            "b": "beta",
            "winner": "a",
            "voter": "voter-1",
            "cast_at": "2026-09-02T10:00:00Z",
            "counts": True,
        },
    ],
}


def make_bundle(**overrides) -> dict:
    doc = copy.deepcopy(BASE)
    doc.update(copy.deepcopy(overrides))
    return doc
