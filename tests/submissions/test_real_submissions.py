"""The two real τ²-bench submissions in ../shared/data/tau2, taken through `import_submission` against the
benchmark's own (current) task sets. Expected figures counted by hand from the trajectories (every simulation
ended user_stop with reward 0.0 or 1.0, one trial per task, no infrastructure error):
Button airline 38 of 50 succeed = 76.0%; ToolOrchestra airline 28/50 = 56.0%, retail 96/114 = 84.2105%."""

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from leaderboard.models import ChangelogEntry, Entry
from runs.models import Run
from submissions.models import Submission
from tests.builders.tau2 import BUTTON, TOOLORCHESTRA


def _import(path, org, agent=None) -> Submission:
    out = StringIO()
    args = {"benchmark": "tau2", "organization": org, "stdout": out}
    if agent:
        args["agent"] = agent
    call_command("import_submission", str(path), **args)
    return Submission.objects.latest("id")


def _figures(sub):
    return {f["name"]: f for f in sub.figures}


@pytest.mark.django_db
def test_button_airline_claim_agrees_at_76(tau2):
    sub = _import(BUTTON, "distyl-ai")
    fig = _figures(sub)
    # 38 successes of 50 tasks: 38/50 = 76.0, claimed 76.0 (1 decimal: within 0.05).
    assert fig["airline pass^1"] == {"name": "airline pass^1", "claimed": 76.0, "recomputed": 76.0, "agrees": True}
    # Mean agent_cost of the 50 simulations: 0.4136346..., claimed 0.4136 (4 decimals: within 0.00005).
    assert fig["airline cost"]["agrees"] is True
    assert fig["airline cost"]["recomputed"] == pytest.approx(0.4136346, abs=1e-6)
    assert Run.objects.filter(entry__agent=sub.agent).count() == 50


@pytest.mark.django_db
def test_button_retail_and_telecom_not_verifiable(tau2):
    fig = _figures(_import(BUTTON, "distyl-ai"))
    for name, claimed in (("retail pass^1", 83.3), ("telecom pass^1", 97.4)):
        assert fig[name] == {"name": name, "claimed": claimed, "recomputed": None, "agrees": None}


@pytest.mark.django_db
def test_toolorchestra_airline_56_and_retail_84_2_agree(tau2):
    sub = _import(TOOLORCHESTRA, "nvidia")
    fig = _figures(sub)
    assert fig["airline pass^1"]["recomputed"] == pytest.approx(56.0) and fig["airline pass^1"]["agrees"] is True
    # 96 / 114 = 84.2105...; claimed 84.2, |diff| 0.0105 <= 0.05.
    assert fig["retail pass^1"]["recomputed"] == pytest.approx(9600 / 114) and fig["retail pass^1"]["agrees"] is True
    assert fig["telecom pass^1"]["agrees"] is None
    assert Run.objects.filter(entry__agent=sub.agent).count() == 164
    assert sub.agent.slug == "nemotron-orchestrator-8b" and sub.agent.organization.slug == "nvidia"


@pytest.mark.django_db
def test_real_submissions_fail_task_versions_against_current_tau2_tasks(tau2):
    # Both ran the 2025-06-10 task set: 29 of 50 airline tasks and all 114 retail tasks differ from the
    # current one. The claims still agree (the rewards the runs got are recounted, not re-graded).
    button = _import(BUTTON, "distyl-ai")
    nvidia = _import(TOOLORCHESTRA, "nvidia")
    checks = {c["name"]: c for c in nvidia.checks}
    assert checks["task_versions_current"]["passed"] is False
    assert checks["task_versions_current"]["detail"].startswith("airline: 29 of 50 tasks differ from the current")
    assert "retail: 114 of 114 tasks differ" in checks["task_versions_current"]["detail"]
    assert {c["name"] for c in button.checks if not c["passed"]} == {"task_versions_current"}
    assert {c["name"] for c in nvidia.checks if not c["passed"]} == {"task_versions_current"}
    assert button.tier == nvidia.tier == "flagged"
    assert Entry.objects.get(round=nvidia.round, agent=nvidia.agent).tier == "flagged"
    # A run of a changed task carries version "0" (a wording no stored version has: stale on the board); the 21
    # airline tasks that did not change keep 1.0.
    versions = Counter(Run.objects.filter(entry__agent=nvidia.agent).values_list("task__family", "task_version"))
    assert versions == {("airline", "0"): 29, ("airline", "1.0"): 21, ("retail", "0"): 114}
    assert "declared user_simulator gpt-5; the files ran gpt-4.1-2025-04-14" in nvidia.notes
    assert "email" not in str(nvidia.declared) and nvidia.contact["email"]
    log = ChangelogEntry.objects.filter(round=nvidia.round).values_list("what", flat=True)
    assert any(w.startswith(f"Submission {nvidia.pk} by NVIDIA: 164 runs added, flagged") for w in log)
