"""Small hand-made rounds, one per open question of the methodologies (`scoring.readings`), as bundle documents:
each is built so that the board differs under the question's two readings, and the tests work out both boards
by hand from the seed. The same documents go through the scoring functions, `recount`, an import and the pages."""

from __future__ import annotations

from typing import Any

WEEK_START = "2026-03-02"


def _bundle(slug: str, methodology: str, agents: list[tuple[str, str]], tasks: list[dict], runs: list[dict]) -> dict:
    rnd: dict[str, Any] = {
        "key": "r1",
        "name": "Round 1",
        "status": "published",
        "published_at": "2026-03-09T12:00:00Z",
        "starts_on": WEEK_START,
        "tasks": [t["key"] for t in tasks],
        "entries": [{"agent": s, "product_version": "1.0", "plan": "Pro"} for s, _ in agents],
    }
    for run in runs:
        run.setdefault("round", "r1")
        run.setdefault("task_version", "1.0")
        run.setdefault("trial", 1)
        run.setdefault("language", "en")
        run.setdefault("status", "completed")
        run.setdefault("started_at", f"{WEEK_START}T10:00:00Z")
    return {
        "benchmark": {
            "slug": slug,
            "name": f"{slug.title()} bench",
            "methodology": methodology,
            "params": {"preview_hours": 0},
        },
        "agents": [
            {"slug": s, "name": n, "organization": f"{n} Labs", "primary_language": "en", "languages": ["en"]}
            for s, n in agents
        ],
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


def _spec_task(key: str, **kw: Any) -> dict:
    task = {
        "key": key,
        "title": key.upper(),
        "version": "1.0",
        "kind": "to-spec",
        "dimensions": [],
        "time_limit_min": 60,
        "token_budget": 1_000_000,
        "prompt": "Build it.",
    }
    task.update(kw)
    return task


def _checks_run(run_id: str, agent: str, task: str, api: int, browser: int, **kw: Any) -> dict:
    """A checks run of 2 API checks and 2 browser steps: 25 x api + 25 x browser (003 "Score")."""
    run = {
        "id": run_id,
        "agent": agent,
        "task": task,
        "app_started": True,
        "api_checks_passed": api,
        "api_checks_total": 2,
        "browser_steps_passed": browser,
        "browser_steps_total": 2,
        "tokens_input": 500,
        "tokens_output": 500,
        "wall_seconds": 600.0,
    }
    run.update(kw)
    return run


def infra_error_bundle() -> dict:
    """003: KBravo's only run of k3 was a platform failure. KBravo scores 50 on k1 (1 of 2 API checks, 1 of 2
    browser steps) and 50 on k2 (2 of 2 API, 0 of 2 browser). KAlpha scores 100, 0, 0 with 1,000 tokens a run;
    KCharlie 0, 50, 50 with 2,000 tokens a run."""
    agents = [("kalpha", "KAlpha"), ("kbravo", "KBravo"), ("kcharlie", "KCharlie")]
    tasks = [_spec_task(k) for k in ("k1", "k2", "k3")]
    runs = [
        _checks_run("kb-k1", "kbravo", "k1", 1, 1),
        _checks_run("kb-k2", "kbravo", "k2", 2, 0),
        {"id": "kb-k3", "agent": "kbravo", "task": "k3", "status": "infra_error"},
        _checks_run("ka-k1", "kalpha", "k1", 2, 2),
        _checks_run("ka-k2", "kalpha", "k2", 0, 0),
        _checks_run("ka-k3", "kalpha", "k3", 0, 0),
        _checks_run("kc-k1", "kcharlie", "k1", 0, 0, tokens_input=1000, tokens_output=1000),
        _checks_run("kc-k2", "kcharlie", "k2", 1, 1, tokens_input=1000, tokens_output=1000),
        _checks_run("kc-k3", "kcharlie", "k3", 1, 1, tokens_input=1000, tokens_output=1000),
    ]
    return _bundle("kbench", "checks", agents, tasks, runs)


def spread_bundle() -> dict:
    """003: Mira's three runs of each task score t1 0, 50, 100; t2 25, 50, 75; t3 0, 25, 25. Lee's every run
    scores 50."""
    agents = [("mira", "Mira"), ("lee", "Lee")]
    tasks = [_spec_task(k) for k in ("t1", "t2", "t3")]
    # (api, browser) per run, each worth 25.
    mira = {"t1": [(0, 0), (1, 1), (2, 2)], "t2": [(1, 0), (1, 1), (2, 1)], "t3": [(0, 0), (1, 0), (0, 1)]}
    runs = [
        _checks_run(f"mira-{t}-{i}", "mira", t, api, browser, trial=i)
        for t, parts in mira.items()
        for i, (api, browser) in enumerate(parts, start=1)
    ]
    runs += [_checks_run(f"lee-{t}-{i}", "lee", t, 1, 1, trial=i) for t in mira for i in (1, 2, 3)]
    return _bundle("spread", "checks", agents, tasks, runs)


def missing_usage_bundle() -> dict:
    """003: Ana's one run of m1 passes every check (100) but its output tokens were not reported; Ben's one run
    scores 75 (2 of 2 API checks, 1 of 2 browser steps) with its usage known."""
    agents = [("ana", "Ana"), ("ben", "Ben")]
    runs = [
        _checks_run("ana-m1", "ana", "m1", 2, 2, tokens_output=None),
        _checks_run("ben-m1", "ben", "m1", 2, 1),
    ]
    return _bundle("usage", "checks", agents, [_spec_task("m1")], runs)


def time_limit_bundle() -> dict:
    """003 and 000: the task "long" states no time limit. Tess's completed run took 40 minutes (2,400 s) and
    passed every check (100); Uma's took 20 minutes (1,200 s) and scored 50."""
    agents = [("tess", "Tess"), ("uma", "Uma")]
    task = _spec_task("long")
    del task["time_limit_min"]
    runs = [
        _checks_run("tess-long", "tess", "long", 2, 2, wall_seconds=2400.0),
        _checks_run("uma-long", "uma", "long", 1, 1, wall_seconds=1200.0),
    ]
    return _bundle("limits", "checks", agents, [task], runs)


def _auto_task(key: str, evaluation: str = "auto") -> dict:
    return {
        "key": key,
        "title": key.upper(),
        "version": "1.0",
        "kind": "core",
        "evaluation": evaluation,
        "prompt": "Do it.",
    }


def overall_mean_bundle() -> dict:
    """002: five tasks scored by tests. Alpha ran all five and passed 4 of 10 tests on each (0.4); Bravo ran s1, s2
    and s3 only: 5 of 10 (0.5), 6 of 10 (0.6) and 16 of 25 (0.64)."""
    agents = [("alpha", "Alpha"), ("bravo", "Bravo")]
    keys = ("s1", "s2", "s3", "s4", "s5")
    runs = [{"id": f"alpha-{k}", "agent": "alpha", "task": k, "tests_passed": 4, "tests_total": 10} for k in keys]
    runs += [
        {"id": f"bravo-{k}", "agent": "bravo", "task": k, "tests_passed": p, "tests_total": n}
        for k, p, n in (("s1", 5, 10), ("s2", 6, 10), ("s3", 16, 25))
    ]
    return _bundle("means", "scored", agents, [_auto_task(k) for k in keys], runs)


def heuristic_cap_bundle() -> dict:
    """002: one composite task. Hana passed 10 of 10 tests and, with no judge configured, got a heuristic 0.90;
    Ivo passed 9 of 10 tests and the judge gave 7, 7 and 7."""
    agents = [("hana", "Hana"), ("ivo", "Ivo")]
    runs = [
        {"id": "hana-c1", "agent": "hana", "task": "c1", "tests_passed": 10, "tests_total": 10, "heuristic": 0.9},
        {"id": "ivo-c1", "agent": "ivo", "task": "c1", "tests_passed": 9, "tests_total": 10, "judge_scores": [7, 7, 7]},
    ]
    return _bundle("capped", "scored", agents, [_auto_task("c1", "composite")], runs)


def _reviewed(outcome: str, second: str | None = None, third: str | None = None) -> list[dict]:
    out = [{"role": "tester", "outcome": outcome, "note": "as seen in the recording"}]
    if second is not None:
        out.append({"role": "second", "outcome": second, "note": "from the evidence"})
    if third is not None:
        out.append({"role": "third", "outcome": third, "note": "decided"})
    return out


def unsupported_bundle() -> dict:
    """000: three core tasks. Alpha passes a1 and a2 and cannot attempt a3 (no phone calls: unsupported); Beta
    passes a1 and a2 and meets the partial criterion on a3. Every outcome agreed by tester and second reviewer."""
    agents = [("alpha", "Alpha"), ("beta", "Beta")]
    tasks = [
        {"key": k, "title": k.upper(), "version": "1.0", "kind": "core", "dimensions": ["calls"], "prompt": "Do it."}
        for k in ("a1", "a2", "a3")
    ]
    outcomes = {"alpha": ("pass", "pass", "unsupported"), "beta": ("pass", "pass", "partial")}
    runs = []
    for agent, per_task in outcomes.items():
        for key, outcome in zip(("a1", "a2", "a3"), per_task, strict=True):
            run = {"id": f"{agent}-{key}", "agent": agent, "task": key, "outcome": outcome}
            if outcome == "unsupported":
                run["status"] = "unsupported"
            run["verdicts"] = _reviewed(outcome, outcome)
            runs.append(run)
    return _bundle("unsup", "outcomes", agents, tasks, runs)


def _weekly_task(key: str) -> dict:
    return {
        "key": key,
        "title": key.title(),
        "version": "1.0",
        "kind": "core",
        "time_limit_min": 30,
        "prompt": "Do it.",
    }


def weekly_review_bundle() -> dict:
    """004: two tasks. Rook's trip run: the tester labeled it pass, the second reviewer fail, and a third reviewer
    fail; Rook failed inbox; no interventions. Sage passed trip and failed inbox, with one intervention on trip."""
    agents = [("rook", "Rook"), ("sage", "Sage")]
    runs = [
        {"id": "rook-trip", "agent": "rook", "task": "trip", "verdicts": _reviewed("pass", "fail", "fail")},
        {"id": "rook-inbox", "agent": "rook", "task": "inbox", "outcome": "fail"},
        {"id": "sage-trip", "agent": "sage", "task": "trip", "outcome": "pass", "interventions": 1},
        {"id": "sage-inbox", "agent": "sage", "task": "inbox", "outcome": "fail"},
    ]
    for run in runs:
        run.setdefault("interventions", 0)
        run["wall_seconds"] = 900.0
    return _bundle("review", "weekly", agents, [_weekly_task(k) for k in ("trip", "inbox")], runs)


def interventions_bundle() -> dict:
    """004: five tasks. Piper ran all five with 1 intervention each and passed trip and inbox; Quill ran four
    (not expenses) with no intervention and passed trip and inbox."""
    agents = [("piper", "Piper"), ("quill", "Quill")]
    keys = ("trip", "inbox", "research", "cart", "expenses")
    runs = []
    for agent, count in (("piper", 1), ("quill", 0)):
        for key in keys:
            if agent == "quill" and key == "expenses":
                continue
            outcome = "pass" if key in ("trip", "inbox") else "fail"
            runs.append(
                {"id": f"{agent}-{key}", "agent": agent, "task": key, "outcome": outcome, "interventions": count}
            )
    for run in runs:
        run["wall_seconds"] = 900.0
    return _bundle("week", "weekly", agents, [_weekly_task(k) for k in keys], runs)


# question id -> (its bundle, the other reading's value)
BY_QUESTION = {
    "infra-error": (infra_error_bundle, "zero"),
    "spread": (spread_bundle, "single-runs"),
    "missing-usage": (missing_usage_bundle, "not-counted"),
    "time-limit-default": (time_limit_bundle, "30-minutes"),
    "overall-mean": (overall_mean_bundle, "tasks-run"),
    "heuristic-cap": (heuristic_cap_bundle, "whole-score"),
    "unsupported": (unsupported_bundle, "left-out"),
    "weekly-review": (weekly_review_bundle, "tester-alone"),
    "interventions": (interventions_bundle, "sum-of-runs"),
}
