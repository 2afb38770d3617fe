"""Submissions from outside teams: `POST /api/benchmarks/<slug>/submissions` with an organization's submission
key (Bearer; scoped to one benchmark as upload keys are, and to the organization's own agents), and the public
list `GET /api/benchmarks/<slug>/submissions`, each with its tier, checks and claimed/recomputed figures.

A submission is in any format the site reads (`submissions.formats`), named by `format` or told by its files: a
folder as a zip (`archive`), or files as they are (`files`; `bundle` and `logs` are the same field by older
names, and `submission` with `trajectories` a folder's top file and its trajectories/ files). A refused one
answers 422 with every problem and writes nothing; a team's upload key answers 403, as does a submission key on
/bundle and /inspect."""

from __future__ import annotations

import io
import json
import math
from typing import Any

from django.http import HttpRequest, JsonResponse
from ninja import File, Form, Path, Query, Router
from ninja.files import UploadedFile
from ninja.responses import Status

from leaderboard.models import in_published_round
from scoring.submission_checks import check_rule, ran_instead
from scoring.tiers import FILTERS, tiers_shown
from scoring.types import KEY_PATTERN
from submissions import formats
from submissions.files import of_folder, sent_as, zip_files
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
        "runs_sent": sub.runs_sent,
        "platform_failures": sub.platform_failures,
        "platform_failures_said": sub.platform_failures_said,
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


def _files(fmt: str | None, archive: UploadedFile | None, sent: list[UploadedFile], folder: dict[str, bytes]) -> Upload:
    """The upload and its format: the one named, else the one its files are (`formats.recognised`)."""
    named = formats.get(fmt) if fmt else None
    if archive is not None:
        data = archive.read()
        if named is not None:
            return Upload(named.key, sent_as(named, archive.name or "archive.zip", data), data, counted=named.folder)
        found, files = of_folder(zip_files(io.BytesIO(data)))
        return Upload(found.key, files, data, counted=True)
    if folder:
        found = named or formats.recognised(folder, folder=True)
        return Upload(found.key, {name: data for name, data in folder.items() if found.takes(name)}, None)
    files = {f.name or f"file-{i}": f.read() for i, f in enumerate(sent)}
    if not files:
        kinds = "; ".join(f"{f.label}: {f.help}" for f in formats.REGISTRY.values())
        raise SubmissionRefused([f"send archive (a folder as a zip) or files ({kinds})"])
    found = named or formats.recognised(files, folder=False)
    return Upload(found.key, files, None)


def _claims(text: str | None) -> dict[str, str]:
    """The claims field: {name: number}, each number kept as written (its decimals are its rounding)."""
    if not text:
        return {}
    try:
        doc = json.loads(text, parse_float=str, parse_int=str)
    except ValueError:
        raise SubmissionRefused(["claims: not a JSON object"]) from None
    if not isinstance(doc, dict) or not all(isinstance(v, str) for v in doc.values()):
        raise SubmissionRefused(['claims: a JSON object of numbers, e.g. {"accuracy": 0.505}'])
    return {str(k): v for k, v in doc.items()}


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
    format: str | None = Form(
        None, pattern=KEY_PATTERN, max_length=20, description="the format (default: told by the files)"
    ),
    claims: str | None = Form(
        None,
        max_length=2000,
        description='figures claimed, as a JSON object of numbers as published, e.g. {"accuracy": 0.505, '
        '"accuracy stderr": 0.0135} (over those the files claim; checked at the decimals written)',
    ),
    archive: UploadedFile | None = File(None, description="a submission folder as a zip"),
    files: list[UploadedFile] = File([], description="files as they are (a results bundle, Inspect logs)"),
    bundle: UploadedFile | None = File(None, description="a results bundle (the same as files)"),
    logs: list[UploadedFile] = File([], description="Inspect logs (the same as files)"),
    submission: UploadedFile | None = File(None, description="a folder's submission.json (τ²-bench)"),
    trajectories: list[UploadedFile] = File([], description="the folder's trajectories/ files (τ²-bench)"),
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
        folder = {}
        if submission is not None:
            folder = {"submission.json": submission.read()} | {
                f"trajectories/{f.name or f'file-{i}.json'}": f.read() for i, f in enumerate(trajectories)
            }
        upload = _files(format, archive, [*files, *([bundle] if bundle else []), *logs], folder)
        upload.claims = _claims(claims)
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
