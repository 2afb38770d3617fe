"""Validation of a results bundle reports every problem with its path, section by section, in document order.

These pin the wording and the order of the problems: an importer reads them, and a change of wording or order
would be a change a user notices."""

import pytest

from scoring.bundle_checks import validate_bundle


def bundle_with_a_problem_everywhere():
    return {
        "benchmark": {"slug": "artb", "name": "ARTB", "methodology": "outcomes", "params": {"pass_threshold": 1.5}},
        "agents": [
            {"slug": "a", "name": "Agent A", "languages": ["en"]},
            {"slug": "b", "name": "Agent B"},
            {"slug": "a", "name": "Agent A again"},
        ],
        "tasks": [{"key": "c1", "version": "1.0", "kind": "core"}, {"key": "c2", "version": "one", "kind": "core"}],
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "entries": [{"agent": "a"}, {"agent": "b"}, {"agent": "ghost"}, {"agent": "a"}],
                "tasks": ["c1", "c9"],
                "parameters": {"c1": {"port": 8080}, "c2": "8080", "c9": {}},
                "changelog": [{"what": "fixed a typo"}, {"when": "today"}],
            },
            {"key": "r2", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["c1", "c1"]},
        ],
        "runs": [
            {"id": "1", "round": "r1", "agent": "a", "task": "c1", "status": "completed", "outcome": "pass"},
            {"id": "1", "round": "r1", "agent": "b", "task": "c1", "status": "completed", "outcome": "pass"},
            {"id": "3", "round": "r0", "agent": "a", "task": "c1", "status": "completed", "outcome": "pass"},
            {"id": "4", "round": "r1", "agent": "a", "task": "c2", "status": "completed", "outcome": "pass"},
            {"id": "5", "round": "r2", "agent": "b", "task": "c1", "status": "completed", "outcome": "pass"},
            {
                "id": "6",
                "round": "r1",
                "agent": "b",
                "task": "c1",
                "status": "completed",
                "tests_passed": 7,
                "tests_total": 5,
                "api_checks_passed": 2,
                "judge_scores": [5, 11],
                "app_started": "yes",
                "verdicts": [
                    {"role": "tester", "outcome": "pass"},
                    {"role": "tester", "matched": ["pass", "meh"]},
                    {"role": "second"},
                ],
            },
            {
                "id": "7",
                "round": "r1",
                "agent": "a",
                "task": "c1",
                "status": "completed",
                "outcome": "fail",
                "evidence": [{"kind": "video", "url": "https://example.com/v"}],
                "checks": [{"kind": "api", "name": "GET /", "passed": "yes"}],
                "disputes": [{"reason": "bad luck"}],
            },
            {
                "id": "8",
                "round": "r1",
                "agent": "a",
                "task": "c1",
                "status": "completed",
                "outcome": "pass",
                "rerun_of": "7",
            },
            {
                "id": "9",
                "round": "r1",
                "agent": "a",
                "task": "c1",
                "status": "completed",
                "outcome": "pass",
                "rerun_of": "8",
            },
            {
                "id": "10",
                "round": "r1",
                "agent": "b",
                "task": "c1",
                "status": "completed",
                "outcome": "pass",
                "rerun_of": "7",
            },
            {
                "id": "11",
                "round": "r1",
                "agent": "a",
                "task": "c1",
                "status": "completed",
                "outcome": "pass",
                "rerun_of": "99",
            },
        ],
        "votes": [
            {"id": "v1", "task": "c1", "a": "a", "b": "b", "winner": "a"},
            {"id": "v1", "task": "c1", "a": "a", "b": "a", "winner": "tie", "counts": "yes"},
        ],
    }


def test_it_reports_every_section_in_order_with_paths():
    assert validate_bundle(bundle_with_a_problem_everywhere()) == [
        "benchmark.params.pass_threshold: 1.5 is above 1.0",
        "agents[2].slug: duplicate agent 'a'",
        "tasks[1].version: 'one' is not a version like 1.0 or 2.1",
        # A round: its entries, then its task set, its parameters, its changelog.
        "rounds[0].entries[2].agent: unknown agent 'ghost'",
        "rounds[0].entries[3].agent: agent 'a' entered twice in round 'r1'",
        "rounds[0].tasks: unknown task 'c9'",
        "rounds[0].parameters.c2: must be an object of name: value",
        "rounds[0].parameters.c9: unknown task 'c9'",
        "rounds[0].changelog[1].what: is required",
        "rounds[1].tasks: a task is listed twice",
        # Each run on its own, then the re-runs once every id is known.
        "runs[1].id: duplicate run id '1' in round 'r1'",
        "runs[2].round: unknown round 'r0'",
        "runs[3].task: task 'c2' is not in round 'r1''s tasks",
        "runs[4].agent: agent 'b' has no entry in round 'r2'",
        "runs[5].app_started: must be true, false or null",
        "runs[5].tests_passed: 7 > tests_total 5",
        "runs[5].api_checks_total: is required when api_checks_passed is given",
        "runs[5].judge_scores[1]: 11 is not a score from 1 to 10",
        "runs[5].verdicts[1].role: a second 'tester' verdict on the same run",
        "runs[5].verdicts[1].matched: 'meh' is not one of pass, partial, fail, violation, unsupported",
        "runs[5].verdicts[2]: needs an outcome or matched outcomes",
        "runs[6].evidence[0].kind: 'video' is not one of recording, screenshot, log, audio, transcript, other",
        "runs[6].checks[0].passed: must be true or false",
        "runs[6].disputes[0].reason: 'bad luck' is not one of wrong_version, wrong_plan, environment, other",
        "runs[8].rerun_of: run '8' is itself a re-run; a re-run cannot be re-run",
        "runs[9].rerun_of: run '7' is for another round, agent or task",
        # That '7' would have two re-runs is a round rule, asked of the round (scoring.round_rules).
        "runs[10].rerun_of: unknown run '99'",
        "votes[1].id: duplicate vote id 'v1' (votes[0])",
        "votes[1].b: an agent cannot be matched against itself",
        "votes[1].counts: must be true or false",
    ]


def test_it_accepts_the_same_bundle_once_fixed():
    doc = bundle_with_a_problem_everywhere()
    doc["benchmark"]["params"]["pass_threshold"] = 0.5
    doc["agents"].pop()
    doc["tasks"][1]["version"] = "1.1"
    r1, r2 = doc["rounds"]
    r1["entries"] = r1["entries"][:2]
    r1["tasks"] = ["c1", "c2"]
    r1["parameters"] = {"c1": {"port": 8080}}
    r1["changelog"].pop()
    r2["tasks"] = ["c1"]
    r2["entries"].append({"agent": "b"})
    runs = doc["runs"]
    runs[1]["id"] = "2"
    runs[2]["round"] = "r1"
    runs[5].update(tests_passed=5, api_checks_total=2, judge_scores=[5, 10], app_started=True)
    runs[5]["verdicts"][1:] = [{"role": "second", "matched": ["pass"]}]
    runs[6].update(
        evidence=[{"kind": "recording", "url": "https://example.com/v"}],
        checks=[{"kind": "api", "name": "GET /", "passed": True}],
        disputes=[{"reason": "other"}],
    )
    runs[8]["rerun_of"] = "1"
    del runs[9]["rerun_of"], runs[10]["rerun_of"]
    doc["votes"][1].update(id="v2", b="b", counts=False)
    assert validate_bundle(doc) == []


def test_it_stops_at_a_document_that_is_not_an_object():
    assert validate_bundle([]) == ["(document): must be an object, got list"]


def test_it_stops_at_the_first_section_that_is_not_a_list():
    doc = {"benchmark": "x", "agents": "x", "tasks": 3, "runs": [{"id": "1"}]}
    assert validate_bundle(doc) == ["benchmark: must be an object, got str", "agents: must be a list, got str"]


def test_it_reports_the_benchmark_and_each_section_s_shape():
    doc = {
        "benchmark": {"slug": "a b", "methodology": "elo"},
        "votes": None,
        "agents": [3],
        "tasks": [{"key": "t", "version": "1", "kind": "core", "history": [{}]}],
        "rounds": [{"key": "r", "status": "published", "tasks": "t"}],
    }
    assert validate_bundle(doc) == [
        "benchmark.slug: 'a b' is not a valid key (letters, digits, '-', '_', '.')",
        "benchmark.name: is required",
        "benchmark.methodology: 'elo' is not one of outcomes, scored, checks, weekly",
        "agents[0]: must be an object, got int",
        "tasks[0].history[0].version: is required",
        "rounds[0].tasks: must be a list of task keys",
    ]


def test_a_run_task_that_is_not_a_string_is_reported_not_raised():
    from scoring.bundle_checks import validate_bundle

    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "checks"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [{"id": "x", "round": "r", "agent": "a", "task": ["t"], "status": "completed"}],
    }
    problems = validate_bundle(doc)
    assert any(p.startswith("runs[0].task:") for p in problems)


def test_an_app_build_is_a_folder_inside_the_bundles_folder_and_at_most_one_per_run():
    def run(*evidence):
        return {"id": "x", "round": "r", "agent": "a", "task": "t", "status": "completed", "evidence": list(evidence)}

    def problems(*runs):
        doc = {
            "benchmark": {"slug": "b", "name": "B", "methodology": "checks"},
            "agents": [{"slug": "a", "name": "A"}],
            "tasks": [
                {
                    "key": "t",
                    "title": "T",
                    "version": "1.0",
                    "kind": "to-spec",
                    "time_limit_min": 60,
                    "token_budget": 1_000_000,
                }
            ],
            "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
            "runs": [{**r, "id": str(i)} for i, r in enumerate(runs)],
        }
        return validate_bundle(doc)

    # An app build needs no url (it is a folder, not a link), beside other evidence that does.
    assert problems(run({"kind": "app", "path": "apps/run-1"}, {"kind": "log", "url": "https://example.com/l"})) == []
    bad = ["/apps/run-1", "apps\\run-1", "c:apps", "apps/../../etc", "..", "apps//run-1", "apps/run-1/", ""]
    assert problems(*(run({"kind": "app", "path": p}) for p in bad)) == [
        "runs[0].evidence[0].path: '/apps/run-1' must be a relative folder inside the bundle's folder, without '..'",
        "runs[1].evidence[0].path: 'apps\\\\run-1' must be a relative folder inside the bundle's folder, without '..'",
        "runs[2].evidence[0].path: 'c:apps' must be a relative folder inside the bundle's folder, without '..'",
        "runs[3].evidence[0].path: 'apps/../../etc' must be a relative folder inside the bundle's folder, without '..'",
        "runs[4].evidence[0].path: '..' must be a relative folder inside the bundle's folder, without '..'",
        "runs[5].evidence[0].path: 'apps//run-1' must be a relative folder inside the bundle's folder, without '..'",
        "runs[6].evidence[0].path: 'apps/run-1/' must be a relative folder inside the bundle's folder, without '..'",
        "runs[7].evidence[0].path: must not be empty",
    ]
    assert problems(run({"kind": "app"}), run({"kind": "app", "path": "a" * 501})) == [
        "runs[0].evidence[0].path: is required",
        "runs[1].evidence[0].path: is longer than 500 characters",
    ]
    assert problems(run({"kind": "app", "path": "a" * 500})) == []
    assert problems(run({"kind": "app", "path": "apps/one"}, {"kind": "app", "path": "apps/two"})) == [
        "runs[0].evidence: at most one app build per run"
    ]


def test_a_number_is_a_finite_int_or_float_never_a_boolean_or_text():
    from scoring.bundle import BundleError, check_bundle

    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "scored"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [
            {
                "id": "x",
                "round": "r",
                "agent": "a",
                "task": "t",
                "status": "completed",
                "cost_usd": True,
                "wall_seconds": float("inf"),
                "score": "high",
                "judge_scores": [True, 5, float("nan")],
            }
        ],
    }
    expected = [
        "runs[0].cost_usd: must be a number or null, got True",
        "runs[0].wall_seconds: must be a number or null, got inf",
        "runs[0].score: must be a number or null, got 'high'",
        "runs[0].judge_scores[0]: True is not a score from 1 to 10",
        "runs[0].judge_scores[2]: nan is not a score from 1 to 10",
    ]
    assert validate_bundle(doc) == expected
    # Refused as a whole, its message one problem a line.
    with pytest.raises(BundleError) as exc:
        check_bundle(doc)
    assert exc.value.problems == expected and str(exc.value) == "\n".join(expected)


def test_a_vote_id_is_a_non_empty_string_or_integer_of_at_most_100_characters_and_unique():
    def vote(vid):
        return {"id": vid, "task": "t", "a": "a", "b": "b", "winner": "a"}

    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "checks"},
        "agents": [{"slug": "a", "name": "A"}, {"slug": "b", "name": "B"}],
        "tasks": [
            {
                "key": "t",
                "title": "T",
                "version": "1.0",
                "kind": "invent",
                "time_limit_min": 60,
                "token_budget": 1_000_000,
            }
        ],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "votes": [vote(v) for v in ("", "x" * 101, "y" * 100, "v1", 7, "v1", "7", 1.5, [1])],
    }
    # 100 characters is allowed, 101 is not; the integer 7 is the id "7", so a later "7" repeats it.
    assert validate_bundle(doc) == [
        "votes[0].id: must be a non-empty string of at most 100 characters",
        "votes[1].id: must be a non-empty string of at most 100 characters",
        "votes[5].id: duplicate vote id 'v1' (votes[3])",
        "votes[6].id: duplicate vote id '7' (votes[4])",
        "votes[7].id: must be a non-empty string of at most 100 characters",
        "votes[8].id: must be a non-empty string of at most 100 characters",
    ]


def test_a_run_names_its_id_round_agent_and_task_and_only_declared_ones():
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "checks"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [
            {
                "key": "t",
                "title": "T",
                "version": "1.0",
                "kind": "to-spec",
                "time_limit_min": 60,
                "token_budget": 1_000_000,
            }
        ],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [
            {"id": "", "round": "r", "agent": "a", "task": "t", "status": "completed"},
            {"id": "2", "status": "completed"},
            {"id": "3", "round": "r", "agent": "ghost", "task": "zz", "status": "completed"},
        ],
    }
    # An unknown agent has no entry to look for; an unknown task is not looked for in the round's tasks.
    assert validate_bundle(doc) == [
        "runs[0].id: is required (a string)",
        "runs[1].round: is required",
        "runs[1].agent: is required",
        "runs[1].task: is required",
        "runs[2].agent: unknown agent 'ghost'",
        "runs[2].task: unknown task 'zz'",
    ]


def test_a_runs_own_values_are_checked_against_their_ranges_and_lengths():
    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    runs = [
        # Every value at its limit: accepted. A published score may be negative (no lower bound).
        {
            **base,
            "task_version": "v" * 20,
            "trial": 1,
            "score": -5,
            "auto_pass_rate": 0,
            "heuristic": 1,
            "judge_scores": [1, 10],
            "plan_label": "p" * 2000,
        },
        {
            **base,
            "task_version": "v" * 21,
            "trial": 0,
            "outcome": "meh",
            "steps": "x",
            "cost_usd": -1,
            "plan_label": "p" * 2001,
            "auto_pass_rate": 1.5,
            "heuristic": -0.1,
            "judge_scores": "x",
        },
        {
            **{k: v for k, v in base.items() if k != "status"},
            "auto_pass_rate": -0.5,
            "heuristic": 1.01,
            "judge_scores": [0.99, 10.5],
            "evidence": [{"url": "https://example.com/x"}],
        },
    ]
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "scored"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [{**r, "id": str(i)} for i, r in enumerate(runs)],
    }
    assert validate_bundle(doc) == [
        "runs[1].task_version: is longer than 20 characters",
        "runs[1].trial: 0 is below 1",
        "runs[1].outcome: 'meh' is not one of pass, partial, fail, violation, unsupported",
        "runs[1].steps: must be an integer or null, got 'x'",
        "runs[1].cost_usd: -1 is below 0.0",
        "runs[1].plan_label: is longer than 2000 characters",
        "runs[1].auto_pass_rate: 1.5 is above 1.0",
        "runs[1].heuristic: -0.1 is below 0.0",
        "runs[1].judge_scores: must be a list of numbers",
        "runs[2].status: is required",
        "runs[2].auto_pass_rate: -0.5 is below 0.0",
        "runs[2].heuristic: 1.01 is above 1.0",
        "runs[2].judge_scores[0]: 0.99 is not a score from 1 to 10",
        "runs[2].judge_scores[1]: 10.5 is not a score from 1 to 10",
        "runs[2].evidence[0].kind: is required",
    ]


def test_a_verdict_has_a_known_role_an_outcome_or_matched_outcomes_and_a_bounded_note():
    from scoring.bundle_checker import MAX_TEXT

    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    runs = [
        # A note of the longest allowed length, and matched outcomes instead of one outcome: accepted.
        {
            **base,
            "verdicts": [
                {"role": "tester", "outcome": "pass", "note": "n" * MAX_TEXT},
                {"role": "second", "matched": ["fail", "partial"]},
            ],
        },
        {
            **base,
            "verdicts": [
                {"outcome": "pass"},
                {"role": "boss", "outcome": "pass"},
                {"role": "tester", "outcome": "great"},
                {"role": "second", "matched": "fail"},
                {"role": "third", "matched": ["fail", "meh"], "note": "n" * (MAX_TEXT + 1)},
            ],
        },
    ]
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [{**r, "id": str(i)} for i, r in enumerate(runs)],
    }
    # An unknown outcome is no outcome: the verdict then has none. A text where a list belongs is refused.
    assert validate_bundle(doc) == [
        "runs[1].verdicts[0].role: is required",
        "runs[1].verdicts[1].role: 'boss' is not one of tester, second, third",
        "runs[1].verdicts[2].outcome: 'great' is not one of pass, partial, fail, violation, unsupported",
        "runs[1].verdicts[2]: needs an outcome or matched outcomes",
        "runs[1].verdicts[3].matched: must be a list of outcomes",
        "runs[1].verdicts[4].matched: 'meh' is not one of pass, partial, fail, violation, unsupported",
        "runs[1].verdicts[4].note: is longer than 100000 characters",
    ]


def test_a_third_verdict_needs_a_tester_and_a_second_beside_it():
    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    runs = [
        {**base, "verdicts": [{"role": "tester", "outcome": "pass"}, {"role": "third", "outcome": "fail"}]},
        {**base, "verdicts": [{"role": "third", "outcome": "fail"}]},
        {
            **base,
            "verdicts": [
                {"role": "tester", "outcome": "pass"},
                {"role": "second", "outcome": "fail"},
                {"role": "third", "outcome": "partial"},
            ],
        },
    ]
    assert validate_bundle(_one_task_doc("outcomes", "core", runs)) == [
        "runs[0].verdicts: a third reviewer decides between a tester and a second who disagree: no 'second' verdict",
        "runs[1].verdicts: a third reviewer decides between a tester and a second who disagree: no 'tester' and"
        " 'second' verdict",
    ]


def test_a_third_verdict_beside_two_that_agree_is_accepted_and_decides_nothing():
    from scoring.recount import recount

    # A bundle records every verdict given: a third given while the tester and the second disagreed stays on
    # record after an editor's correction makes them agree (the site's own download holds it then). It is
    # accepted, and the agreement counts (000 §5: "If they disagree, a third reviewer decides"): tester and
    # second pass, so t is a pass, 2 points, overall 2 / (2 x 1) x 10 = 10.0 (the third's fail would give 0.0).
    verdicts = [
        {"role": "tester", "outcome": "pass"},
        {"role": "second", "outcome": "pass"},
        {"role": "third", "outcome": "fail"},
    ]
    doc = _one_task_doc(
        "outcomes", "core", [{"round": "r", "agent": "a", "task": "t", "status": "completed", "verdicts": verdicts}]
    )
    assert validate_bundle(doc) == []
    (row,) = recount(doc)["rounds"][0]["boards"]["overall"]
    assert row["tasks"]["t"]["outcome"] == "pass" and row["overall"] == 10.0


def test_a_rerun_is_of_another_run_of_the_same_round_agent_and_task_and_sections_of_a_run_are_lists():
    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    runs = [
        {**base, "id": "1"},
        {**base, "id": "2", "rerun_of": "2"},
        {**base, "id": "3", "task": "u", "rerun_of": "1"},
        {**base, "id": "4", "verdicts": "x", "evidence": {}},
        {**base, "id": "5", "round": "r2", "rerun_of": "1"},
    ]
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        # An organization may be 500 characters long, not 501.
        "agents": [
            {"slug": "a", "name": "A", "organization": "o" * 500},
            {"slug": "b", "name": "B", "organization": "o" * 501},
        ],
        "tasks": [
            {"key": "t", "title": "T", "version": "1.0", "kind": "core"},
            {"key": "u", "title": "U", "version": "1.0", "kind": "core"},
        ],
        "rounds": [
            {"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t", "u"]},
            {"key": "r2", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]},
        ],
        "runs": runs,
    }
    # Run 2 names itself: it is then also a re-run being re-run. Runs 3 and 5 re-run run 1 on another task and
    # in another round (a run's id is unique in its round: round r2 has no run 1 of its own, so run 5 re-runs
    # none of r2's runs, and is not counted as a second re-run of r's run 1).
    assert validate_bundle(doc) == [
        "agents[1].organization: is longer than 500 characters",
        "runs[3].verdicts: must be a list, got str",
        "runs[3].evidence: must be a list, got dict",
        "runs[1].rerun_of: run '2' is itself a re-run; a re-run cannot be re-run",
        "runs[1].rerun_of: a run cannot be its own re-run",
        "runs[2].rerun_of: run '1' is for another round, agent or task",
        "runs[4].rerun_of: run '1' is for another round, agent or task",
    ]


def test_an_agent_has_a_unique_valid_key_a_name_and_its_languages_as_a_list():
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        "agents": [
            {"slug": "a", "name": "A", "primary_language": "l" * 20, "languages": ["en", "zh"]},
            {"name": "No slug"},
            {"slug": "a b", "name": "Bad"},
            {"slug": "c"},
            {"slug": "d", "name": "D", "primary_language": "l" * 21, "languages": "en"},
            {"slug": "e", "name": "E", "languages": [1]},
            {"slug": "a", "name": "Again"},
        ],
        "tasks": [],
        "rounds": [],
        "runs": [],
    }
    assert validate_bundle(doc) == [
        "agents[1].slug: is required",
        "agents[2].slug: 'a b' is not a valid key (letters, digits, '-', '_', '.')",
        "agents[3].name: is required",
        "agents[4].primary_language: is longer than 20 characters",
        "agents[4].languages: must be a list of strings",
        "agents[5].languages: must be a list of strings",
        "agents[6].slug: duplicate agent 'a'",
    ]


def test_tasks_rounds_entries_and_votes_are_checked_at_their_limits():
    from scoring.bundle_checker import MAX_TEXT

    # The first task, round and vote hold every value at its limit and are accepted; the others break one
    # rule per value. A round without a key cannot be entered twice; a second round "r0" can, and is.
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        "agents": [{"slug": "a", "name": "A"}, {"slug": "b", "name": "B"}],
        "tasks": [
            {
                "key": "t0",
                "title": "T" * 300,
                "version": "1.0",
                "kind": "core",
                "evaluation": "auto",
                "prompt": "p" * MAX_TEXT,
                "domain": "d" * 100,
                "dimensions": ["web"],
                "scenarios": ["s"],
                "time_limit_min": 0,
                "token_budget": 0,
                "history": [{"version": "0.9", "scenarios": ["old"]}],
            },
            {"title": "T" * 301},
            {
                "key": "t2",
                "version": "one",
                "kind": "epic",
                "evaluation": "vibes",
                "domain": "d" * 101,
                "dimensions": "web",
                "scenarios": [1],
                "time_limit_min": -1,
                "token_budget": -1,
                "history": [{"scenarios": "x"}],
            },
            {"key": "t0", "version": "1." + "0" * 19, "kind": "core", "prompt": "p" * (MAX_TEXT + 1)},
        ],
        "rounds": [
            {
                "key": "r0",
                "name": "N" * 200,
                "status": "draft",
                "entries": [{"agent": "a", "plan": "p" * 200}],
                "tasks": ["t0"],
                "parameters": {"t0": {"port": 1}},
                "changelog": [{"what": "x"}],
            },
            {
                "name": "N" * 201,
                "entries": [{"agent": "ghost"}, {}, {"agent": "a", "plan": "p" * 201}, {"agent": "a"}],
                "tasks": "t0",
                "parameters": {"t9": {}, "t0": "x"},
                "changelog": [{}],
            },
            {
                "key": "r0",
                "status": "secret",
                "entries": [{"agent": "a"}, {"agent": "a"}],
                "tasks": ["t0", "t9", "t0"],
                "parameters": "x",
            },
        ],
        "runs": [],
        "votes": [
            {"task": "t0", "a": "a", "b": "b", "winner": "tie", "voter": "v" * 100, "counts": False},
            {},
            {"task": "t9", "a": "ghost", "b": "ghost", "winner": "draw", "voter": "v" * 101, "counts": "yes"},
        ],
    }
    assert validate_bundle(doc) == [
        "tasks[1].key: is required",
        "tasks[1].title: is longer than 300 characters",
        "tasks[1].version: is required",
        "tasks[1].kind: is required",
        "tasks[2].version: 'one' is not a version like 1.0 or 2.1",
        "tasks[2].kind: 'epic' is not one of core, safety, local-china, local-global, to-spec, invent, startup",
        "tasks[2].evaluation: 'vibes' is not one of auto, llm-judge, composite, checks, checklist, review",
        "tasks[2].domain: is longer than 100 characters",
        "tasks[2].dimensions: must be a list of strings",
        "tasks[2].scenarios: must be a list of strings",
        "tasks[2].time_limit_min: -1 is below 0.0",
        "tasks[2].token_budget: -1 is below 0",
        "tasks[2].history[0].version: is required",
        "tasks[2].history[0].scenarios: must be a list of strings",
        "tasks[3].version: is longer than 20 characters",
        "tasks[3].prompt: is longer than 100000 characters",
        "tasks[3].key: duplicate task 't0'",
        "rounds[1].key: is required",
        "rounds[1].name: is longer than 200 characters",
        "rounds[1].status: is required",
        "rounds[1].entries[0].agent: unknown agent 'ghost'",
        "rounds[1].entries[1].agent: is required",
        "rounds[1].entries[2].plan: is longer than 200 characters",
        "rounds[1].tasks: must be a list of task keys",
        "rounds[1].parameters.t9: unknown task 't9'",
        "rounds[1].parameters.t0: must be an object of name: value",
        "rounds[1].changelog[0].what: is required",
        "rounds[2].status: 'secret' is not one of draft, preview, published",
        "rounds[2].key: duplicate round 'r0'",
        "rounds[2].entries[0].agent: agent 'a' entered twice in round 'r0'",
        "rounds[2].entries[1].agent: agent 'a' entered twice in round 'r0'",
        "rounds[2].tasks: unknown task 't9'",
        "rounds[2].tasks: a task is listed twice",
        "rounds[2].parameters: must be an object, got str",
        "votes[1].task: is required",
        "votes[1].a: is required",
        "votes[1].b: is required",
        "votes[1].winner: is required",
        "votes[2].task: unknown task 't9'",
        "votes[2].a: unknown agent 'ghost'",
        "votes[2].b: unknown agent 'ghost'",
        "votes[2].b: an agent cannot be matched against itself",
        "votes[2].winner: 'draw' is not one of a, b, tie",
        "votes[2].voter: is longer than 100 characters",
        "votes[2].counts: must be true or false",
    ]


def test_a_bundle_names_its_benchmark_with_a_key_a_name_a_methodology_and_a_threshold_from_0_to_1():
    def bench(**kw):
        return {"benchmark": {"slug": "b", "name": "B", "methodology": "scored", **kw}}

    assert validate_bundle({"agents": []}) == ["benchmark: is required"]
    assert validate_bundle({"benchmark": {}}) == [
        "benchmark.slug: is required",
        "benchmark.name: is required",
        "benchmark.methodology: is required",
    ]
    assert validate_bundle(bench(params="x")) == ["benchmark.params: must be an object, got str"]
    assert validate_bundle(bench(params={"pass_threshold": -0.1})) == [
        "benchmark.params.pass_threshold: -0.1 is below 0.0"
    ]
    assert validate_bundle(bench(params={"pass_threshold": 0})) == []
    assert validate_bundle(bench(params={"pass_threshold": 1})) == []


def test_a_runs_evidence_checks_and_disputes_name_what_they_are_and_an_unknown_rerun_stops_nothing():
    from scoring.bundle_checker import MAX_TEXT

    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    runs = [
        # At the limits, accepted: a 2,000-character link, a note of the longest allowed length, 0 steps.
        {
            **base,
            "steps": 0,
            "evidence": [{"kind": "log", "url": "https://" + "u" * 1992}],
            # A Terminal-Bench trial's tests are checks of kind "test".
            "checks": [
                {"kind": "api", "name": "GET /", "passed": True},
                {"kind": "test", "name": "test_outputs.py::test_fixed", "passed": False},
            ],
            "disputes": [{"reason": "other", "status": "open", "note": "n" * MAX_TEXT}],
        },
        {
            **base,
            "evidence": [{"kind": "log"}, {"kind": "log", "url": "https://" + "u" * 1993}],
            "checks": [{"passed": False}, {"kind": "vibes", "name": "x", "passed": True}],
            "disputes": [{}, {"reason": "other", "status": "sulking", "note": "n" * (MAX_TEXT + 1)}],
        },
        {**base, "rerun_of": "99"},
        # Checked though an earlier re-run named an unknown run.
        {**base, "rerun_of": "2"},
    ]
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core"}],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [{**r, "id": str(i)} for i, r in enumerate(runs)],
    }
    assert validate_bundle(doc) == [
        "runs[1].evidence[0].url: is required",
        "runs[1].evidence[1].url: is longer than 2000 characters",
        "runs[1].checks[0].kind: is required",
        "runs[1].checks[0].name: is required",
        "runs[1].checks[1].kind: 'vibes' is not one of start, api, page, browser, test",
        "runs[1].disputes[0].reason: is required",
        "runs[1].disputes[1].status: 'sulking' is not one of open, accepted, rejected",
        "runs[1].disputes[1].note: is longer than 100000 characters",
        "runs[2].rerun_of: unknown run '99'",
        "runs[3].rerun_of: run '2' is itself a re-run; a re-run cannot be re-run",
    ]


def test_a_checks_runs_listed_checks_and_its_counts_say_the_same():
    base = {"round": "r", "agent": "a", "task": "t", "status": "completed"}
    listed = [
        {"kind": "start", "name": "starts", "passed": True},
        {"kind": "api", "name": "POST /cart", "passed": True},
        {"kind": "page", "name": "/orders", "passed": False},
        {"kind": "browser", "name": "Sign in", "passed": True},
    ]
    runs = [
        # 1 of 2 API and page checks, 1 of 1 browser step, as the counts say: accepted.
        {**base, **_counts(1, 2, 1, 1), "app_started": True, "checks": listed},
        # The counts say every API check passed; the list shows the page check failing.
        {**base, **_counts(2, 2, 1, 1), "checks": listed},
        # A list and no counts: the score would read none of it.
        {**base, "checks": listed},
        # A failed start check beside app_started true.
        {**base, **_counts(1, 2, 1, 1), "app_started": True, "checks": [{**listed[0], "passed": False}, *listed[1:]]},
    ]
    assert validate_bundle(_one_task_doc("checks", "to-spec", runs)) == [
        "runs[1].checks: lists 1 of 2 API and page checks passed, but api_checks_passed/api_checks_total say 2 of 2",
        "runs[2].checks: lists 1 of 2 API and page checks passed, but api_checks_passed/api_checks_total are missing",
        "runs[2].checks: lists 1 of 1 browser steps passed, but browser_steps_passed/browser_steps_total are missing",
        "runs[3].checks: lists a failed start check, but app_started is true",
    ]


def _one_task_doc(methodology: str, kind: str, runs: list[dict]) -> dict:
    """A bundle of one agent `a`, one task `t` of `kind` and one draft round `r`, holding `runs` (ids 0, 1, ...)."""
    return {
        "benchmark": {"slug": "b", "name": "B", "methodology": methodology},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [
            {"key": "t", "title": "T", "version": "1.0", "kind": kind, "time_limit_min": 60, "token_budget": 1_000_000}
        ],
        "rounds": [{"key": "r", "status": "draft", "entries": [{"agent": "a"}], "tasks": ["t"]}],
        "runs": [{**r, "id": str(i)} for i, r in enumerate(runs)],
    }


def _counts(api: int, api_total: int, steps: int, steps_total: int) -> dict:
    return {
        "api_checks_passed": api,
        "api_checks_total": api_total,
        "browser_steps_passed": steps,
        "browser_steps_total": steps_total,
    }


def test_keys_are_at_most_100_characters_of_letters_digits_and_dashes_and_texts_are_texts():
    from scoring.bundle_checker import MAX_TEXT

    key = "k" * 100
    doc = {
        "benchmark": {"slug": "b", "name": "B", "methodology": "outcomes"},
        "agents": [{"slug": key, "name": "A"}, {"slug": key + "k", "name": 5}],
        "tasks": [
            {"key": "t", "version": "1.0", "kind": "core", "history": [{"version": "v" * 20}, {"version": "v" * 21}]},
            {"key": "t x", "version": "1.0", "kind": "core"},
        ],
        "rounds": [
            # A changelog note may be as long as any text (not the 500 characters of a name).
            {"key": "r", "status": "draft", "entries": [{"agent": key}], "changelog": [{"what": "w" * MAX_TEXT}]},
            {"key": "r x", "status": "draft"},
        ],
        "runs": [{"id": "1", "round": "r", "agent": key, "task": "t", "status": "completed", "interventions": 0}],
    }
    assert validate_bundle(doc) == [
        f"agents[1].slug: {key + 'k'!r} is not a valid key (letters, digits, '-', '_', '.')",
        "agents[1].name: must be a string, got int",
        "tasks[0].history[1].version: is longer than 20 characters",
        "tasks[1].key: 't x' is not a valid key (letters, digits, '-', '_', '.')",
        "rounds[1].key: 'r x' is not a valid key (letters, digits, '-', '_', '.')",
    ]
