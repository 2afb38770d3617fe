"""The upload API: a benchmark team's harness sends a bundle or Inspect logs with its key.

`Authorization: Bearer <key>`: a key made by an editor in the admin, scoped to one benchmark. A missing,
unknown or revoked key answers 401, a key of another benchmark 403, a Content-Length that is not a number 400,
a body over API_UPLOAD_MAX_BYTES 413 (all before the body is read), and a refused document 422 with every
problem by its path (a body that is not JSON, too deep, a number too long, text the database cannot store).
Uploads go into draft and preview rounds only; nothing is written on any error. Rate-limited per key (429)."""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja import File, Form, Path, Router
from ninja.errors import HttpError
from ninja.files import UploadedFile
from ninja.responses import Status
from ninja.security import HttpBearer
from ninja.throttling import BaseThrottle

from bundles.inspect_logs import InspectLogError, LogTooLarge, read_logs
from bundles.report import ImportReport
from bundles.uploads import bundle_upload, inspect_upload
from leaderboard.api_keys import api_key_check
from leaderboard.models import ApiKey
from leaderboard.ratelimit import limit_hit
from scoring.bundle import BundleError, DocumentError, parse_document
from scoring.types import KEY_PATTERN

from . import schemas as s
from .boards import router as boards_router

router = Router(tags=["uploads"])
UPLOAD_ERRORS: dict[int, Any] = {
    400: s.ErrorOut,
    401: s.ErrorOut,
    403: s.ErrorOut,
    413: s.ErrorOut,
    422: s.UploadErrorOut,
    429: s.ErrorOut,
}
AGENT_FROM_PATTERN = r"^(model|solver|tag:[A-Za-z0-9_.-]{1,50})$"


class PayloadTooLarge(Exception):
    def __init__(self, size: int) -> None:
        self.size = size


class BenchmarkKey(HttpBearer):
    """A live key of the benchmark in the path; the body's announced size is checked here, before it is read.
    A benchmark team's upload key (`team`) uploads; an organization's submission key only submits."""

    WRONG_KIND = {
        True: "a submission key only submits (POST /api/benchmarks/<slug>/submissions)",
        False: "a benchmark team's upload key does not submit: submissions come with an organization's key",
    }

    def __init__(self, *, team: bool = True) -> None:
        super().__init__()
        self.team = team

    def authenticate(self, request: HttpRequest, token: str) -> ApiKey | None:
        key = api_key_check(token)
        if key is None:
            return None
        slug = (request.resolver_match.kwargs if request.resolver_match else {}).get("slug")
        if slug != key.benchmark.slug:
            raise HttpError(403, f"this key is for benchmark {key.benchmark.slug!r}")
        if (key.organization_id is None) != self.team:
            raise HttpError(403, self.WRONG_KIND[self.team])
        announced = request.META.get("CONTENT_LENGTH") or "0"
        if not announced.isascii() or not announced.isdigit():
            # Django would read such a body as empty; the sender has a broken client, and is told so.
            raise HttpError(400, f"the Content-Length header {announced[:40]!r} is not a number of bytes")
        if int(announced) > settings.API_UPLOAD_MAX_BYTES:
            raise PayloadTooLarge(int(announced))
        return key


class KeyRateThrottle(BaseThrottle):
    """API_UPLOAD_RATE_LIMIT uploads per API_UPLOAD_RATE_WINDOW_SECONDS per key (a sliding window in the shared
    cache: `leaderboard.ratelimit`)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        limit, window = settings.API_UPLOAD_RATE_LIMIT, max(1, settings.API_UPLOAD_RATE_WINDOW_SECONDS)
        key = getattr(request, "auth", None)
        if limit <= 0 or not isinstance(key, ApiKey):
            return True
        wait = limit_hit(f"api-upload:{key.pk}", limit=limit, window=window)
        self._local.wait = wait
        return not wait

    def wait(self) -> float | None:
        return getattr(self._local, "wait", None)


def _answer(report: ImportReport, rounds: list[str]) -> dict[str, Any]:
    return {"benchmark": report.benchmark, "rounds": rounds, "created": report.created, "updated": report.updated}


def _refused(problems: list[str]) -> Status:
    return Status(422, {"detail": f"{len(problems)} problem(s); nothing was written", "problems": problems})


UPLOAD_EXAMPLE = {
    "benchmark": "my-bench",
    "rounds": ["2026-r1"],
    "created": {"runs": 6, "tasks": 3, "task versions": 3, "entries": 1, "agents": 1},
    "updated": {},
}
BUNDLE_EXAMPLE = {
    "benchmark": {"slug": "my-bench", "name": "My benchmark", "methodology": "scored"},
    "agents": [{"slug": "my-agent", "name": "My agent"}],
    "tasks": [{"key": "t1", "version": "1.0", "prompt": "Do the thing.", "evaluation": "auto"}],
    "rounds": [{"key": "2026-r1", "status": "draft", "entries": [{"agent": "my-agent", "model": "gpt-x"}]}],
    "runs": [
        {
            "id": "r1",
            "round": "2026-r1",
            "agent": "my-agent",
            "task": "t1",
            "status": "completed",
            "tests_passed": 4,
            "tests_total": 5,
        }
    ],
}


# POST /bundle shares its path with GET /bundle, and Django resolves a path to one router's URL pattern: the
# upload is therefore an operation of the boards router (tagged "uploads" all the same).
@boards_router.post(
    "/benchmarks/{slug}/bundle",
    tags=["uploads"],
    auth=BenchmarkKey(),
    throttle=[KeyRateThrottle()],
    response={200: s.UploadOut, **UPLOAD_ERRORS},
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}, "example": BUNDLE_EXAMPLE}},
        },
        "responses": {200: {"content": {"application/json": {"example": UPLOAD_EXAMPLE}}}},
    },
)
def upload_bundle(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """Import a results bundle (format: DESIGN.md) into this benchmark's draft or preview rounds. Sending the
    same bundle again changes nothing. The answer counts what was created and updated, per kind of row."""
    raw = request.read(settings.API_UPLOAD_MAX_BYTES + 1)
    if len(raw) > settings.API_UPLOAD_MAX_BYTES:
        raise PayloadTooLarge(len(raw))
    try:
        doc = parse_document(raw)
    except DocumentError as exc:
        return _refused([f"(body): {exc}"])
    try:
        report = bundle_upload(doc=doc, benchmark=request.auth.benchmark)
    except BundleError as exc:
        return _refused(exc.problems)
    return _answer(report, [r["key"] for r in doc.get("rounds") or []])


@router.post(
    "/benchmarks/{slug}/inspect",
    auth=BenchmarkKey(),
    throttle=[KeyRateThrottle()],
    response={200: s.UploadOut, **UPLOAD_ERRORS},
    openapi_extra={
        "requestBody": {
            "content": {
                "multipart/form-data": {
                    "example": {
                        "logs": ["2026-03-01T10-00-00_quiz_abc.eval"],
                        "round": "2026-r1",
                        "agent_from": "model",
                    }
                }
            }
        },
        "responses": {200: {"content": {"application/json": {"example": UPLOAD_EXAMPLE}}}},
    },
)
def upload_inspect(
    request: HttpRequest,
    slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
    logs: list[UploadedFile] = File(..., description="Inspect eval logs (.eval or .json)"),
    round: str = Form(..., pattern=KEY_PATTERN, max_length=100, description="the round (created as a draft)"),
    agent_from: str = Form("model", pattern=AGENT_FROM_PATTERN, description="model, solver or tag:NAME"),
    scorer: str | None = Form(None, max_length=200, description="the scorer that counts (default: the first)"),
):
    """Import one or more Inspect eval logs into a draft or preview round of this benchmark (a task per sample,
    a trial per epoch, an entry per model; docs/inspect.md). Sending the same logs again changes nothing."""
    try:
        named = read_logs([(f.name or f"log {i + 1}", f) for i, f in enumerate(logs)])
    except LogTooLarge as exc:
        return Status(413, {"detail": "; ".join(exc.problems)})
    except InspectLogError as exc:
        return _refused(exc.problems)
    try:
        result = inspect_upload(
            logs=named, benchmark=request.auth.benchmark, round_key=round, agent_from=agent_from, scorer=scorer
        )
    except (InspectLogError, BundleError) as exc:
        return _refused(exc.problems)
    assert result.report is not None
    return _answer(result.report, [round])
