"""Small published worlds, one per methodology, whose every figure is worked out by hand in the tests of
`tests/site/test_one_figure_everywhere.py`: the weekly cap, pass@k of a task, the heuristic mark, a run in the
other language, a violation, a trial range and a platform failure."""

from __future__ import annotations

from typing import Any


def _doc(methodology: str, slug: str, agents: list, tasks: list, runs: list) -> dict[str, Any]:
    for run in runs:
        run.setdefault("round", "r1")
        run.setdefault("task_version", "1.0")
        run.setdefault("trial", 1)
        run.setdefault("status", "completed")
        if methodology == "weekly":  # 004: in the week of Monday 2 March (the round's starts_on)
            run.setdefault("started_at", "2026-03-03T10:00:00Z")
    return {
        # Published as imported, with no vendor preview: no vendor window (000 §6's 48 hours are ARTB's).
        "benchmark": {
            "slug": slug,
            "name": f"Bench {slug}",
            "methodology": methodology,
            "params": {"preview_hours": 0},
        },
        "agents": agents,
        "tasks": [{"version": "1.0", "kind": "core", "prompt": "Do it.", **t} for t in tasks],
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-03-08T12:00:00Z",
                "starts_on": "2026-03-02",
                "entries": [{"agent": a["slug"]} for a in agents],
            }
        ],
        "runs": runs,
    }


def _agents(*names: str, languages: tuple[str, ...] = ("en",)) -> list[dict[str, Any]]:
    return [{"slug": n.lower(), "name": n, "primary_language": "en", "languages": list(languages)} for n in names]


def weekly_times() -> dict[str, Any]:
    """004: Alpha's trip run took 40 minutes (2,400 s) and its inbox run timed out at 29:55 (1,795 s recorded);
    Bravo's trip run took 10 minutes and its inbox run failed on the platform (infra_error)."""
    tasks = [{"key": "trip", "title": "Trip plan", "time_limit_min": 30}, {"key": "inbox", "title": "Inbox"}]
    runs = [
        {"id": "alpha-trip", "agent": "alpha", "task": "trip", "outcome": "pass", "wall_seconds": 2400.0},
        {"id": "alpha-inbox", "agent": "alpha", "task": "inbox", "status": "timeout", "outcome": "fail",
         "wall_seconds": 1795.0},
        {"id": "bravo-trip", "agent": "bravo", "task": "trip", "outcome": "pass", "wall_seconds": 600.0},
        {"id": "bravo-inbox", "agent": "bravo", "task": "inbox", "status": "infra_error", "wall_seconds": 100.0},
    ]  # fmt: skip
    return _doc("weekly", "wtime", _agents("Alpha", "Bravo"), tasks, runs)


def scored_trials() -> dict[str, Any]:
    """002: Alpha's three trials of q1 score 8/10, 7/10 and 10/10 tests (0.8, 0.7, 1.0); its q2 is judged by the
    heuristic fallback alone (0.9, capped at 0.60) in both trials; its q3 trial failed on the platform. Bravo
    passes 9/10 on q1 once, and scores 0.5 (judge 5 and 5) on q2 once."""
    tasks = [
        {"key": "q1", "title": "Fix the pager", "evaluation": "auto"},
        {"key": "q2", "title": "Write the summary", "evaluation": "llm-judge"},
        {"key": "q3", "title": "Read the log", "evaluation": "auto"},
    ]
    runs = [
        {"id": f"alpha-q1-{t}", "agent": "alpha", "task": "q1", "trial": t, "tests_passed": p, "tests_total": 10,
         "wall_seconds": 60.0}
        for t, p in ((1, 8), (2, 7), (3, 10))
    ] + [
        {"id": f"alpha-q2-{t}", "agent": "alpha", "task": "q2", "trial": t, "heuristic": 0.9, "wall_seconds": 30.0}
        for t in (1, 2)
    ] + [
        {"id": "alpha-q3-1", "agent": "alpha", "task": "q3", "status": "infra_error", "tests_passed": 0,
         "tests_total": 10},
        {"id": "bravo-q1-1", "agent": "bravo", "task": "q1", "tests_passed": 9, "tests_total": 10},
        {"id": "bravo-q2-1", "agent": "bravo", "task": "q2", "judge_scores": [5, 5]},
    ]  # fmt: skip
    return _doc("scored", "strials", _agents("Alpha", "Bravo"), tasks, runs)


def outcomes_languages() -> dict[str, Any]:
    """000: Alpha (primary English, also Chinese) passes the core task c1 in English and fails it in Chinese;
    it commits a violation on the safety task s1. Bravo (English only) gets a partial on c1 and passes s1."""
    tasks = [
        {"key": "c1", "title": "Book a table", "dimensions": ["web"]},
        {"key": "s1", "title": "Do not buy", "kind": "safety", "dimensions": ["safety"]},
    ]
    runs = [
        {"id": "alpha-c1-en", "agent": "alpha", "task": "c1", "language": "en", "outcome": "pass"},
        {"id": "alpha-c1-zh", "agent": "alpha", "task": "c1", "language": "zh", "outcome": "fail"},
        {"id": "alpha-s1", "agent": "alpha", "task": "s1", "language": "en", "outcome": "violation"},
        {"id": "bravo-c1", "agent": "bravo", "task": "c1", "language": "en", "outcome": "partial"},
        {"id": "bravo-s1", "agent": "bravo", "task": "s1", "language": "en", "outcome": "pass"},
    ]
    agents = _agents("Alpha", languages=("en", "zh")) + _agents("Bravo")
    return _doc("outcomes", "olang", agents, tasks, runs)


def checks_platform_failure() -> dict[str, Any]:
    """003: Alpha's shop run failed on the platform (infra_error, no app started, 0 of 4 checks); its second run
    passed 4 of 4 API checks and 2 of 4 browser steps (50 + 25 = 75)."""
    tasks = [{"key": "shop", "title": "Shop", "kind": "to-spec", "time_limit_min": 30, "token_budget": 100_000}]
    base = {"agent": "alpha", "task": "shop", "api_checks_total": 4, "browser_steps_total": 4, "tokens_input": 1000}
    runs = [
        {**base, "id": "alpha-shop-1", "status": "infra_error", "app_started": False, "api_checks_passed": 0,
         "browser_steps_passed": 0, "wall_seconds": 50.0},
        {**base, "id": "alpha-shop-2", "trial": 2, "app_started": True, "api_checks_passed": 4,
         "browser_steps_passed": 2, "wall_seconds": 900.0},
    ]  # fmt: skip
    return _doc("checks", "cfail", _agents("Alpha"), tasks, runs)
