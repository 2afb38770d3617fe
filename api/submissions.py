"""Submissions from outside teams: `POST /api/benchmarks/<slug>/submissions` with an organization's submission
key (Bearer; scoped to one benchmark as upload keys are, and to the organization's own agents), and the public
list `GET /api/benchmarks/<slug>/submissions`, each with its tier, checks and claimed/recomputed figures.

A submission is a τ²-bench folder as a zip (`archive`), or its `submission` file with its `trajectories`
files, or a results bundle (`bundle`), or Inspect logs (`logs`). A refused one answers 422 with every problem
and writes nothing; a team's upload key answers 403, as does a submission key on /bundle and /inspect."""

from __future__ import annotations

import math
from io import BytesIO
from typing import Any

from django.http import HttpRequest, JsonResponse
from ninja import File, Form, Path, Query, Router
from ninja.files import UploadedFile
from ninja.responses import Status

from leaderboard.models import in_published_round
from scoring.submission_checks import check_rule, ran_instead
from scoring.tiers import FILTERS, tiers_shown
from scoring.types import KEY_PATTERN
from submissions.files import zip_files
from submissions.models import Submission, SubmissionStatus
from submissions.reading import SubmissionRefused
from submissions.services import Upload, rate_wait, submit

from . import schemas as s
from .common import ERRORS
from .lookups import benchmark_or_404
from .uploads import UPLOAD_ERRORS, BenchmarkKey, KeyRateThrottle, _refused

router = Router(tags=["submissions"])
TIER_PATTERN = "^(" + "|".join(FILTERS) + ")$"


def submission_out(sub: Submission) -> dict[str, Any]:
    """A submission as the API and the pages give it: never its contact."""
    return {
        "id": sub.pk,
        "agent": sub.agent.slug,
        "organization": sub.organization.slug,
        "round": sub.round.key,
        "status": sub.status,
        "format": sub.format,
        "submitted_at": sub.created_at,
        "tier": sub.tier,
        "url": sub.get_absolute_url(),
        "checks": [
            {"name": c["name"], "passed": c["passed"], "detail": c["detail"], "kind": check_rule(c["name"]).kind}
            for c in sub.checks
        ],
        "figures": [
            {"name": f["name"], "claimed": f["claimed"], "recomputed": f["recomputed"], "agrees": f["agrees"]}
            for f in sub.figures
        ],
        "notes": list(sub.notes or []),
        "as_ran": ran_instead(sub.checks or []),
        "acknowledged": sub.disclosure_note,
    }


@router.get("/benchmarks/{slug}/submissions", response={200: list[s.SubmissionOut], **ERRORS})
def submissions(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    tier: str | None = Query(None, pattern=TIER_PATTERN, description="one tier, default-view or all"),
):
    """The benchmark's submissions in published rounds: live ones first, newest first; then superseded and
    withdrawn ones, with their status. `?tier=` keeps one tier (the default: every tier)."""
    bench = benchmark_or_404(slug)
    rows = (
        Submission.objects.filter(in_published_round(), benchmark=bench)
        .select_related("agent", "organization", "round", "benchmark")
        .order_by("-created_at", "-id")
    )
    if tier and tier != "all":
        rows = rows.filter(tier__in=tiers_shown(tier))
    ordered = sorted(rows, key=lambda sub: sub.status != SubmissionStatus.LIVE)
    return [submission_out(sub) for sub in ordered]


def _files(
    archive: UploadedFile | None,
    submission: UploadedFile | None,
    trajectories: list[UploadedFile],
    bundle: UploadedFile | None,
    logs: list[UploadedFile],
) -> Upload:
    if archive is not None:
        data = archive.read()
        return Upload("tau2", zip_files(BytesIO(data)), data)
    if submission is not None:
        files = {"submission.json": submission.read()}
        files.update({f"trajectories/{f.name or f'file-{i}.json'}": f.read() for i, f in enumerate(trajectories)})
        return Upload("tau2", files, None)
    if bundle is not None:
        return Upload("bundle", {bundle.name or "bundle.json": bundle.read()}, None)
    if logs:
        return Upload("inspect", {f.name or f"log-{i}.eval": f.read() for i, f in enumerate(logs)}, None)
    raise SubmissionRefused(["send archive (a τ² folder as a zip), submission + trajectories, bundle, or logs"])


@router.post(
    "/benchmarks/{slug}/submissions",
    auth=BenchmarkKey(team=False),
    throttle=[KeyRateThrottle()],
    response={201: s.SubmissionOut, **UPLOAD_ERRORS},
)
def submission_create(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    agent: str | None = Form(
        None, pattern=KEY_PATTERN, max_length=100, description="the agent's slug (default: from agent_name)"
    ),
    agent_name: str | None = Form(
        None, max_length=200, description="a new agent's name on the boards (default: submission.json's model_name)"
    ),
    round: str | None = Form(None, pattern=KEY_PATTERN, max_length=100, description="the track's round"),
    archive: UploadedFile | None = File(None, description="a τ²-bench submission folder as a zip"),
    submission: UploadedFile | None = File(None, description="τ²'s submission.json"),
    trajectories: list[UploadedFile] = File([], description="τ²'s trajectory files"),
    bundle: UploadedFile | None = File(None, description="a results bundle"),
    logs: list[UploadedFile] = File([], description="Inspect logs"),
):
    """Submit results for one of the key's organization's agents into the benchmark's open submission track.
    Answers 201 with the submission as checked (its tier, checks and figures)."""
    key = request.auth
    wait, whose = rate_wait(organization=key.organization, sender=f"key:{key.pk}")
    if wait:
        who = f"from {key.organization.name}" if whose == "org" else "with this key"
        busy = JsonResponse({"detail": f"Too many submissions {who}: try again in {math.ceil(wait)} s"}, status=429)
        busy["Retry-After"] = str(math.ceil(wait))
        return busy
    try:
        upload = _files(archive, submission, trajectories, bundle, logs)
        sub = submit(
            benchmark=key.benchmark,
            organization=key.organization,
            upload=upload,
            via="api",
            agent=agent,
            agent_name=agent_name,
            round_key=round,
            api_key=key,
        )
    except SubmissionRefused as exc:
        return _refused(exc.problems)
    return Status(201, submission_out(sub))
