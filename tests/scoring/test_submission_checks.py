"""The checks of a τ² submission, each failed by a hand-made variant of a baseline that passes them all
(tests/builders/tau2.py: domain "mini", tasks 0, 1, 2, rewards 1, 1, 0), and the claims beside the recount."""

import copy
import json

import pytest

from scoring.passk import family_figures
from scoring.submission_checks import (
    CHECKS,
    DISCLOSURE,
    TaskSet,
    TrackInput,
    agrees,
    check,
    failed_disclosures,
    figures,
    names_same_model,
)
from scoring.tau2 import Tau2Error, read_submission, success, task_fingerprint
from scoring.tau2_runs import from_tau2
from scoring.tiers import blocking, tier
from scoring.types import RunInput, TaskInput
from tests.builders import tau2 as t


def _set(version: str, tasks: list[dict], task_version: str = "1.0") -> TaskSet:
    return TaskSet(version, {"mini": {x["id"]: (task_fingerprint(x), task_version) for x in tasks}})


def _track(**kw) -> TrackInput:
    kw.setdefault("task_sets", [_set("1.0", t.TASKS)])
    kw.setdefault("accepted", ["1.0"])
    kw.setdefault("limits", {"max_steps": 200, "max_errors": 10})
    kw.setdefault("protocol", [{"field": "submission_type"}, {"field": "methodology.verification.omitted_questions"}])
    return TrackInput(required={"mini": ["0", "1", "2"]}, **kw)


def _judge(files: dict[str, bytes], track: TrackInput | None = None):
    sub = read_submission(files, ("mini",))
    submitted = [from_tau2(f) for f in sub.files]
    declared = {**sub.declared, "contact_info": {**sub.declared.get("contact_info", {}), **sub.contact}}
    if "contact_info" not in sub.declared:
        del declared["contact_info"]
    checks = [c.as_dict() for c in check(track or _track(), submitted, declared)]
    tasks = [TaskInput(key=f"mini-{x['id']}", family="mini") for x in t.TASKS]
    runs = [
        RunInput(
            id=f"{f.name}{i}",
            round="c",
            agent="a",
            task=f"mini-{s.task}",
            trial=s.trial or 1,
            status="infra_error" if s.infra else "completed",
            score=(sim.get("reward_info") or {}).get("reward"),
        )
        for f, raw in zip(submitted, sub.files, strict=True)
        for i, (s, sim) in enumerate(zip(f.sims, raw.simulations, strict=True))
    ]
    figs = [f.as_dict() for f in figures(sub.claims, family_figures(tasks, runs, success))]
    return {c["name"]: c for c in checks}, figs


def _failed(checks: dict) -> dict:
    return {name: c["detail"] for name, c in checks.items() if not c["passed"]}


def test_baseline_passes_every_check_and_its_claim_agrees():
    checks, figs = _judge(t.files())
    assert _failed(checks) == {}
    assert figs == [{"name": "mini pass^1", "claimed": 66.7, "recomputed": pytest.approx(200 / 3), "agrees": True}]
    assert tier(list(checks.values()), figs) == "self-reported"


def test_declared_fields_fails_without_contact_info():
    declared = copy.deepcopy(t.DECLARED)
    del declared["contact_info"]
    checks, _ = _judge(t.files(declared))
    assert _failed(checks) == {"declared_fields": "missing: contact_info"}


def test_tasks_covered_fails_when_a_task_has_no_run():
    # Recomputed over the own set: (1 + 1 + 0) / 3 = 66.7, so only this check fails (τ²'s mean over present
    # tasks would say 100).
    files = t.files(mini=t.results([t.simulation("0", 1.0), t.simulation("1", 1.0)]))
    checks, figs = _judge(files)
    assert _failed(checks) == {
        "tasks_covered": "mini: 1 of 3 required tasks have no runs: 2 (declared omitted_questions: false)"
    }
    assert figs[0]["agrees"] is True


def test_trials_as_required_fails_on_unequal_trials():
    # Tasks 0 and 2 twice, task 1 once: pass^1 = (2/2 + 1/1 + 0/2) / 3 = 66.7 (rewards 1,1 / 1 / 0,0).
    sims = [t.simulation("0", 1.0), t.simulation("0", 1.0, trial=1, seed=373753), t.simulation("1", 1.0)]
    sims += [t.simulation("2", 0.0), t.simulation("2", 0.0, trial=1, seed=373753)]
    checks, figs = _judge(t.files(mini=t.results(sims, num_trials=2)))
    assert _failed(checks) == {
        "trials_as_required": "mini: counted trials per task differ: 2 on tasks 0 and 2, 1 on task 1 "
        "(num_trials 2; 0 infrastructure errors left out)"
    }
    assert figs[0]["agrees"] is True


def test_trials_as_required_fails_below_the_tracks_minimum():
    checks, _ = _judge(t.files(), _track(trials_min=4))
    assert _failed(checks) == {"trials_as_required": "mini: 1 trial per task; the track requires 4"}


def test_one_run_one_agent_fails_on_a_second_file_of_another_model():
    files = t.files(**{"a.json": t.results(t.baseline_sims()), "b.json": t.results(t.baseline_sims(), llm="m2")})
    checks, _ = _judge(files)
    failed = _failed(checks)
    # Two files of one trial each: two attempts of every task against num_trials 1, so attempts_declared fails too.
    assert list(failed) == ["declared_models", "attempts_declared", "one_run_one_agent"]
    assert failed["attempts_declared"] == (
        "mini: more attempts than the 1 declared trial (num_trials) on 3 tasks: task 0: 2, task 1: 2, task 2: 2"
    )
    assert failed["declared_models"] == "declared model_name 'Mini Agent'; the files' agent ran m2, mini-agent"
    assert failed["one_run_one_agent"].startswith(
        "mini: 2 runs of task 0 trial 1 (trajectories/a.json: mini-agent, trajectories/b.json: m2)"
    )
    assert failed["one_run_one_agent"].endswith("best-of across runs or models is not one run")


def _older_tasks() -> list[dict]:
    tasks = copy.deepcopy(t.TASKS)
    tasks[0]["evaluation_criteria"]["reward_basis"] = ["DB", "NL_ASSERTION"]
    return tasks


def test_a_run_of_a_task_the_benchmark_does_not_hold_fails_and_never_counts():
    checks, _ = _judge(t.files(mini=t.results(t.baseline_sims(), tasks=_older_tasks())))
    assert _failed(checks) == {
        "task_versions": "task set 1.0: mini: 1 of 3 runs are of tasks the benchmark does not hold in task set "
        "1.0 (their definitions missing or not the benchmark's), not counted: 0",
        "tasks_covered": "mini: 1 of 3 required tasks have no runs: 0 (not the benchmark's task) "
        "(declared omitted_questions: false)",
    }


def test_the_version_ran_is_found_by_content_and_taken_when_the_track_accepts_it():
    # The benchmark holds 2026-03-18 (current) and 2025-06-10, in which task 0 read otherwise: the files carry
    # the older wording of task 0, so every run is of 2025-06-10's tasks.
    sets = [_set("2026-03-18", t.TASKS, "2.0"), _set("2025-06-10", _older_tasks())]
    files = t.files(mini=t.results(t.baseline_sims(), tasks=_older_tasks()))
    checks, _ = _judge(files, _track(task_sets=sets, accepted=["2026-03-18", "2025-06-10"]))
    assert _failed(checks) == {}
    assert checks["task_versions"]["detail"] == (
        "task set 2025-06-10 (the current one is 2026-03-18): mini: 3 of 3 runs of the benchmark's own tasks"
    )
    checks, _ = _judge(files, _track(task_sets=sets, accepted=["2026-03-18"]))
    assert _failed(checks) == {
        "task_versions": "task set 2025-06-10 (the current one is 2026-03-18): ran task set 2025-06-10, which "
        "this track does not accept (it accepts 2026-03-18); mini: 3 of 3 runs of the benchmark's own tasks"
    }


def test_a_tie_between_versions_reads_the_current_one():
    # Only task 1 is carried and it reads the same in both versions: the current one is checked.
    sets = [_set("2026-03-18", t.TASKS, "2.0"), _set("2025-06-10", _older_tasks())]
    files = t.files(mini=t.results([t.simulation("1", 1.0)], tasks=t.TASKS[1:2]))
    checks, _ = _judge(files, _track(task_sets=sets, accepted=["2026-03-18"]))
    assert checks["task_versions"]["detail"].startswith("task set 2026-03-18: mini: 1 of 1 runs")


def test_limits_respected_fails_on_a_limit_that_is_not_a_whole_number():
    for value in (float("nan"), "999", [1], True):
        sub = read_submission(t.files(), ("mini",))
        submitted = [from_tau2(f) for f in sub.files]
        submitted[0].info["max_steps"] = value
        (limits,) = [c for c in check(_track(), submitted, None) if c.name == "limits_respected"]
        assert not limits.passed and "not a whole number" in limits.detail, value


def test_a_track_without_limits_passes_files_that_give_none():
    # A bundle's or an Inspect log's track reads no limits: nothing to respect, so no info is no failure.
    # With the track's limits, the same files cannot be checked and fail (the bare list test above).
    submitted = [from_tau2(f) for f in read_submission(t.files(), ("mini",)).files]
    for f in submitted:
        f.info = None
    (free,) = [c for c in check(_track(limits={}), submitted, None) if c.name == "limits_respected"]
    assert (free.passed, free.detail) == (True, "the track sets no limits")
    (bound,) = [c for c in check(_track(), submitted, None) if c.name == "limits_respected"]
    assert not bound.passed and bound.detail == "mini: cannot be checked: no info, so no max_steps/max_errors"


def test_declared_model_names():
    assert names_same_model("Button (Claude Opus 4.6)", "claude-opus-4-6")
    assert names_same_model("gpt-4.1", "gpt-4.1-2025-04-14") and names_same_model("GPT-4.1", "openai/gpt-4.1")
    assert names_same_model("Claude Opus 4.6 with a planner", "anthropic/claude-opus-4-6")
    assert not names_same_model("Nemotron-Orchestrator-8B", "gpt-4.1-mini-2025-04-14")
    assert not names_same_model("gpt-5", "gpt-4.1-2025-04-14") and not names_same_model("gpt-4.1", "gpt-4.1-mini")
    assert not names_same_model("", "m1") and not names_same_model("m1", "")


def test_limits_respected_fails_over_max_steps():
    checks, _ = _judge(t.files(mini=t.results(t.baseline_sims(), max_steps=500)))
    assert _failed(checks) == {"limits_respected": "mini: max_steps 500; the track allows at most 200"}


def test_transcripts_present_fails_on_an_empty_transcript():
    sims = t.baseline_sims()
    sims[2]["messages"] = []
    checks, _ = _judge(t.files(mini=t.results(sims)))
    assert _failed(checks) == {"transcripts_present": "mini: 1 run has no transcript: task 2 trial 1"}


def test_bare_list_of_simulations_cannot_be_checked_for_versions_limits_or_models():
    files = t.files(**{"mini_run.json": t.baseline_sims()})
    checks, figs = _judge(files)
    failed = _failed(checks)
    assert failed["task_versions"] == (
        "task set 1.0: mini: 3 of 3 runs are of tasks the benchmark does not hold in task set 1.0 (the file "
        "carries no task definitions), not counted: 0, 1, 2"
    )
    assert failed["limits_respected"] == "mini: cannot be checked: no info, so no max_steps/max_errors"
    assert failed["declared_models"] == (
        "cannot be checked: the files name no agent model; cannot be checked: the files name no user simulator model"
    )
    assert failed["tasks_covered"].startswith("mini: 3 of 3 required tasks have no runs")


def test_a_differing_claim_flags_and_an_unbacked_claim_is_not_verifiable():
    checks, figs = _judge(t.files(t.claim(70.0)))
    assert figs == [{"name": "mini pass^1", "claimed": 70.0, "recomputed": pytest.approx(200 / 3), "agrees": False}]
    assert tier(list(checks.values()), figs) == "flagged"
    checks, figs = _judge(t.files(t.declared_with(mini={"pass_1": 66.7}, other={"pass_1": 50.0})))
    assert figs[1] == {"name": "other pass^1", "claimed": 50.0, "recomputed": None, "agrees": None}
    assert tier(list(checks.values()), figs) == "self-reported"


def test_rounding_rule_decimals():
    # d written decimals: agrees within 0.5 * 10^-d (d capped at 6), plus 1e-9 of float noise.
    assert agrees(76, 0, 76.49) and not agrees(76, 0, 76.51)
    assert agrees(84.2, 1, 84.2105) and agrees(84.2, 1, 84.25) and not agrees(84.2, 1, 84.26)
    assert agrees(84.21052631578947, 14, 84.2105268) and not agrees(84.21052631578947, 14, 84.2105270)
    # The decimals come from the claim as written: 76.0 has one, 76 none, 0.4136 four.
    sub = read_submission(t.files(t.declared_with(mini={"pass_1": 76.0, "pass_2": 76, "cost": 0.4136})))
    assert [(c.name, c.decimals, c.unit) for c in sub.claims] == [
        ("mini pass^1", 1, "%"),
        ("mini pass^2", 0, "%"),
        ("mini cost", 4, "USD"),
    ]


def test_unreadable_or_domainless_files_are_refused():
    with pytest.raises(Tau2Error, match="not readable JSON"):
        read_submission({"submission.json": b"{", "trajectories/x.json": b"[]"})
    files = t.files(**{"run.json": t.baseline_sims()})
    with pytest.raises(Tau2Error, match="cannot tell its domain"):
        read_submission(files, ("retail", "airline"))


def test_contact_email_is_kept_apart_from_the_declared_fields():
    sub = read_submission(t.files())
    assert "email" not in json.dumps(sub.declared) and sub.contact["email"] == "team@example.org"


def _other_simulator() -> dict:
    declared = copy.deepcopy(t.DECLARED)
    declared["methodology"]["user_simulator"] = "gpt-5"
    return declared


def test_a_declared_user_simulator_other_than_the_one_run_is_a_disclosure_that_never_blocks_verifying():
    checks, figs = _judge(t.files(_other_simulator()))
    listed = list(checks.values())
    assert _failed(checks) == {"declared_models": "declared user_simulator 'gpt-5'; the files' user simulator ran u1"}
    # Both sides, what ran beside what was declared, for the pages to show.
    assert checks["declared_models"]["values"] == [
        {"what": "model", "ran": "mini-agent", "declared": "Mini Agent"},
        {"what": "user simulator", "ran": "u1", "declared": "gpt-5"},
    ]
    assert blocking(listed, figs) == []
    assert [c["name"] for c in failed_disclosures(listed)] == ["declared_models"]
    # Flagged until an editor verifies it and acknowledges what differs; an editor's flag wins over both.
    assert tier(listed, figs) == "flagged"
    assert tier(listed, figs, verified=True) == "flagged"
    assert tier(listed, figs, verified=True, acknowledged=True) == "verified"
    assert tier(listed, figs, verified=True, acknowledged=True, flagged=True) == "flagged"


def test_a_failed_protocol_check_blocks_verifying_whatever_is_acknowledged():
    declared = _other_simulator()
    checks, figs = _judge(t.files(declared, mini=t.results(t.baseline_sims(), max_steps=500)))
    listed = list(checks.values())
    assert blocking(listed, figs) == ["limits_respected: mini: max_steps 500; the track allows at most 200"]
    assert tier(listed, figs, verified=True, acknowledged=True) == "flagged"
    # A passing check carries no values: its detail says it all.
    assert "values" not in _judge(t.files())[0]["declared_models"]


def test_every_check_is_in_the_registry_with_its_kind_and_an_unknown_one_blocks():
    checks, _ = _judge(t.files())
    # In the registry's order (which also holds the Terminal-Bench runs' own checks: scoring.tbench_checks).
    assert list(checks) == [name for name in CHECKS if name in checks] and len(checks) == 9
    assert [name for name, rule in CHECKS.items() if rule.kind == DISCLOSURE] == ["declared_models"]
    # A check stored under a name the registry no longer knows is read as the protocol's: it blocks.
    stored = [{"name": "task_versions_current", "passed": False, "detail": "code: 2 of 3 tasks differ"}]
    assert blocking(stored, []) == ["task_versions_current: code: 2 of 3 tasks differ"]
    assert failed_disclosures(stored) == []


def test_attempts_declared_without_a_declared_count_compares_the_tasks_attempts_and_names_platform_failures():
    # A bundle's or an Inspect log's runs declare no trial count: task a has 3 attempts (one an infra_error),
    # task b 2; both counted twice, so only this check shows the third attempt of a.
    from scoring.submission_attempts import attempts_declared
    from scoring.submission_types import Sim, SubmittedFile

    sims = [Sim("a", 1), Sim("a", 2), Sim("a", 3, counted=False, infra=True), Sim("b", 1), Sim("b", 2)]
    found = attempts_declared([SubmittedFile("bundle: fam", "fam", sims, None, {})])
    assert (found.passed, found.detail) == (
        False,
        "fam: attempts per task differ (no declared trial count): task a: 3, task b: 2; 1 run of 5 reported as "
        "platform failures, left out of the score on the submitter's word, on 1 task: task a: 1 of 3",
    )
    honest = attempts_declared([SubmittedFile("bundle: fam", "fam", sims[:2] + sims[3:], None, {})])
    assert (honest.passed, honest.detail) == (True, "fam: 4 attempts, none left out")


def _graded_file(sims: list[tuple[str, list[str]]]):
    """A τ² airline file of tasks 0 (action 0_0), 1 (actions 1_0, 1_1) and 2 (none), with one simulation per
    (task id, the action ids its reward checked)."""
    from scoring.tau2 import Tau2File

    def actions(*ids: str) -> list[dict]:
        return [{"action_id": i, "name": "book", "arguments": {}} for i in ids]

    tasks = [
        {"id": "0", "evaluation_criteria": {"actions": actions("0_0")}},
        {"id": "1", "evaluation_criteria": {"actions": actions("1_0", "1_1")}},
        {"id": "2", "evaluation_criteria": {"actions": []}},
    ]
    simulations = [
        {
            "task_id": task,
            "trial": 0,
            "termination_reason": "user_stop",
            "messages": [{"role": "user", "content": "hi"}],
            "reward_info": {
                "reward": 1.0,
                "action_checks": [{"action": a, "action_match": True} for a in actions(*ids)],
            },
        }
        for task, ids in sims
    ]
    return from_tau2(Tau2File("airline.json", "airline", {}, tasks, simulations))


def test_a_run_graded_as_its_own_task_or_checking_no_action_passes():
    from scoring.submission_checks import graded_as_filed

    # Task 0's run checks 0_0 (task 0's action), task 1's 1_0 and 1_1, task 2's none: nothing filed elsewhere.
    result = graded_as_filed([_graded_file([("0", ["0_0"]), ("1", ["1_1", "1_0"]), ("2", [])])])
    assert result.passed is True


def test_runs_graded_as_other_tasks_fail_naming_both_ids():
    from scoring.submission_checks import graded_as_filed

    # The run filed as task 0 checked task 1's actions and the one filed as task 1 task 0's: a swap, each run's
    # result put on a task it never ran. The run filed as task 2 checked an action no task of the file has.
    result = graded_as_filed([_graded_file([("0", ["1_0", "1_1"]), ("1", ["0_0"]), ("2", ["9_0"])])])
    assert result.passed is False
    assert result.detail == (
        "airline: 3 of 3 runs were graded as another task (task 0 as task 1, task 1 as task 0, task 2 as a task "
        "the file does not define); their task ids do not name the tasks they ran"
    )


def test_a_run_filed_under_a_task_whose_actions_cannot_be_read_has_nothing_to_tell():
    from scoring.submission_checks import graded_as_filed
    from scoring.tau2 import Tau2File

    # Task 0's evaluation_criteria is not what τ² writes: its actions are unknown, so its run (checking 0_0) can
    # be neither matched nor moved; it passes rather than being called "graded as a task the file does not define".
    tasks = [{"id": "0", "evaluation_criteria": "unreadable"}, {"id": "1", "evaluation_criteria": {"actions": []}}]
    sim = {
        "task_id": "0",
        "trial": 0,
        "termination_reason": "user_stop",
        "messages": [{"role": "user", "content": "hi"}],
        "reward_info": {"reward": 1.0, "action_checks": [{"action": {"action_id": "0_0"}, "action_match": True}]},
    }
    assert graded_as_filed([from_tau2(Tau2File("airline.json", "airline", {}, tasks, [sim]))]).passed is True
