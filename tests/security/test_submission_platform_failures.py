"""Runs a submitter reports as platform failures (τ²'s `infrastructure_error`), from outside: its submission key
on the API, its page as the public sees it. The site cannot tell such a run from a failed one marked so, so
every attempt is counted against the trials the files declare (`num_trials`), and any run left out of the score
on the submitter's word keeps the submission from "self-reported" (docs/methodology-choices.md, "A submitter's
platform failures"); its page and the API say how many there were."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from submissions.models import Submission
from tests.builders import tau2 as t

pytestmark = pytest.mark.django_db
URL = "/api/benchmarks/mini-tau/submissions"


def _send(key: str, doc: dict):
    archive = SimpleUploadedFile("submission.zip", t.zipped(t.files(mini=doc)), content_type="application/zip")
    return Client().post(URL, {"archive": archive, "agent": "a-agent"}, HTTP_AUTHORIZATION=f"Bearer {key}")


def _platform_failure(task: str, *, trial: int) -> dict:
    sim = t.simulation(task, None, trial=trial, seed=100 + trial)
    return {**sim, "termination_reason": "infrastructure_error", "messages": []}


def _failed(answer) -> dict[str, str]:
    return {c["name"]: c["detail"] for c in answer.json()["checks"] if not c["passed"]}


def test_n_plus_one_trials_with_the_worst_of_each_task_marked_a_platform_failure_is_flagged():
    # num_trials 2, but three attempts of each task, the third (a failure: reward 0) marked infrastructure_error.
    # Counted: task 0 rewards 1, 1; task 1 rewards 1, 1; task 2 rewards 0, 0: two trials of every task, so the
    # trials check passes, and pass^1 = (2/2 + 2/2 + 0/2) / 3 = 66.7, the claim. Had the marked runs counted as
    # the failures they were: (2/3 + 2/3 + 0/3) / 3 = 44.4.
    w = t.mini_world()
    sims = []
    for task, reward in (("0", 1.0), ("1", 1.0), ("2", 0.0)):
        sims += [t.simulation(task, reward, trial=0, seed=100), t.simulation(task, reward, trial=1, seed=101)]
        sims.append(_platform_failure(task, trial=2))
    answer = _send(w.key_a, t.results(sims, num_trials=2))
    assert answer.status_code == 201, answer.content
    failed = _failed(answer)
    assert list(failed) == ["attempts_declared"]
    assert failed["attempts_declared"] == (
        "mini: more attempts than the 2 declared trials (num_trials) on 3 tasks: task 0: 3, task 1: 3, task 2: 3; "
        "3 runs of 9 reported as platform failures, left out of the score on the submitter's word, on 3 tasks: "
        "task 0: 1 of 3, task 1: 1 of 3, task 2: 1 of 3"
    )
    body = answer.json()
    assert body["tier"] == "flagged"
    assert (body["runs_sent"], body["platform_failures"]) == (9, 3)
    assert body["platform_failures_said"] == (
        "3 of 9 runs reported as platform failures by the submitter; left out of the score, not verified"
    )
    (figure,) = body["figures"]
    assert figure["recomputed"] == pytest.approx(200 / 3) and figure["agrees"] is True
    sub = Submission.objects.get(pk=body["id"])
    page = Client().get(sub.get_absolute_url()).content.decode()
    assert "3 of 9 runs reported as platform failures by the submitter; left out of the score, not verified." in page
    assert 'data-check="attempts_declared"' in page


def test_one_honest_platform_failure_within_the_declared_trials_is_flagged_too():
    # The documented rule: a run left out on the submitter's word cannot be told from a failed run marked so
    # (marking the worst of each task's declared trials gains as much as an extra trial), so even one keeps the
    # submission from "self-reported". num_trials 2, task 1's second trial a platform failure: 6 attempts, none
    # past the declared trials; counted trials 2, 1, 2.
    w = t.mini_world()
    sims = [
        t.simulation("0", 1.0, trial=0, seed=100),
        t.simulation("0", 1.0, trial=1, seed=101),
        t.simulation("1", 1.0, trial=0, seed=100),
        _platform_failure("1", trial=1),
        t.simulation("2", 0.0, trial=0, seed=100),
        t.simulation("2", 0.0, trial=1, seed=101),
    ]
    answer = _send(w.key_a, t.results(sims, num_trials=2))
    assert answer.status_code == 201, answer.content
    failed = _failed(answer)
    assert failed["attempts_declared"] == (
        "mini: 1 run of 6 reported as platform failures, left out of the score on the submitter's word, "
        "on 1 task: task 1: 1 of 2"
    )
    assert "more attempts" not in failed["attempts_declared"]
    assert answer.json()["tier"] == "flagged"
    assert answer.json()["platform_failures_said"] == (
        "1 of 6 runs reported as platform failures by the submitter; left out of the score, not verified"
    )


def test_a_submission_with_no_platform_failure_says_every_run_is_in_the_score():
    w = t.mini_world()
    answer = _send(w.key_a, t.results(t.baseline_sims()))
    assert answer.status_code == 201, answer.content
    checks = {c["name"]: c for c in answer.json()["checks"]}
    assert checks["attempts_declared"]["passed"] is True
    assert checks["attempts_declared"]["detail"] == (
        "mini: 3 attempts, none past the 1 declared trial per task (num_trials), none left out"
    )
    assert answer.json()["tier"] == "self-reported"
    said = "0 of 3 runs reported as platform failures by the submitter; every run is in the score"
    assert answer.json()["platform_failures_said"] == said
    page = Client().get(Submission.objects.get().get_absolute_url()).content.decode()
    assert said[0].upper() + said[1:] + "." in page
