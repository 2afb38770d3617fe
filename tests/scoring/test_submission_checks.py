"""The checks of a τ² submission, each failed by a hand-made variant of a baseline that passes them all
(tests/builders/tau2.py: domain "mini", tasks 0, 1, 2, rewards 1, 1, 0), and the claims beside the recount."""

import copy
import json

import pytest

from scoring.passk import family_figures
from scoring.submission_checks import TaskVersions, TrackInput, agrees, check, figures, from_tau2, tier
from scoring.tau2 import Tau2Error, read_submission, success, task_fingerprint
from scoring.types import RunInput, TaskInput
from tests.builders import tau2 as t


def _track(**kw) -> TrackInput:
    versions = {"mini": {x["id"]: TaskVersions("1.0", {task_fingerprint(x): "1.0"}) for x in t.TASKS}}
    kw.setdefault("limits", {"max_steps": 200, "max_errors": 10})
    kw.setdefault("protocol", [{"field": "submission_type"}, {"field": "methodology.verification.omitted_questions"}])
    return TrackInput(required={"mini": ["0", "1", "2"]}, versions=versions, **kw)


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
    assert list(failed) == ["one_run_one_agent"]
    assert failed["one_run_one_agent"].startswith(
        "mini: 2 runs of task 0 trial 1 (trajectories/a.json: m1, trajectories/b.json: m2)"
    )
    assert failed["one_run_one_agent"].endswith("best-of across runs or models is not one run")


def test_task_versions_current_fails_on_changed_task_content():
    tasks = copy.deepcopy(t.TASKS)
    tasks[0]["evaluation_criteria"]["reward_basis"] = ["DB", "NL_ASSERTION"]
    checks, _ = _judge(t.files(mini=t.results(t.baseline_sims(), tasks=tasks)))
    assert _failed(checks) == {"task_versions_current": "mini: 1 of 3 tasks differ from the current version 1.0: 0"}


def test_task_versions_older_version_accepted_when_the_track_says_so():
    tasks = copy.deepcopy(t.TASKS)
    tasks[0]["evaluation_criteria"]["reward_basis"] = ["DB", "NL_ASSERTION"]
    track = _track(accept_older_versions=True)
    track.versions["mini"]["0"] = TaskVersions("2.0", {task_fingerprint(tasks[0]): "1.0", "x": "2.0"})
    checks, _ = _judge(t.files(mini=t.results(t.baseline_sims(), tasks=tasks)), track)
    assert _failed(checks) == {}
    assert checks["task_versions_current"]["detail"] == "mini: 1 of 3 tasks ran on 1.0, current 2.0"


def test_limits_respected_fails_over_max_steps():
    checks, _ = _judge(t.files(mini=t.results(t.baseline_sims(), max_steps=500)))
    assert _failed(checks) == {"limits_respected": "mini: max_steps 500; the track allows at most 200"}


def test_transcripts_present_fails_on_an_empty_transcript():
    sims = t.baseline_sims()
    sims[2]["messages"] = []
    checks, _ = _judge(t.files(mini=t.results(sims)))
    assert _failed(checks) == {"transcripts_present": "mini: 1 run has no transcript: task 2 trial 1"}


def test_bare_list_of_simulations_cannot_be_checked_for_versions_or_limits():
    files = t.files(**{"mini_run.json": t.baseline_sims()})
    checks, figs = _judge(files)
    assert _failed(checks) == {
        "task_versions_current": "mini: cannot be checked: the file carries no task definitions",
        "limits_respected": "mini: cannot be checked: no info, so no max_steps/max_errors",
    }
    assert figs[0]["agrees"] is True


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
