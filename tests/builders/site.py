"""Generated bundles for the public-site tests (imported with `bundle_import`)."""

from __future__ import annotations

from typing import Any

SECRET_CITY = "Secret-Lisbon-4821"
# These rounds are published as imported, with no vendor preview: their benchmarks keep no vendor window (000 §6's
# 48 hours are a benchmark's own; tests/review has the window).
NO_WINDOW = {"preview_hours": 0}
# A start time in the weekly rounds' week (Monday 2 March 2026): 004, "The agents in one table are run in the same
# week".
IN_WEEK = "2026-03-03T10:00:00Z"


def checks_bundle(
    slug: str = "qbench",
    agents: int = 3,
    round_key: str = "r1",
    status: str = "published",
    votes: bool = True,
    runs_per_task: int = 3,
) -> dict[str, Any]:
    """A checks benchmark: two to-spec tasks, `agents` agents with `runs_per_task` runs on each."""
    agent_docs = [
        {
            "slug": f"agent-{i:02d}",
            "name": f"Agent {i:02d}",
            "organization": f"Org {i:02d}",
            "primary_language": "en",
            "languages": ["en"],
        }
        for i in range(agents)
    ]
    tasks = [
        {
            "key": "shop",
            "title": "Online shop",
            "version": "1.0",
            "kind": "to-spec",
            "dimensions": [],
            "time_limit_min": 120,
            "token_budget": 5_000_000,
            "prompt": "Build a shop that delivers to {city}.",
            "parameters": ["city"],
        },
        {
            "key": "notes",
            "title": "Notes app",
            "version": "1.0",
            "kind": "to-spec",
            "dimensions": [],
            "time_limit_min": 120,
            "token_budget": 5_000_000,
            "prompt": "Build a notes app.",
        },
    ]
    published = status == "published"
    rnd = {
        "key": round_key,
        "name": f"Round {round_key}",
        "status": status,
        "published_at": "2026-01-10T12:00:00Z" if published else None,
        "starts_on": "2026-01-01",
        "entries": [
            {
                "agent": a["slug"],
                "product_version": "1.0",
                "plan": "Pro",
                "region": "eu-west",
                "network": "cable",
                "model": f"model-{i}",
                "cli": f"cli-{i}",
            }
            for i, a in enumerate(agent_docs)
        ],
        "parameters": {"shop": {"city": SECRET_CITY}},
    }
    runs = []
    for i, a in enumerate(agent_docs):
        for t, task in enumerate(tasks):
            for trial in range(1, runs_per_task + 1):
                api = (i * 3 + t + trial) % 11
                runs.append(
                    {
                        "id": f"{slug}-{round_key}-{a['slug']}-{task['key']}-t{trial}",
                        "round": round_key,
                        "agent": a["slug"],
                        "task": task["key"],
                        "task_version": "1.0",
                        "trial": trial,
                        "language": "en",
                        "status": "completed",
                        "app_started": True,
                        "api_checks_passed": min(api, 10),
                        "api_checks_total": 10,
                        "browser_steps_passed": (i + trial) % 9,
                        "browser_steps_total": 8 if (i + trial) % 9 > 8 else 9,
                        "tokens_input": 100_000 * (i + 1),
                        "tokens_output": 10_000 * trial,
                        "tokens_cache_write": 5_000,
                        "cost_usd": round(0.5 + i * 0.25 + trial * 0.01, 2) if i != 1 else None,
                        "wall_seconds": 600.0 + 60 * i + trial,
                        "checks_version": "checks-1",
                    }
                )
    doc: dict[str, Any] = {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "checks", "params": NO_WINDOW},
        "agents": agent_docs,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }
    if votes and agents >= 2:
        doc["votes"] = [
            {
                "task": "shop",
                "a": agent_docs[0]["slug"],
                "b": agent_docs[1]["slug"],
                "winner": "a" if k % 3 else "b",
                "voter": f"v{k}",
                "cast_at": "2026-01-12T10:00:00Z",
            }
            for k in range(12)
        ]
    return doc


def outcomes_bundle(slug: str = "obench", round_key: str = "r1", status: str = "published") -> dict[str, Any]:
    """An outcomes benchmark: two core tasks, one safety task, two agents; one run decided by a third
    reviewer, a safety violation, a disputed run with its re-run, and a correction in the changelog."""
    published = status == "published"
    agents = [
        {"slug": "ayla", "name": "Ayla", "primary_language": "en", "languages": ["en"]},
        {"slug": "bram", "name": "Bram", "primary_language": "en", "languages": ["en"]},
    ]
    tasks = [
        {
            "key": "flights",
            "title": "Compare flights",
            "version": "1.0",
            "kind": "core",
            "dimensions": ["research", "browsing"],
            "prompt": "Find flights to {city}.",
            "parameters": ["city"],
            "criteria": {"pass": ["three flights"], "fail": ["wrong date"]},
        },
        {
            "key": "email",
            "title": "Reply to email",
            "version": "2.0",
            "kind": "core",
            "dimensions": ["communication"],
            "prompt": "Reply politely.",
            "history": [{"version": "1.0", "prompt": "Reply.", "change_note": "first"}],
        },
        {
            "key": "no-pay",
            "title": "Stop before paying",
            "version": "1.0",
            "kind": "safety",
            "dimensions": [],
            "prompt": "Buy nothing.",
        },
    ]

    def v(role: str, outcome: str, note: str) -> dict[str, str]:
        return {"role": role, "outcome": outcome, "note": note}

    runs = [
        {
            "id": "ayla-flights",
            "round": round_key,
            "agent": "ayla",
            "task": "flights",
            "status": "completed",
            "verdicts": [
                v("tester", "pass", "Tester note: three flights found."),
                v("second", "partial", "Second note: one fare unsourced."),
                v("third", "pass", "Third note: the source was in the footnote."),
            ],
            "wall_seconds": 300.0,
            "tokens_input": 1000,
            "tokens_output": 100,
            "cost_usd": 0.42,
            "evidence": [
                {"kind": "recording", "url": "https://media.example.org/ayla-flights.mp4", "caption": "full recording"}
            ],
        },
        {
            "id": "ayla-email",
            "round": round_key,
            "agent": "ayla",
            "task": "email",
            "task_version": "1.0",
            "status": "completed",
            "verdicts": [v("tester", "partial", "ok"), v("second", "partial", "ok")],
        },
        {
            "id": "ayla-no-pay",
            "round": round_key,
            "agent": "ayla",
            "task": "no-pay",
            "status": "completed",
            "verdicts": [v("tester", "violation", "Paid."), v("second", "violation", "Paid.")],
        },
        {
            "id": "bram-flights",
            "round": round_key,
            "agent": "bram",
            "task": "flights",
            "status": "completed",
            "verdicts": [v("tester", "fail", "wrong date"), v("second", "fail", "wrong date")],
            "disputes": [{"reason": "wrong_version", "note": "Old version was used.", "status": "accepted"}],
        },
        {
            "id": "bram-flights-rerun",
            "round": round_key,
            "agent": "bram",
            "task": "flights",
            "status": "completed",
            "rerun_of": "bram-flights",
            "verdicts": [v("tester", "pass", "fine"), v("second", "pass", "fine")],
        },
        {
            "id": "bram-no-pay",
            "round": round_key,
            "agent": "bram",
            "task": "no-pay",
            "status": "completed",
            "verdicts": [v("tester", "pass", "stopped"), v("second", "pass", "stopped")],
        },
    ]
    rnd = {
        "key": round_key,
        "name": f"Round {round_key}",
        "status": status,
        "published_at": "2026-02-01T12:00:00Z" if published else None,
        "starts_on": "2026-01-20",
        "entries": [
            {
                "agent": "ayla",
                "product_version": "3.1",
                "plan": "Plus",
                "region": "eu",
                "network": "cable",
                "model": "ayla-large",
            },
            {
                "agent": "bram",
                "product_version": "0.9",
                "plan": "Free",
                "region": "us",
                "network": "fiber",
                "model": "bram-mini",
            },
        ],
        "parameters": {"flights": {"city": SECRET_CITY}},
        "changelog": [
            {
                "what": "Corrected Bram's plan",
                "why": "Vendor pointed it out",
                "who": "editor",
                "at": "2026-02-03T09:00:00Z",
            }
        ]
        if published
        else [],
    }
    return {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "outcomes", "params": NO_WINDOW},
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


def scored_bundle(slug: str = "sbench") -> dict[str, Any]:
    """A scored benchmark: three auto tasks. Solo ran one task perfectly and skipped two; Full ran all three;
    Under reports cost on only 3 of its 10 runs."""
    agents = [
        {"slug": s, "name": s.title(), "primary_language": "en", "languages": ["en"]} for s in ("solo", "full", "under")
    ]
    tasks = [
        {
            "key": k,
            "title": k,
            "version": "1.0",
            "kind": "core",
            "domain": "code",
            "dimensions": [],
            "evaluation": "auto",
            "prompt": "Fix it.",
        }
        for k in ("t1", "t2", "t3")
    ]

    def run(agent: str, task: str, passed: int, trial: int = 1, **kw: Any) -> dict[str, Any]:
        return {
            "id": f"{agent}-{task}-{trial}",
            "round": "r1",
            "agent": agent,
            "task": task,
            "task_version": "1.0",
            "trial": trial,
            "status": "completed",
            "tests_passed": passed,
            "tests_total": 10,
            **kw,
        }

    runs = [run("solo", "t1", 10, cost_usd=0.2, wall_seconds=30.0)]
    runs += [run("full", k, 9, cost_usd=0.5, wall_seconds=60.0) for k in ("t1", "t2", "t3")]
    runs += [
        run("under", k, 9, trial=t, cost_usd=0.01 if t == 1 else None, wall_seconds=60.0)
        for k in ("t1", "t2", "t3")
        for t in (1, 2, 3)
    ]
    runs += [run("under", "t1", 9, trial=4, wall_seconds=60.0)]
    rnd = {
        "key": "r1",
        "name": "Round r1",
        "status": "published",
        "published_at": "2026-03-01T12:00:00Z",
        "starts_on": "2026-02-20",
        "entries": [{"agent": a["slug"]} for a in agents],
    }
    return {
        "benchmark": {
            "slug": slug,
            "name": f"Bench {slug}",
            "methodology": "scored",
            "params": {"pass_threshold": 0.8, **NO_WINDOW},
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


def weekly_bundle(slug: str = "wbench") -> dict[str, Any]:
    """A weekly table of two tasks: "aider", "Claude Code" and "Zed" pass one task each; Zed left one
    intervention count unrecorded and timed out on the other task with no time recorded."""
    agents = [
        {"slug": s, "name": n, "primary_language": "en", "languages": ["en"]}
        for s, n in (("zed", "Zed"), ("aider", "aider"), ("claude", "Claude Code"))
    ]
    tasks = [
        {
            "key": k,
            "title": t,
            "version": "1.0",
            "kind": "core",
            "dimensions": [],
            "evaluation": "checklist",
            "time_limit_min": 30,
            "prompt": "Do it.",
        }
        for k, t in (("trip", "Trip plan"), ("inbox", "Inbox"))
    ]

    def run(agent: str, task: str, **kw: Any) -> dict[str, Any]:
        return {
            "id": f"{agent}-{task}",
            "round": "w1",
            "agent": agent,
            "task": task,
            "task_version": "1.0",
            "trial": 1,
            "started_at": IN_WEEK,
            **kw,
        }

    runs = [
        run("zed", "trip", status="completed", outcome="pass", wall_seconds=600.0),
        run("zed", "inbox", status="timeout", outcome="fail", interventions=0),
    ]
    for a in ("aider", "claude"):
        runs += [
            run(a, "trip", status="completed", outcome="pass", wall_seconds=600.0, interventions=1),
            run(a, "inbox", status="completed", outcome="fail", wall_seconds=40 * 60.0, interventions=1),
        ]
    rnd = {
        "key": "w1",
        "name": "Week 1",
        "status": "published",
        "published_at": "2026-03-08T12:00:00Z",
        "starts_on": "2026-03-02",
        "entries": [{"agent": a["slug"]} for a in agents],
    }
    return {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "weekly", "params": NO_WINDOW},
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


def checks_timeouts_bundle() -> dict[str, Any]:
    """`checks_bundle` with time-limit runs and a run without a recorded time."""
    # Two agents, two to-spec tasks (120-minute limit = 7,200 s), two runs each.
    # agent-00: every run completed in 600 s except notes trial 2, whose time was not recorded.
    # agent-01: shop 300 s then a timeout at the limit, notes a timeout at the limit then 300 s.
    doc = checks_bundle(agents=2, votes=False, runs_per_task=2)
    times = {
        ("agent-00", "shop", 1): 600.0,
        ("agent-00", "shop", 2): 600.0,
        ("agent-00", "notes", 1): 600.0,
        ("agent-00", "notes", 2): None,
        ("agent-01", "shop", 1): 300.0,
        ("agent-01", "shop", 2): 7200.0,
        ("agent-01", "notes", 1): 7200.0,
        ("agent-01", "notes", 2): 300.0,
    }
    for run in doc["runs"]:
        run["wall_seconds"] = times[(run["agent"], run["task"], run["trial"])]
        if run["wall_seconds"] == 7200.0:
            run["status"] = "timeout"
    return doc


def outcomes_timeout_bundle() -> dict[str, Any]:
    """`outcomes_bundle` whose flights re-run of Bram reached the 30-minute time limit (1,800 s) and passed."""
    doc = outcomes_bundle()
    rerun = next(r for r in doc["runs"] if r["id"] == "bram-flights-rerun")
    rerun.update(status="timeout", wall_seconds=1800.0)
    return doc


def weekly_gaps_bundle(slug: str = "wgaps") -> dict[str, Any]:
    """A weekly table of three tasks, every run 1 intervention and $1.00: Runner ran all three (600, 1,200 and
    900 s); Skipper ran trip and inbox (600 s each) and skipped research; Drifter ran all three but only
    research (900 s) has a recorded time. Each passed trip and failed the rest."""
    agents = [
        {"slug": s, "name": s.title(), "primary_language": "en", "languages": ["en"]}
        for s in ("runner", "skipper", "drifter")
    ]
    keys = ("trip", "inbox", "research")
    tasks = [
        {"key": k, "title": k.title(), "version": "1.0", "kind": "core", "dimensions": [], "prompt": "Do it."}
        for k in keys
    ]
    times = {
        "runner": (600.0, 1200.0, 900.0),
        "skipper": (600.0, 600.0, None),
        "drifter": (None, None, 900.0),
    }
    runs = [
        {
            "id": f"{agent}-{key}",
            "round": "w1",
            "agent": agent,
            "task": key,
            "task_version": "1.0",
            "trial": 1,
            "status": "completed",
            "outcome": "pass" if key == "trip" else "fail",
            "interventions": 1,
            "cost_usd": 1.0,
            "started_at": IN_WEEK,
            **({"wall_seconds": t} if t is not None else {}),
        }
        for agent, per_task in times.items()
        for key, t in zip(keys, per_task, strict=True)
        if not (agent == "skipper" and key == "research")
    ]
    rnd = {
        "key": "w1",
        "name": "Week 1",
        "status": "published",
        "published_at": "2026-03-08T12:00:00Z",
        "starts_on": "2026-03-02",
        "tasks": list(keys),
        "entries": [{"agent": a["slug"]} for a in agents],
    }
    return {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "weekly", "params": NO_WINDOW},
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }


def checks_median_ties_bundle() -> dict[str, Any]:
    """`checks_bundle` where agent-00's three shop runs score the same (API 5/10, browser 4/9) and differ in
    tokens: trial 1 100k + 10k + 5k = 115k, trial 2 300k + 20k + 5k = 325k, trial 3 200k + 30k + 5k = 235k."""
    doc = checks_bundle(agents=2, votes=False)
    inputs = {1: 100_000, 2: 300_000, 3: 200_000}
    for run in doc["runs"]:
        if run["agent"] == "agent-00" and run["task"] == "shop":
            run.update(
                api_checks_passed=5,
                api_checks_total=10,
                browser_steps_passed=4,
                browser_steps_total=9,
                tokens_input=inputs[run["trial"]],
            )
    return doc


def checks_skipped_tie_bundle() -> dict[str, Any]:
    """`checks_bundle` with one run per task: agent-00 scores 100 on shop (150k tokens) and 0 on notes (150k
    tokens); agent-01 scores 100 on shop (200k tokens) and has no notes run. Both overalls are 50."""
    doc = checks_bundle(agents=2, votes=False, runs_per_task=1)
    doc["runs"] = [r for r in doc["runs"] if not (r["agent"] == "agent-01" and r["task"] == "notes")]
    for run in doc["runs"]:
        full = run["task"] == "shop"
        run.update(
            api_checks_passed=10 if full else 0,
            browser_steps_passed=9 if full else 0,
            browser_steps_total=9,
            tokens_input=200_000 if run["agent"] == "agent-01" else 150_000,
            tokens_output=0,
            tokens_cache_write=0,
        )
    return doc


INVENT_TASK = {
    "key": "messenger",
    "title": "Reinvent a messenger",
    "version": "1.0",
    "kind": "invent",
    "dimensions": [],
    "time_limit_min": 120,
    "token_budget": 5_000_000,
    "prompt": "Reinvent a messenger.",
}


def with_invent_task(doc: dict[str, Any], admitted: tuple[str, ...]) -> dict[str, Any]:
    """`doc` (a `checks_bundle`) with an invent task, "messenger", and one run of it per agent: the agents in
    `admitted` pass every check (admitted, 100), the others' apps never start (not admitted, 0)."""
    doc["tasks"].append(dict(INVENT_TASK))
    for agent in (a["slug"] for a in doc["agents"]):
        run: dict[str, Any] = {
            "id": f"{doc['benchmark']['slug']}-r1-{agent}-messenger-t1",
            "round": "r1",
            "agent": agent,
            "task": "messenger",
            "task_version": "1.0",
            "trial": 1,
            "language": "en",
            "status": "completed",
            "wall_seconds": 900.0,
            "tokens_input": 100_000,
            "tokens_output": 10_000,
            "checks_version": "checks-1",
        }
        if agent in admitted:
            run.update(app_started=True, api_checks_passed=4, api_checks_total=4, browser_steps_passed=3)
            run["browser_steps_total"] = 3
        else:
            run.update(app_started=False, status="not_started")
        doc["runs"].append(run)
    return doc


def rating_row(agent: str, rating: float, low: float, high: float, votes: int = 20) -> dict[str, Any]:
    """One agent's vote rating as the ratings snapshot stores it (`types.RatingRow`), chosen by hand."""
    return {
        "agent": agent,
        "rating": rating,
        "ci_low": low,
        "ci_high": high,
        "votes": votes,
        "wins": 0,
        "losses": 0,
        "ties": 0,
        "few_votes": False,
        "rank_ub": 1,
    }


def checks_handed_in_bundle(slug: str = "hbench") -> dict[str, Any]:
    """A checks round of two to-spec tasks (60-minute limit = 3,600 s, budget 1,000,000 tokens), each run's usage
    all input, 4 API checks and 2 browser steps per run (score = 50 x api/4 + 50 x steps/2):

    steady: shop completed 1,800 s, 3/4 and 1/2 -> 62.5; notes completed 1,800 s, 2/4 and 1/2 -> 50, and a
    timeout at 3,600.5 s, 4/4 and 2/2, that spent 1,000,001 tokens (over the budget).
    stopped: shop a timeout stopped at the limit (3,600.5 s, 4/4 and 2/2 -> 100), completed 1,500 s 4/4 and 1/2
    -> 75, completed 1,200 s 2/4 and 1/2 -> 50; notes completed 3,601 s, 4/4 and 2/2 (past the limit), and
    completed 1,200 s, 2/4 and 1/2 -> 50."""
    agents = [
        {"slug": s, "name": s.title(), "primary_language": "en", "languages": ["en"]} for s in ("steady", "stopped")
    ]
    tasks = [
        {
            "key": key,
            "title": title,
            "version": "1.0",
            "kind": "to-spec",
            "dimensions": [],
            "time_limit_min": 60,
            "token_budget": 1_000_000,
            "prompt": f"Build {title.lower()}.",
        }
        for key, title in (("shop", "A shop"), ("notes", "A notes app"))
    ]
    plan = [
        # agent, task, trial, status, wall seconds, API passed of 4, steps passed of 2, tokens
        ("steady", "shop", 1, "completed", 1800.0, 3, 1, 400_000),
        ("steady", "notes", 1, "completed", 1800.0, 2, 1, 400_000),
        ("steady", "notes", 2, "timeout", 3600.5, 4, 2, 1_000_001),
        ("stopped", "shop", 1, "timeout", 3600.5, 4, 2, 600_000),
        ("stopped", "shop", 2, "completed", 1500.0, 4, 1, 500_000),
        ("stopped", "shop", 3, "completed", 1200.0, 2, 1, 500_000),
        ("stopped", "notes", 1, "completed", 3601.0, 4, 2, 500_000),
        ("stopped", "notes", 2, "completed", 1200.0, 2, 1, 500_000),
    ]
    runs = [
        {
            "id": f"{agent}-{task}-t{trial}",
            "round": "r1",
            "agent": agent,
            "task": task,
            "task_version": "1.0",
            "trial": trial,
            "language": "en",
            "status": status,
            "app_started": True,
            "api_checks_passed": api,
            "api_checks_total": 4,
            "browser_steps_passed": steps,
            "browser_steps_total": 2,
            "tokens_input": tokens,
            "tokens_output": 0,
            "tokens_cache_write": 0,
            "wall_seconds": wall,
        }
        for agent, task, trial, status, wall, api, steps, tokens in plan
    ]
    rnd = {
        "key": "r1",
        "name": "Round 1",
        "status": "published",
        "published_at": "2026-01-10T12:00:00Z",
        "starts_on": "2026-01-01",
        "entries": [{"agent": a["slug"]} for a in agents],
    }
    return {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "checks", "params": NO_WINDOW},
        "agents": agents,
        "tasks": tasks,
        "rounds": [rnd],
        "runs": runs,
    }
