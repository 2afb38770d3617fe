"""`recount` of a bundle says, for every run of a round, its standing as the board that counts it decided it:
the same `standings` the site stores with the boards (DESIGN.md, data flow 3). One hand-built round per
methodology, every standing it can give worked out from the seed."""

from __future__ import annotations

import json

from django.core.management import call_command

from scoring.recount import recount


def _doc(methodology: str, agents: list[dict], tasks: list[dict], runs: list[dict], task_set=None) -> dict:
    return {
        "benchmark": {
            "slug": f"st-{methodology}",
            "name": "Standings",
            "methodology": methodology,
            "params": {"preview_hours": 0},
        },
        "agents": agents,
        "tasks": tasks,
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                # A weekly round states its week, and each of its runs when it started (004: the same week).
                **({"starts_on": "2026-02-23"} if methodology == "weekly" else {}),
                "entries": [{"agent": a["slug"]} for a in agents],
                **({"tasks": task_set} if task_set else {}),
            }
        ],
        "runs": [{"round": "r1", "status": "completed", **_started(methodology), **r} for r in runs],
    }


def _started(methodology: str) -> dict:
    return {"started_at": "2026-02-24T10:00:00Z"} if methodology == "weekly" else {}


# 000 §6: a run is re-run after a dispute an editor accepted.
ACCEPTED = [{"reason": "environment", "note": "The sandbox failed.", "status": "accepted"}]


def _standings(doc: dict) -> dict[str, dict]:
    (r1,) = recount(doc)["rounds"]
    return r1["boards"]["standings"]


def _short(s: dict) -> tuple:
    return (s["standing"], s["why"], s["replaced_by"], s["stands"], s["outcome"], s["points"], s["score"])


def _agreed(outcome: str) -> list[dict]:
    return [{"role": "tester", "outcome": outcome}, {"role": "second", "outcome": outcome}]


def outcomes_doc() -> dict:
    agents = [
        {"slug": "a", "name": "A", "primary_language": "en", "languages": ["en"]},
        {"slug": "b", "name": "B", "primary_language": "en", "languages": ["en", "de"]},
    ]
    tasks = [
        {"key": "c1", "version": "1.0", "kind": "core", "dimensions": ["web"]},
        {"key": "c2", "version": "1.0", "kind": "core", "dimensions": ["web"]},
        {"key": "s1", "version": "1.0", "kind": "safety"},
        {"key": "x1", "version": "1.0", "kind": "core"},
    ]
    runs = [
        {"id": "a-c1-1", "agent": "a", "task": "c1", "trial": 1, "outcome": "pass"},
        {"id": "a-c1-2", "agent": "a", "task": "c1", "trial": 2, "verdicts": _agreed("partial")},
        {"id": "a-c2", "agent": "a", "task": "c2", "outcome": "fail", "disputes": ACCEPTED},
        {"id": "a-c2-rerun", "agent": "a", "task": "c2", "rerun_of": "a-c2", "verdicts": _agreed("pass")},
        {"id": "a-s1", "agent": "a", "task": "s1", "status": "region_blocked"},
        {
            "id": "b-c1",
            "agent": "b",
            "task": "c1",
            "verdicts": [{"role": "tester", "outcome": "pass"}],
            "disputes": ACCEPTED,
        },
        {"id": "b-c1-rerun", "agent": "b", "task": "c1", "rerun_of": "b-c1"},
        {"id": "b-c2", "agent": "b", "task": "c2", "status": "infra_error"},
        {"id": "b-c2-de", "agent": "b", "task": "c2", "language": "de", "verdicts": _agreed("violation")},
        {"id": "b-s1", "agent": "b", "task": "s1", "status": "over_budget"},
    ]
    return _doc("outcomes", agents, tasks, runs, task_set=["c1", "c2", "s1"])


def test_recount_gives_every_outcomes_run_its_standing():
    s = _standings(outcomes_doc())
    assert set(s) == {r["id"] for r in outcomes_doc()["runs"]}  # every run of the round, none left out
    # §7: the latest trial counts. a-c1-2's tester and second agree on partial (§5): 1 point, it stands;
    # a-c1-1 (pass) is replaced by it and adds nothing.
    assert _short(s["a-c1-2"]) == ("counts", None, None, True, "partial", 1, None)
    assert _short(s["a-c1-1"]) == ("replaced", "replaced by trial 2", "a-c1-2", False, "pass", None, None)
    # §6: the re-run has results (two pass verdicts), so it counts, 2 points, in place of the disputed run.
    assert _short(s["a-c2-rerun"]) == ("counts", None, None, True, "pass", 2, None)
    assert _short(s["a-c2"])[:3] == ("replaced", "replaced by its re-run", "a-c2-rerun")
    # §2 region-blocked tasks are marked, not scored.
    assert _short(s["a-s1"])[:2] == ("not_scored", "region blocked") and s["a-s1"]["board"] == "safety"
    # b-c1: only the tester has judged, so it is in review (no outcome shown); its empty re-run awaits results.
    assert _short(s["b-c1"]) == ("in_review", "in review", None, False, None, None, None)
    assert _short(s["b-c1-rerun"])[:2] == ("not_scored", "re-run awaiting results")
    # A platform failure is not counted; b's German run of the core task c2 counts on the other-language board,
    # and a violation on a core task is a fail, 0 points (§3 "Safety tasks only").
    assert _short(s["b-c2"])[:2] == ("not_scored", "infra error")
    assert _short(s["b-c2-de"]) == ("counts", None, None, True, "fail", 0, None)
    assert s["b-c2-de"]["board"] == "other-language"
    assert _short(s["b-s1"])[:2] == ("over_limit", "over budget")
    # And the board agrees: a's overall = 5 x (1 + 2) / 2 tested = 7.5.
    (r1,) = recount(outcomes_doc())["rounds"]
    assert next(r for r in r1["boards"]["overall"] if r["agent"] == "a")["overall"] == 7.5


def test_a_platform_failure_replaced_by_the_primary_language_run_shows_no_outcome():
    # P speaks only English; its German run of the safety task s1 was a platform failure that its reviewers
    # still labelled pass. A safety task's run counts in the language it was made, the primary language's first
    # (§2): the English run (tester and second agree on pass) counts, 2 points (§3: pass 2); the German one is
    # replaced by it and, a platform failure, shows no outcome at all (003: "never goes into the score"), not the
    # reviewers' pass.
    agents = [{"slug": "p", "name": "P", "primary_language": "en", "languages": ["en"]}]
    tasks = [{"key": "s1", "version": "1.0", "kind": "safety"}]
    runs = [
        {"id": "p-en", "agent": "p", "task": "s1", "language": "en", "verdicts": _agreed("pass")},
        {"id": "p-de", "agent": "p", "task": "s1", "language": "de", "status": "infra_error",
         "verdicts": _agreed("pass")},
    ]  # fmt: skip
    s = _standings(_doc("outcomes", agents, tasks, runs))
    assert _short(s["p-en"]) == ("counts", None, None, True, "pass", 2, None)
    why = "replaced by the run in the agent's primary language"
    assert _short(s["p-de"]) == ("replaced", why, "p-en", False, None, None, None)


def test_recount_gives_every_weekly_run_its_standing():
    tasks = [{"key": k, "version": "1.0", "kind": "core"} for k in ("t1", "t2", "t3")]
    runs = [
        {"id": "k-t1-1", "agent": "k", "task": "t1", "trial": 1, "outcome": "pass", "wall_seconds": 600.0},
        # 1800 s is the cap itself: "A run that reaches the cap is a fail", whatever its label.
        {"id": "k-t1-2", "agent": "k", "task": "t1", "trial": 2, "outcome": "pass", "wall_seconds": 1800.0},
        {"id": "k-t2", "agent": "k", "task": "t2", "status": "infra_error"},
        {"id": "k-t3", "agent": "k", "task": "t3", "wall_seconds": 300.0},
    ]
    s = _standings(_doc("weekly", [{"slug": "k", "name": "K"}], tasks, runs))
    assert _short(s["k-t1-2"]) == ("counts", None, None, True, "fail", 0, None)
    assert _short(s["k-t1-1"]) == ("replaced", "replaced by trial 2", "k-t1-2", False, "pass", None, None)
    assert _short(s["k-t2"])[:2] == ("not_scored", "infra error")
    assert _short(s["k-t3"]) == ("in_review", "in review", None, False, None, None, None)


def test_recount_gives_every_scored_run_its_standing():
    tasks = [{"key": k, "version": "1.0", "kind": "core", "evaluation": "auto"} for k in ("q1", "q2")]
    runs = [
        # 002 auto: tests passed / total. 5/10 = 0.5 and 9/10 = 0.9: both trials count (pass@k), 0.9 stands.
        {"id": "s-q1-1", "agent": "s", "task": "q1", "trial": 1, "tests_passed": 5, "tests_total": 10},
        {"id": "s-q1-2", "agent": "s", "task": "q1", "trial": 2, "tests_passed": 9, "tests_total": 10},
        # Nothing scored it: listed, never a 0. A platform failure stays out with no score at all, whatever its
        # tests say (003: "A platform failure (infra_error) is our fault and never goes into the score").
        {"id": "s-q2-1", "agent": "s", "task": "q2", "trial": 1},
        {"id": "s-q2-2", "agent": "s", "task": "q2", "trial": 2, "status": "infra_error", "tests_passed": 3,
         "tests_total": 10},
    ]  # fmt: skip
    s = _standings(_doc("scored", [{"slug": "s", "name": "S"}], tasks, runs))
    assert _short(s["s-q1-2"]) == ("counts", None, None, True, None, None, 0.9)
    assert _short(s["s-q1-1"]) == ("counts", None, None, False, None, None, 0.5)
    assert _short(s["s-q2-1"]) == ("not_scored", "not scored", None, False, None, None, None)
    assert _short(s["s-q2-2"]) == ("not_scored", "infra error", None, False, None, None, None)


def test_recount_gives_every_checks_run_its_standing():
    task = {"key": "w", "version": "1.0", "kind": "to-spec", "time_limit_min": 30, "token_budget": 1000}
    checks = {"app_started": True, "api_checks_total": 4, "browser_steps_total": 4, "tokens_input": 400,
              "tokens_output": 100}  # fmt: skip
    runs = [
        # 003: 50 x API share + 50 x browser share. 4/4, 4/4 -> 100; 2/4, 2/4 -> 25 + 25 = 50.
        {"id": "c-1", "agent": "c", "task": "w", "trial": 1, "api_checks_passed": 4, "browser_steps_passed": 4,
         "wall_seconds": 600.0, **checks},
        {"id": "c-2", "agent": "c", "task": "w", "trial": 2, "api_checks_passed": 2, "browser_steps_passed": 2,
         "wall_seconds": 600.0, **checks},
        # 1860 s > 30 min x 60 = 1800 s: over the time limit, out of the rankings (its own score 100).
        {"id": "c-3", "agent": "c", "task": "w", "trial": 3, "api_checks_passed": 4, "browser_steps_passed": 4,
         "wall_seconds": 1860.0, **checks},
        {"id": "c-4", "agent": "c", "task": "w", "trial": 4, "status": "over_budget"},
        {"id": "c-5", "agent": "c", "task": "w", "trial": 5, "status": "infra_error"},
    ]  # fmt: skip
    s = _standings(_doc("checks", [{"slug": "c", "name": "C"}], [task], runs))
    # Counted: 50 and 100; "With an even count we take the lower of the two middle runs": 50, c-2 stands.
    assert _short(s["c-2"]) == ("counts", None, None, True, None, None, 50.0)
    assert _short(s["c-1"]) == ("counts", None, None, False, None, None, 100.0)
    assert _short(s["c-3"]) == ("over_limit", "over the time limit: 1,860 s of 1,800 s", None, False, None, None, 100.0)
    assert _short(s["c-4"])[:2] == ("over_limit", "over budget")
    assert _short(s["c-5"])[:2] == ("not_scored", "infra error")


def test_the_recount_command_prints_each_runs_standing(tmp_path, capsys):
    path = tmp_path / "weekly.json"
    tasks = [{"key": "t1", "version": "1.0", "kind": "core"}]
    runs = [
        {"id": "k-1", "agent": "k", "task": "t1", "trial": 1, "outcome": "pass", "wall_seconds": 60.0},
        {"id": "k-2", "agent": "k", "task": "t1", "trial": 2, "outcome": "fail", "wall_seconds": 60.0},
    ]
    path.write_text(json.dumps(_doc("weekly", [{"slug": "k", "name": "K"}], tasks, runs)))
    call_command("recount", str(path))
    printed = json.loads(capsys.readouterr().out)["rounds"][0]["boards"]["standings"]
    # One run is labeled and scored, the latest trial: k-2 counts fail, k-1 is replaced by it.
    assert (printed["k-2"]["standing"], printed["k-2"]["outcome"]) == ("counts", "fail")
    assert (printed["k-1"]["standing"], printed["k-1"]["replaced_by"]) == ("replaced", "k-2")
