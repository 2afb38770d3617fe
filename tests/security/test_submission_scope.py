"""An organization's submission key and its members, attacking from outside: they write their own agents'
runs into the benchmark's submission track only; never another organization's agent or submission, a team
round, a task, or the benchmark. A team's upload key does not submit; a submission key does not upload."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.test import Client

from leaderboard.models import Agent, Benchmark, Entry, Membership, Task, TaskVersion
from runs.models import Run
from submissions.actions import submission_withdraw
from submissions.models import Submission
from tests.builders import tau2 as t

pytestmark = pytest.mark.django_db
URL = "/api/benchmarks/mini-tau/submissions"


def _post(key: str, data: dict, url: str = URL):
    return Client().post(url, data, HTTP_AUTHORIZATION=f"Bearer {key}")


def _archive(files: dict[str, bytes] | None = None):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("submission.zip", t.zipped(files or t.files()), content_type="application/zip")


def _nothing_written(before: int = 0):
    assert Submission.objects.count() == before
    assert not Run.objects.filter(round__key="community").exists()


def test_a_key_submits_for_its_own_new_agent():
    w = t.mini_world()
    answer = _post(w.key_a, {"archive": _archive(), "agent": "a-agent"})
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert (body["agent"], body["organization"], body["tier"]) == ("a-agent", "org-a", "self-reported")
    assert Agent.objects.get(slug="a-agent").organization == w.org_a
    assert Run.objects.filter(round=w.track.round, entry__agent__slug="a-agent").count() == 3


def test_org_a_cannot_submit_for_org_bs_agent():
    w = t.mini_world()
    answer = _post(w.key_a, {"archive": _archive(), "agent": "b-agent"})
    assert answer.status_code == 422
    assert answer.json()["problems"] == ["agent: 'b-agent' is not an agent of Org A"]
    _nothing_written()


def test_org_a_cannot_write_a_team_round():
    w = t.mini_world()
    answer = _post(w.key_a, {"archive": _archive(), "agent": "a-agent", "round": "r1"})
    assert answer.status_code == 422
    assert answer.json()["problems"] == ["round 'r1' of mini-tau has no open submission track"]
    assert Entry.objects.filter(round=w.team_round).count() == 1 and not Run.objects.filter(round=w.team_round)
    _nothing_written()


def test_a_bundle_cannot_add_a_task_or_change_one_or_the_benchmark():
    w = t.mini_world()
    bundle = {
        "benchmark": {"slug": "mini-tau", "name": "Renamed", "methodology": "outcomes"},
        "agents": [{"slug": "a-agent", "name": "A agent"}],
        "tasks": [
            {"key": "mini-0", "title": "Changed", "version": "1.0", "kind": "core"},
            {"key": "new-task", "title": "New", "version": "1.0", "kind": "core"},
        ],
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-01-01T00:00:00Z",
                "entries": [{"agent": "a-agent"}],
            }
        ],
        "runs": [
            {"id": "x1", "round": "r1", "agent": "a-agent", "task": "mini-0", "status": "completed", "score": 1.0},
            {"id": "x2", "round": "r1", "agent": "a-agent", "task": "new-task", "status": "completed", "score": 1.0},
        ],
    }
    from django.core.files.uploadedfile import SimpleUploadedFile

    answer = _post(w.key_a, {"bundle": SimpleUploadedFile("b.json", json.dumps(bundle).encode()), "agent": "a-agent"})
    # Taken into the track's round only, with the stored task and benchmark: the run of a task the benchmark
    # does not have is not written, nor is the task; r1 gets nothing; nothing shared changed.
    assert answer.status_code == 201, answer.content
    bench = Benchmark.objects.get(slug="mini-tau")
    assert (bench.name, bench.methodology) == ("mini-tau", "scored")
    assert not Task.objects.filter(key="new-task").exists()
    assert Task.objects.get(key="mini-0").title == "mini task 0"
    assert list(Run.objects.filter(entry__agent__slug="a-agent").values_list("round__key", "task__key")) == [
        ("community", "mini-0")
    ]
    assert not Run.objects.filter(round=w.team_round).exists()
    checks = {c["name"]: c for c in answer.json()["checks"]}
    assert checks["tasks_covered"]["passed"] is False


def test_team_key_cannot_submit_and_submission_key_cannot_upload():
    w = t.mini_world()
    answer = _post(w.team_key, {"archive": _archive(), "agent": "a-agent"})
    assert answer.status_code == 403
    assert "upload key does not submit" in answer.json()["detail"]
    _nothing_written()
    for path in ("/api/benchmarks/mini-tau/bundle",):
        refused = Client().post(path, b"{}", content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {w.key_a}")
        assert refused.status_code == 403 and "only submits" in refused.json()["detail"]
    refused = _post(w.key_a, {"round": "r1", "logs": []}, url="/api/benchmarks/mini-tau/inspect")
    assert refused.status_code == 403


def test_a_key_of_another_benchmark_is_refused():
    w = t.mini_world()
    answer = _post(w.key_a, {"archive": _archive()}, url="/api/benchmarks/other/submissions")
    assert answer.status_code == 403


def test_unreadable_json_is_refused_and_writes_nothing():
    w = t.mini_world()
    files = {"submission.json": b"{not json", "trajectories/mini.json": b"[]"}
    answer = _post(w.key_a, {"archive": _archive(files)})
    assert answer.status_code == 422
    assert answer.json()["problems"][0].startswith("submission.json: not readable JSON")
    _nothing_written()


def test_org_as_member_cannot_withdraw_org_bs_submission():
    w = t.mini_world()
    assert _post(w.key_b, {"archive": _archive(), "agent": "b-agent"}).status_code == 201
    sub = Submission.objects.get(agent__slug="b-agent")
    member_a = get_user_model().objects.create_user("alice", password="x")
    Membership.objects.create(user=member_a, organization=w.org_a)
    with pytest.raises(PermissionDenied):
        submission_withdraw(submission=sub, by=member_a)
    sub.refresh_from_db()
    assert sub.status == "live" and Run.objects.filter(entry__agent__slug="b-agent").count() == 3
    member_b = get_user_model().objects.create_user("bob", password="x")
    Membership.objects.create(user=member_b, organization=w.org_b)
    submission_withdraw(submission=sub, by=member_b)
    sub.refresh_from_db()
    assert sub.status == "withdrawn" and not Run.objects.filter(entry__agent__slug="b-agent").exists()
    assert TaskVersion.objects.filter(task__key="mini-0").count() == 1


def test_an_upload_key_cannot_set_a_tier():
    w = t.mini_world()
    bundle = {
        "benchmark": {"slug": "mini-tau", "name": "mini-tau", "methodology": "scored"},
        "agents": [{"slug": "team-agent"}],
        "tasks": [],
        "rounds": [{"key": "r2", "status": "draft", "entries": [{"agent": "team-agent", "tier": "verified"}]}],
        "runs": [],
    }
    answer = Client().post(
        "/api/benchmarks/mini-tau/bundle",
        json.dumps(bundle),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {w.team_key}",
    )
    assert answer.status_code == 422
    assert answer.json()["problems"] == [
        "rounds[0].entries[0].tier: set by the submission checks; an upload key sends none"
    ]
    assert not Entry.objects.filter(round__key="r2").exists()


def _bundle_answer(w):
    """A bundle submission by org A of every required task, one trial each, with its transcript."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    transcript = {"messages": [{"role": "user", "text": "hi"}, {"role": "assistant", "text": "done"}]}
    runs = [
        {"id": f"x{i}", "round": "community", "agent": "a-agent", "task": f"mini-{i}", "task_version": "1.0"}
        | {"status": "completed", "score": 1.0, "transcript": transcript}
        for i in range(3)
    ]
    bundle = {
        "benchmark": {"slug": "mini-tau", "name": "mini-tau", "methodology": "scored"},
        "agents": [{"slug": "a-agent", "name": "A agent"}],
        "tasks": [{"key": f"mini-{i}", "title": f"mini task {i}", "version": "1.0", "kind": "core"} for i in range(3)],
        "rounds": [{"key": "community", "status": "published", "entries": [{"agent": "a-agent"}]}],
        "runs": runs,
    }
    return _post(w.key_a, {"bundle": SimpleUploadedFile("b.json", json.dumps(bundle).encode()), "agent": "a-agent"})


def test_a_bundle_submission_is_not_flagged_for_limits_its_track_does_not_read():
    # A bundle's runs carry no τ² `info`, and the track reads no limits for a bundle: the limits check passes,
    # and a bundle with every required task, its trial and its transcript is self-reported, not flagged.
    answer = _bundle_answer(t.mini_world())
    assert answer.status_code == 201, answer.content
    checks = {c["name"]: c for c in answer.json()["checks"]}
    limits = checks["limits_respected"]
    assert (limits["passed"], limits["detail"]) == (True, "the track sets no limits")
    assert [name for name, c in checks.items() if not c["passed"]] == [], checks
    assert answer.json()["tier"] == "self-reported"


def test_a_bundle_submission_stored_flagged_for_limits_is_brought_under_the_rule_by_its_migration():
    # Before the rule, a bundle's limits check failed for want of τ² `info`, which flagged the submission and its
    # entry. Its migration (submissions 0007) passes that check, works its tier out again and copies it to the
    # entry, and turns the round's boards stale; a τ² submission's failed limits check stays as it was.
    import importlib

    from django.apps import apps

    from snapshots.models import BoardSnapshot

    w = t.mini_world()
    assert _bundle_answer(w).status_code == 201
    over = _post(w.key_b, {"archive": _archive(t.files(mini=t.results(t.baseline_sims(), max_steps=500)))})
    assert over.status_code == 201, over.content
    bundle_sub, tau2_sub = Submission.objects.get(format="bundle"), Submission.objects.get(format="tau2")
    tau2_checks = tau2_sub.checks
    assert tau2_sub.tier == "flagged"
    old = "mini: cannot be checked: no info, so no max_steps/max_errors"
    checks = [c | {"passed": False, "detail": old} if c["name"] == "limits_respected" else c for c in bundle_sub.checks]
    Submission.objects.filter(pk=bundle_sub.pk).update(checks=checks, tier="flagged")
    Entry.objects.filter(round=bundle_sub.round, agent=bundle_sub.agent).update(tier="flagged")
    BoardSnapshot.objects.filter(round=bundle_sub.round).update(stale=False)

    importlib.import_module("submissions.migrations.0007_limits_without_track_limits")._limits_passed(apps, None)

    bundle_sub.refresh_from_db()
    limits = next(c for c in bundle_sub.checks if c["name"] == "limits_respected")
    assert (limits["passed"], limits["detail"]) == (True, "the track sets no limits")
    assert bundle_sub.tier == "self-reported"
    assert Entry.objects.get(round=bundle_sub.round, agent=bundle_sub.agent).tier == "self-reported"
    assert BoardSnapshot.objects.filter(round=bundle_sub.round, kind="boards", stale=True).exists()
    tau2_sub.refresh_from_db()
    assert (tau2_sub.checks, tau2_sub.tier) == (tau2_checks, "flagged")
