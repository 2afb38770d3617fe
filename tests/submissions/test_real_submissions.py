"""The two real τ²-bench submissions in ../shared/data/tau2, taken through `import_submission`: against the task
set they ran (τ²-bench's first release, 2025-06-10, which the benchmark holds beside today's), and against
today's alone. Expected figures counted by hand from the trajectories (every simulation ended user_stop with
reward 0.0 or 1.0, one trial per task, no infrastructure error): Button airline 38 of 50 succeed = 76.0%;
ToolOrchestra airline 28/50 = 56.0%, retail 96/114 = 84.2105%."""

from collections import Counter
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command

from leaderboard.models import Benchmark, ChangelogEntry, Entry, Round
from runs.models import Run
from submissions.actions import submission_verify
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


def _checks(sub):
    return {c["name"]: c for c in sub.checks}


@pytest.mark.django_db
def test_the_benchmark_holds_both_versions_of_its_task_set(tau2_releases):
    bench = Benchmark.objects.get(slug="tau2")
    assert (bench.name, bench.task_set_version) == ("τ²-bench", "2026-03-18")
    sets = {s.version: s.tasks for s in bench.task_sets.all()}
    assert set(sets) == {"2026-03-18", "2025-06-10"} and len(sets["2025-06-10"]) == 50 + 114
    # 29 of 50 airline tasks and all 114 retail tasks read otherwise in 2025-06-10: a version of their own.
    older = Counter(key.split("-")[0] for key, v in sets["2025-06-10"].items() if v != sets["2026-03-18"][key])
    assert older == {"airline": 29, "retail": 114}
    # Loading the older set again changes nothing.
    out = StringIO()
    path = BUTTON.parents[1] / "tasks" / "airline-2025-06-10.json"
    call_command("import_tau2_tasks", str(path), benchmark="tau2", domain="airline", version="2025-06-10", stdout=out)
    assert "0 tasks created, 0 new versions, 50 unchanged" in out.getvalue()


@pytest.mark.django_db
def test_button_against_the_task_set_it_ran_agrees_at_76_and_an_editor_verifies_it(tau2_releases):
    sub = _import(BUTTON, "distyl-ai")
    fig = _figures(sub)
    # 38 successes of 50 tasks: 38/50 = 76.0, claimed 76.0 (1 decimal: within 0.05).
    assert fig["airline pass^1"] == {"name": "airline pass^1", "claimed": 76.0, "recomputed": 76.0, "agrees": True}
    # Mean agent_cost of the 50 simulations: 0.4136346..., claimed 0.4136 (4 decimals: within 0.00005).
    assert fig["airline cost"]["agrees"] is True
    assert fig["airline cost"]["recomputed"] == pytest.approx(0.4136346, abs=1e-6)
    for name, claimed in (("retail pass^1", 83.3), ("telecom pass^1", 97.4)):
        assert fig[name] == {"name": name, "claimed": claimed, "recomputed": None, "agrees": None}
    checks = _checks(sub)
    assert checks["task_versions"] == {
        "name": "task_versions",
        "passed": True,
        "detail": "task set 2025-06-10 (the current one is 2026-03-18): airline: 50 of 50 runs of the "
        "benchmark's own tasks",
    }
    assert checks["declared_models"]["detail"] == "model claude-opus-4-6, user simulator gpt-4.1, as declared"
    # Each of its 43 runs whose grading checks actions checks its own task's (the other 7 check none).
    assert checks["graded_as_filed"]["passed"] is True
    assert [c for c in sub.checks if not c["passed"]] == [] and sub.tier == "self-reported"
    # Its runs are in the round of the version they ran, beside the track's own: that board compares them only
    # with runs of 2025-06-10, and says so.
    assert (sub.round.key, sub.round.task_set_version) == ("community-2025-06-10", "2025-06-10")
    assert Run.objects.filter(round=sub.round, entry__agent=sub.agent).count() == 50
    editor = get_user_model().objects.create_superuser("ed", password="x")
    submission_verify(submission=sub, by=editor, note="Audited the trajectories", link="https://example.org/audit")
    assert sub.tier == "verified" and Entry.objects.get(round=sub.round, agent=sub.agent).tier == "verified"


@pytest.mark.django_db
def test_toolorchestra_agrees_per_family_but_its_runs_are_graded_as_other_tasks_and_it_cannot_be_verified(
    tau2_releases,
):
    sub = _import(TOOLORCHESTRA, "nvidia")
    fig = _figures(sub)
    assert fig["airline pass^1"]["recomputed"] == pytest.approx(56.0) and fig["airline pass^1"]["agrees"] is True
    # 96 / 114 = 84.2105...; claimed 84.2, |diff| 0.0105 <= 0.05.
    assert fig["retail pass^1"]["recomputed"] == pytest.approx(9600 / 114) and fig["retail pass^1"]["agrees"] is True
    assert fig["telecom pass^1"]["agrees"] is None
    assert Run.objects.filter(entry__agent=sub.agent).count() == 164
    assert sub.agent.slug == "nemotron-orchestrator-8b" and sub.agent.organization.slug == "nvidia"
    checks = _checks(sub)
    assert checks["task_versions"]["passed"] is True
    assert checks["task_versions"]["detail"].endswith(
        "airline: 50 of 50 runs of the benchmark's own tasks; retail: 114 of 114 runs of the benchmark's own tasks"
    )
    # It declares Nemotron-Orchestrator-8B with a gpt-5 user simulator; its files ran gpt-4.1-mini against a
    # gpt-4.1 user simulator.
    assert checks["declared_models"] == {
        "name": "declared_models",
        "passed": False,
        "detail": "declared model_name 'Nemotron-Orchestrator-8B'; the files' agent ran gpt-4.1-mini-2025-04-14; "
        "declared user_simulator 'gpt-5'; the files' user simulator ran gpt-4.1-2025-04-14",
        "values": [
            {"what": "model", "ran": "gpt-4.1-mini-2025-04-14", "declared": "Nemotron-Orchestrator-8B"},
            {"what": "user simulator", "ran": "gpt-4.1-2025-04-14", "declared": "gpt-5"},
        ],
    }
    assert Entry.objects.get(round=sub.round, agent=sub.agent).model == "gpt-4.1-mini-2025-04-14"
    # Its runs are filed under other tasks' ids. τ²'s grader checks the actions of the task it grades: the run
    # filed as airline task 0 had actions 27_0 and 27_1 checked (user ethan_martin_2396: task 27). 43 of the 50
    # airline runs and 111 of the 114 retail ones check another task's actions (the other 7 and 2 check none);
    # the ids are a reshuffle (no task twice), so the per-family figures hold, but every per-task one would
    # put a result on a task it never ran: a protocol check, which no editor may verify past.
    graded = checks["graded_as_filed"]
    assert graded["passed"] is False
    assert graded["detail"].startswith("airline: 43 of 50 runs were graded as another task (task 0 as task 27, ")
    assert "; retail: 111 of 114 runs were graded as another task (task 0 as task 89, " in graded["detail"]
    assert sub.tier == "flagged"
    editor = get_user_model().objects.create_superuser("ed", password="x")
    with pytest.raises(ValidationError, match="cannot verify while these stand: graded_as_filed: airline: 43 of 50"):
        submission_verify(
            submission=sub, by=editor, note="Audited", link="https://example.org/audit", disclosure_note="Ran 4.1-mini"
        )
    assert sub.tier == "flagged"


@pytest.mark.django_db
def test_a_version_the_track_does_not_take_writes_no_runs(tau2_releases):
    track = Round.objects.get(key="community").track
    track.task_set_versions = []
    track.save()
    sub = _import(BUTTON, "distyl-ai")
    assert _checks(sub)["task_versions"]["detail"].startswith(
        "task set 2025-06-10 (the current one is 2026-03-18): ran task set 2025-06-10, which this track does not "
        "accept (it accepts 2026-03-18)"
    )
    assert sub.tier == "flagged" and not Run.objects.filter(entry__agent=sub.agent).exists()
    assert _figures(sub)["airline pass^1"]["agrees"] is None
    # "Accept older versions" takes any version the benchmark holds.
    track.accept_older_versions = True
    track.save()
    sub = _import(BUTTON, "distyl-ai")
    assert _checks(sub)["task_versions"]["passed"] is True and sub.round.key == "community-2025-06-10"


@pytest.mark.django_db
def test_real_submissions_against_todays_task_set_alone_are_flagged(tau2):
    # Both ran the 2025-06-10 task set; the benchmark holds only today's, in which 29 of 50 airline tasks and
    # all 114 retail tasks read otherwise. Those runs are of tasks it does not hold: they never count.
    button = _import(BUTTON, "distyl-ai")
    nvidia = _import(TOOLORCHESTRA, "nvidia")
    checks = _checks(nvidia)
    assert checks["task_versions"]["passed"] is False
    detail = checks["task_versions"]["detail"]
    assert "airline: 29 of 50 runs are of tasks the benchmark does not hold in task set 1.0" in detail
    assert "retail: 114 of 114 runs are of tasks the benchmark does not hold in task set 1.0" in detail
    assert {c["name"] for c in button.checks if not c["passed"]} == {"task_versions", "tasks_covered"}
    assert button.tier == nvidia.tier == "flagged"
    assert Entry.objects.get(round=nvidia.round, agent=nvidia.agent).tier == "flagged"
    # Only the 21 airline tasks that did not change have runs written, at the current version.
    versions = Counter(Run.objects.filter(entry__agent=nvidia.agent).values_list("task__family", "task_version"))
    assert versions == {("airline", "1.0"): 21}
    assert "declared user_simulator gpt-5; the files ran gpt-4.1-2025-04-14" in nvidia.notes
    assert "email" not in str(nvidia.declared) and nvidia.contact["email"]
    log = ChangelogEntry.objects.filter(round=nvidia.round).values_list("what", flat=True)
    assert any(w.startswith(f"Submission {nvidia.pk} by NVIDIA: 21 runs added, flagged") for w in log)


@pytest.mark.django_db
def test_each_board_compares_one_version_of_the_task_set_and_says_which(tau2_releases, client):
    from tests.site.conftest import compute_all

    button = _import(BUTTON, "distyl-ai")
    compute_all()
    older = client.get("/b/tau2/r/community-2025-06-10/?tier=all").content.decode()
    assert 'data-task-set="2025-06-10">task set 2025-06-10<' in older
    assert f'data-agent="{button.agent.slug}"' in older
    today = client.get("/b/tau2/r/community/?tier=all").content.decode()
    assert 'data-task-set="2026-03-18">task set 2026-03-18<' in today
    assert f'data-agent="{button.agent.slug}"' not in today
    assert not Run.objects.filter(round__key="community", entry__agent=button.agent).exists()


@pytest.mark.django_db
def test_a_track_names_only_versions_the_benchmark_holds(tau2_releases):
    track = Round.objects.get(key="community").track
    track.task_set_versions = ["2025-06-10"]
    track.full_clean()
    track.task_set_versions = ["2024-01-01"]
    with pytest.raises(ValidationError, match="holds no task set 2024-01-01"):
        track.full_clean()


@pytest.mark.django_db
def test_the_methodology_page_says_which_versions_the_track_takes(tau2_releases, client):
    html = client.get("/b/tau2/methodology/").content.decode()
    assert "task set 2026-03-18, 2025-06-10. A submission is checked against the version its runs ran" in html


@pytest.mark.django_db
def test_import_submission_prints_figures_as_the_page_gives_them_and_the_platform_failures(tau2_releases):
    # ToolOrchestra airline: 28 / 50 = 56.0% (in floats 56.00000000000001); the page shows a claim of one decimal
    # to three (one plus two), so "56.000"; retail 96 / 114 = 84.2105...: "84.211". Its 164 simulations all
    # ended user_stop: none reported as a platform failure.
    out = StringIO()
    call_command("import_submission", str(TOOLORCHESTRA), benchmark="tau2", organization="nvidia", stdout=out)
    said = out.getvalue()
    assert "airline pass^1: claimed 56.0, recomputed 56.000: agrees" in said
    assert "retail pass^1: claimed 84.2, recomputed 84.211: agrees" in said
    assert "56.00000000000001" not in said
    assert "0 of 164 runs reported as platform failures by the submitter; every run is in the score" in said
    assert (
        "pass attempts_declared: airline: 50 attempts, none past the 1 declared trial per task (num_trials), "
        "none left out" in said
    )


def test_toolorchestra_s_placeholder_times_are_not_shown_as_measured(tau2_releases, client):
    # Every one of its 164 simulations says it started at 2025-01-01T00:00:00.000000 and lasted 60.0 s: written in
    # place of measurements. Its runs carry no time; Button's, measured (14.374... s for its first), keep theirs.
    orchestra = _import(TOOLORCHESTRA, "nvidia")
    assert (
        "airline: every one of its 50 simulations carries start 2025-01-01T00:00:00.000000 and duration 60.0: "
        "placeholders, not measurements; its runs are stored without a time" in orchestra.notes
    )
    assert any(n.startswith("retail: every one of its 114 simulations") for n in orchestra.notes)
    runs = Run.objects.filter(entry__agent=orchestra.agent)
    assert runs.count() == 164 and not runs.filter(wall_seconds__isnull=False).exists()
    assert not runs.filter(started_at__isnull=False).exists()
    button = _import(BUTTON, "distyl-ai")
    assert not any("placeholders" in n for n in button.notes)
    timed = Run.objects.filter(entry__agent=button.agent, wall_seconds__isnull=False, started_at__isnull=False)
    assert timed.count() == Run.objects.filter(entry__agent=button.agent).count() == 50


def test_placeholder_times_are_told_only_when_every_simulation_of_a_file_shares_them():
    from types import SimpleNamespace

    from submissions.reading import _placeholder_times

    def file(name, *times):
        sims = [{"start_time": start, "duration": duration} for start, duration in times]
        return SimpleNamespace(name=name, domain=name, simulations=sims)

    same = ("2025-01-01T00:00:00", 60.0)
    found = _placeholder_times(
        [
            file("one", same),  # a single simulation: nothing to compare
            file("measured", ("2026-03-03T19:20:24", 14.37), ("2026-03-03T19:21:02", 31.9)),
            file("none", (None, None), (None, None)),  # no times at all: nothing is shown anyway
            file("placeholders", same, same, same),
            file("durations", (None, 60.0), (None, 60.0)),
        ]
    )
    assert found == {
        "placeholders": "placeholders: every one of its 3 simulations carries start 2025-01-01T00:00:00 and duration "
        "60.0: placeholders, not measurements; its runs are stored without a time",
        "durations": "durations: every one of its 2 simulations carries duration 60.0: placeholders, not "
        "measurements; its runs are stored without a time",
    }
