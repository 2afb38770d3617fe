"""The read API under /api/ (django-ninja): benchmarks, rounds, boards, tasks, runs with verdicts, ratings,
agents and the public bundle. The OpenAPI schema is at /api/openapi.json and the docs page at /api/docs.

Visibility is the public pages' rule, applied in one place (`lookups.published_round_or_404` and the
`published()` querysets): only published rounds exist here. Draft and preview rounds, their runs, verdicts and
private parameters answer 404 exactly like an unknown key, so the API never confirms that an unpublished round
exists, and a second reviewer can never read a first verdict through it. Nothing here names a user: verdicts
carry the reviewer's role only.

Every successful GET carries a strong ETag (a hash of the body) and `Cache-Control: public, max-age=10`;
`If-None-Match` answers 304. Boards and ratings also carry `Last-Modified` (the snapshot's computed_at) while
they are fresh. Requests are rate-limited per client (the signed-in user, else the IP address) with a fixed
window counter in the Django cache (Redis in production), answering 429 with `Retry-After`.

The package: `common` (rate limit, the API class, error shapes, the docs page), `lookups` (the visibility
rule), and one router per group of operations, mounted here in the order the schema lists them: `catalogue`
(benchmarks, rounds), `boards` (boards, ratings, bundle), `tasks`, `runs`, `agents`.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja.errors import Throttled, ValidationError

from . import agents, boards, catalogue, runs, submissions, tasks, uploads
from .common import ClientRateThrottle, LeaderboardAPI, SelfHostedSwagger, client_id, docs_asset

__all__ = ["ClientRateThrottle", "api", "client_id", "docs_asset"]

api = LeaderboardAPI(
    title="Agent Leaderboard API",
    version="1",
    urls_namespace="api",
    docs=SelfHostedSwagger(),
    throttle=[ClientRateThrottle()],
    description="Reads: published rounds only, conditional GETs (ETag / If-None-Match), rate-limited per client. "
    "Uploads: a benchmark team's key (Bearer) writes bundles or Inspect logs into draft and preview rounds. "
    "Submissions: an organization's submission key sends its results to a benchmark's submission track. See "
    "[docs/api.md](/api/docs/api.md) and [docs/submissions.md](/api/docs/submissions.md).",
)


@api.exception_handler(Throttled)
def rate_limited(request: HttpRequest, exc: Throttled) -> HttpResponse:
    seconds = max(1, math.ceil(exc.wait if exc.wait is not None else settings.API_RATE_WINDOW_SECONDS))
    response = api.create_response(request, {"detail": f"rate limit exceeded, retry in {seconds} s"}, status=429)
    response["Retry-After"] = str(seconds)
    return response


@api.exception_handler(uploads.PayloadTooLarge)
def too_large(request: HttpRequest, exc: uploads.PayloadTooLarge) -> HttpResponse:
    detail = f"the body is {exc.size} bytes; uploads take at most {settings.API_UPLOAD_MAX_BYTES}"
    return api.create_response(request, {"detail": detail}, status=413)


@api.exception_handler(ValidationError)
def invalid_input(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    parts = []
    for err in exc.errors:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    detail = "; ".join(parts) or "invalid input"
    return api.create_response(request, {"detail": detail, "errors": exc.errors}, status=422)


for _module in (catalogue, boards, tasks, runs, agents, uploads, submissions):
    api.add_router("", _module.router)
