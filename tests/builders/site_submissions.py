"""A submission made by hand on the scored test round (`tests.builders.site.scored_bundle`), as the submission
service leaves one: Full's entry in round r1 submitted by Acme, with its checks, figures and tier."""

from __future__ import annotations

from bundles.importer import bundle_import
from leaderboard.models import Agent, Entry, Organization
from leaderboard.stale import snapshots_mark_stale
from runs.models import Run
from submissions.models import Submission, SubmissionEvent
from tests.builders.site import scored_bundle
from tests.site.conftest import compute_all

PASSED = [
    {"name": "declared_fields", "passed": True, "detail": "all 11 declared"},
    {"name": "tasks_covered", "passed": True, "detail": "code: 3 of 3"},
]
FAILED = PASSED + [
    {
        "name": "task_versions_current",
        "passed": False,
        "detail": "code: 2 of 3 tasks differ from the current version 1.0: t1, t2",
    }
]
AGREE = [
    {"name": "code pass^1", "claimed": 100.0, "recomputed": 100.0, "agrees": True},
    {"name": "other pass^1", "claimed": 50.0, "recomputed": None, "agrees": None},
]
DIFFER = [
    {"name": "code pass^1", "claimed": 100.0, "recomputed": 66.66666666666667, "agrees": False},
    {"name": "other pass^1", "claimed": 50.0, "recomputed": None, "agrees": None},
]


def hand_made_submission(*, checks=PASSED, figures=AGREE, tier="self-reported") -> Submission:
    bundle_import(doc=scored_bundle())
    acme = Organization.objects.create(slug="acme", name="Acme")
    Agent.objects.filter(slug="full").update(organization=acme)
    agent = Agent.objects.get(slug="full")
    entry = Entry.objects.get(agent=agent)
    Entry.objects.filter(pk=entry.pk).update(tier=tier)
    sub = Submission.objects.create(
        benchmark=entry.round.benchmark,
        round=entry.round,
        agent=agent,
        organization=acme,
        format="tau2",
        via="site",
        declared={"model_name": "Full 1", "contact_info": {"name": "Ann"}, "methodology": {"user_simulator": "u1"}},
        contact={"email": "ann@acme.example"},
        checks=checks,
        figures=figures,
        claims=[
            {"name": "code pass^1", "value": 100.0, "decimals": 1, "unit": "%"},
            {"name": "other pass^1", "value": 50.0, "decimals": 1, "unit": "%"},
        ],
        tier=tier,
    )
    SubmissionEvent.objects.create(submission=sub, kind="submitted")
    for run in Run.objects.filter(entry=entry):  # a submission's runs are named after it, as the service names them
        Run.objects.filter(pk=run.pk).update(key=f"s{sub.pk}-{run.key}")
    snapshots_mark_stale(round_ids=[entry.round_id])
    compute_all()
    return sub
