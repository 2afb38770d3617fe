"""The read API under /api/ (django-ninja): benchmarks, rounds, boards, tasks, runs with verdicts, ratings,
agents and the public bundle. The OpenAPI schema is at /api/openapi.json and the docs page at /api/docs.

Visibility is the public pages' rule, applied in one place (`_published_round` and the `published()`
querysets): only published rounds exist here. Draft and preview rounds, their runs, verdicts and private
parameters answer 404 exactly like an unknown key, so the API never confirms that an unpublished round exists,
and a second reviewer can never read a first verdict through it. Nothing here names a user: verdicts carry
the reviewer's role only.

Every successful GET carries a strong ETag (a hash of the body) and `Cache-Control: public, max-age=10`;
`If-None-Match` answers 304. Boards and ratings also carry `Last-Modified` (the snapshot's computed_at) while
they are fresh. Requests are rate-limited per client (the signed-in user, else the IP address) with a fixed
window counter in the Django cache (Redis in production), answering 429 with `Retry-After`.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from pathlib import Path as FilePath
from typing import Any

import ninja
from django.conf import settings
from django.db.models import Count, Q
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.template import engines
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, parse_http_date_safe, quote_etag
from ninja import NinjaAPI, Path, Query
from ninja.errors import HttpError, Throttled, ValidationError
from ninja.openapi.docs import DocsBase
from ninja.throttling import BaseThrottle

from bundles.export import bundle_export
from runs.models import Run, Verdict
from scoring.boards import boards_as_shown
from scoring.types import KEY_PATTERN
from snapshots.models import BoardSnapshot, SnapshotKind

from . import api_schemas as s
from .clients import client_address
from .models import Agent, Benchmark, Entry, Round, RoundParameter, Task, TaskVersion, fill_prompt, in_published_round
from .ratelimit import window_hit

MAX_PAGE_SIZE = 200
DEFAULT_PAGE_SIZE = 50
CACHE_MAX_AGE = 10
ERRORS: dict[int, Any] = {404: s.ErrorOut, 422: s.ErrorOut, 429: s.ErrorOut}


# --- rate limit ---------------------------------------------------------------------------------------------------

def client_id(request: HttpRequest) -> str:
    """The signed-in user, else the client's address by the site's one rule (`client_address`: behind the
    trusted proxy, the hop it appended to X-Forwarded-For)."""
    if settings.SESSION_COOKIE_NAME in request.COOKIES and request.user.is_authenticated:
        return f"user:{request.user.pk}"
    return f"ip:{client_address(request)}"


class ClientRateThrottle(BaseThrottle):
    """API_RATE_LIMIT requests per API_RATE_WINDOW_SECONDS per client, counted in fixed windows in the shared
    cache. `cache.incr` is atomic in Redis, so concurrent workers cannot both take the last request."""

    timer = staticmethod(time.time)

    def __init__(self) -> None:
        # One throttle object serves every thread; the wait belongs to the request just checked.
        self._local = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        limit, window = settings.API_RATE_LIMIT, max(1, settings.API_RATE_WINDOW_SECONDS)
        if limit <= 0:
            return True
        now = self.timer()
        bucket = int(now // window)
        ident = hashlib.sha256(client_id(request).encode()).hexdigest()[:32]
        count = window_hit(f"api-rate:{ident}:{bucket}", window)
        self._local.wait = (bucket + 1) * window - now
        # A cache that is down lets reads through rather than failing every request.
        return count is None or count <= limit

    def wait(self) -> float | None:
        return getattr(self._local, "wait", None)


# --- the API object: conditional GETs and error shapes --------------------------------------------------------------

class SelfHostedSwagger(DocsBase):
    """Swagger UI from the files django-ninja ships, served by `docs_asset` below: no CDN, and no need to put
    "ninja" in INSTALLED_APPS. The settings travel in a JSON script element, so the page runs no inline
    script."""

    page = engines["django"].from_string(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>'
        '<link rel="stylesheet" href="{{ assets }}swagger-ui.css?v={{ v }}">'
        '<link rel="icon" href="{{ assets }}favicon.svg?v={{ v }}" type="image/svg+xml"></head>'
        '<body data-csrf-token="" data-api-csrf="">{{ swagger|json_script:"swagger-settings" }}'
        '<div id="swagger-ui"></div>'
        '<script src="{{ assets }}swagger-ui-bundle.js?v={{ v }}"></script>'
        '<script src="{{ assets }}swagger-ui-init.js?v={{ v }}"></script></body></html>'
    )

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        context = {
            "title": api.title, "v": ninja.__version__, "assets": reverse("api-docs-asset", args=["x"])[:-1],
            "swagger": {"url": self.get_openapi_url(api, kwargs), "layout": "BaseLayout", "deepLinking": True},
        }
        return HttpResponse(self.page.render(context, request))


DOCS_ASSETS = {
    "swagger-ui.css": "text/css", "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-init.js": "text/javascript", "favicon.svg": "image/svg+xml",
}
DOCS_ASSET_DIR = FilePath(ninja.__file__).resolve().parent / "static" / "ninja"


def docs_asset(request: HttpRequest, name: str) -> FileResponse:
    if name not in DOCS_ASSETS:
        raise Http404(name)
    response = FileResponse((DOCS_ASSET_DIR / name).open("rb"), content_type=DOCS_ASSETS[name])
    response["Cache-Control"] = "public, max-age=86400"
    return response


class LeaderboardAPI(NinjaAPI):
    def create_response(self, request: HttpRequest, data: Any, *, status: int | None = None,
                        temporal_response: HttpResponse | None = None) -> HttpResponse:
        response = super().create_response(request, data, status=status, temporal_response=temporal_response)
        if request.method != "GET" or response.status_code != 200:
            return response
        etag = quote_etag(hashlib.sha256(response.content).hexdigest()[:40])
        response["ETag"] = etag
        response["Cache-Control"] = f"public, max-age={CACHE_MAX_AGE}"
        last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
        return get_conditional_response(request, etag=etag, last_modified=last_modified, response=response)


api = LeaderboardAPI(
    title="Agent Leaderboard API", version="1", urls_namespace="api", docs=SelfHostedSwagger(),
    throttle=[ClientRateThrottle()],
    description="Read-only: published rounds only. Conditional GETs (ETag / If-None-Match), rate-limited "
                "per client. See docs/api.md.",
)


@api.exception_handler(Throttled)
def rate_limited(request: HttpRequest, exc: Throttled) -> HttpResponse:
    seconds = max(1, math.ceil(exc.wait if exc.wait is not None else settings.API_RATE_WINDOW_SECONDS))
    response = api.create_response(request, {"detail": f"rate limit exceeded, retry in {seconds} s"}, status=429)
    response["Retry-After"] = str(seconds)
    return response


@api.exception_handler(ValidationError)
def invalid_input(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    parts = []
    for err in exc.errors:
        where = ".".join(str(p) for p in err.get("loc", ()))
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    detail = "; ".join(parts) or "invalid input"
    return api.create_response(request, {"detail": detail, "errors": exc.errors}, status=422)


# --- lookups: the visibility rule lives here --------------------------------------------------------------------------

def _benchmark(slug: str) -> Benchmark:
    benchmark = Benchmark.objects.filter(slug=slug).first()
    if benchmark is None:
        raise HttpError(404, f"no benchmark {slug!r}")
    return benchmark


def _published_round(benchmark: Benchmark, key: str) -> Round:
    """A published round of the benchmark; an unpublished one answers exactly like an unknown one."""
    rnd = Round.objects.published().filter(benchmark=benchmark, key=key).first()
    if rnd is None:
        raise HttpError(404, f"no published round {key!r} in {benchmark.slug}")
    return rnd


def _task(benchmark: Benchmark, key: str) -> Task:
    task = Task.objects.filter(benchmark=benchmark, key=key).prefetch_related("versions").first()
    if task is None:
        raise HttpError(404, f"no task {key!r} in {benchmark.slug}")
    return task


def _public_agents():
    return Agent.objects.public().select_related("organization")


def _version(task: Task, version: str) -> TaskVersion | None:
    versions = {v.version: v for v in task.versions.all()}
    return versions.get(version) or versions.get(task.version)


def _snapshot_payload(snap: BoardSnapshot | None, response: HttpResponse) -> dict[str, Any]:
    if snap is None:
        return {"stale": True, "computed_at": None, "version": 0, "data": None}
    if not snap.stale and snap.computed_at is not None:
        # Only while fresh: a stale flag flips without computed_at moving, so If-Modified-Since could miss it.
        response["Last-Modified"] = http_date(snap.computed_at.timestamp())
    return {"stale": snap.stale, "computed_at": snap.computed_at, "version": snap.version, "data": snap.data}


# --- catalogue ------------------------------------------------------------------------------------------------------

def _round_summary(rnd: Round) -> dict[str, Any]:
    return {"key": rnd.key, "name": rnd.name, "status": rnd.status, "task_set_version": rnd.task_set_version,
            "starts_on": rnd.starts_on, "published_at": rnd.published_at,
            "entry_count": rnd.entry_count, "run_count": rnd.run_count}


def _published_rounds(benchmark: Benchmark):
    return (Round.objects.published().filter(benchmark=benchmark)
            .annotate(entry_count=Count("entries", distinct=True), run_count=Count("runs", distinct=True)))


def _benchmark_fields(b: Benchmark, latest: str | None) -> dict[str, Any]:
    return {"slug": b.slug, "name": b.name, "methodology": b.methodology, "description": b.description,
            "task_set_version": b.task_set_version, "pass_threshold": b.pass_threshold,
            "params": b.params or {}, "latest_round": latest}


@api.get("/benchmarks", response={200: list[s.BenchmarkOut], **ERRORS}, tags=["benchmarks"])
def benchmarks(request: HttpRequest):
    """Every benchmark, with the key of its latest published round."""
    latest: dict[int, str] = {}
    for bench_id, key in Round.objects.published().values_list("benchmark_id", "key"):
        latest.setdefault(bench_id, key)  # Round's default ordering puts the newest first
    return [_benchmark_fields(b, latest.get(b.id)) for b in Benchmark.objects.all()]


@api.get("/benchmarks/{slug}", response={200: s.BenchmarkDetailOut, **ERRORS}, tags=["benchmarks"])
def benchmark_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """One benchmark with its published rounds (newest first) and its number of tasks."""
    b = _benchmark(slug)
    rounds = [_round_summary(r) for r in _published_rounds(b)]
    return {**_benchmark_fields(b, rounds[0]["key"] if rounds else None), "rounds": rounds,
            "tasks": b.tasks.count()}


@api.get("/benchmarks/{slug}/rounds", response={200: list[s.RoundSummaryOut], **ERRORS}, tags=["rounds"])
def rounds(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The benchmark's published rounds, newest first. Draft and preview rounds are not listed."""
    return [_round_summary(r) for r in _published_rounds(_benchmark(slug))]


@api.get("/benchmarks/{slug}/rounds/{key}", response={200: s.RoundDetailOut, **ERRORS}, tags=["rounds"])
def round_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
                 key: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """A published round: entries with their test conditions, task parameters and the corrections log."""
    b = _benchmark(slug)
    rnd = _published_round(b, key)
    rnd = _published_rounds(b).get(pk=rnd.pk)
    params: dict[str, dict[str, str]] = {}
    for p in RoundParameter.objects.filter(round=rnd).select_related("task"):
        params.setdefault(p.task.key, {})[p.name] = p.value
    entries = [{"agent": e.agent.slug, "agent_name": e.agent.name, "product_version": e.product_version,
                "plan": e.plan, "region": e.region, "network": e.network, "model": e.model, "cli": e.cli}
               for e in rnd.entries.select_related("agent")]
    changelog = [{"what": c.what, "why": c.why, "who": c.who_role, "at": c.created_at} for c in rnd.changelog.all()]
    return {**_round_summary(rnd), "benchmark": b.slug, "entries": entries, "parameters": params,
            "changelog": changelog}


@api.get("/benchmarks/{slug}/rounds/{key}/board", response={200: s.BoardOut, **ERRORS}, tags=["boards"])
def board(request: HttpRequest, response: HttpResponse, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
          key: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The round's computed boards as stored in its snapshot. `stale: true` means a recompute is queued: poll
    with If-None-Match until it turns false. `data` is null before the first computation."""
    b = _benchmark(slug)
    rnd = _published_round(b, key)
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    payload = _snapshot_payload(snap, response)
    if payload["data"] and b.rules.with_votes:  # ranked by votes (checks invent and startup tasks)
        ratings = BoardSnapshot.objects.filter(benchmark=b, round=None, kind=SnapshotKind.RATINGS).first()
        payload["data"] = boards_as_shown(b.methodology, payload["data"], ratings.data if ratings else None)
    return {"benchmark": b.slug, "round": rnd.key, **payload}


@api.get("/benchmarks/{slug}/ratings", response={200: s.SnapshotOut, **ERRORS}, tags=["boards"])
def ratings(request: HttpRequest, response: HttpResponse,
            slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """Bradley-Terry ratings from the blind pairwise votes: `data` holds `all` and per-task `tasks`."""
    b = _benchmark(slug)
    snap = BoardSnapshot.objects.filter(benchmark=b, round=None, kind=SnapshotKind.RATINGS).first()
    return {"benchmark": b.slug, **_snapshot_payload(snap, response)}


@api.get("/benchmarks/{slug}/bundle", response={200: s.BundleOut, **ERRORS}, tags=["bundle"])
def bundle(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The public bundle: published rounds with their runs, verdicts (roles only) and parameters, every task,
    and the votes under stable pseudonyms. `recount` computes every board from this document alone."""
    return bundle_export(benchmark=_benchmark(slug))


# --- tasks ----------------------------------------------------------------------------------------------------------

def _task_fields(t: Task) -> dict[str, Any]:
    current = _version(t, t.version)
    return {
        "key": t.key, "title": t.title, "kind": t.kind, "version": t.version,
        "dimensions": [str(d) for d in t.dimensions or []], "domain": t.domain, "difficulty": t.difficulty,
        "evaluation": t.evaluation, "time_limit_min": t.time_limit_min, "token_budget": t.token_budget,
        "human_minutes": t.human_minutes, "tags": [str(x) for x in t.tags or []],
        "prompt": current.prompt if current else "",
        "parameters": [str(p) for p in (current.parameters if current else []) or []],
        "criteria": (current.criteria if current else None) or {},
    }


@api.get("/benchmarks/{slug}/tasks", response={200: list[s.TaskOut], **ERRORS}, tags=["tasks"])
def tasks(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """The benchmark's tasks in their current version. Prompts show {placeholders}; the values of a round's
    parameters are given per published round on the task itself."""
    return [_task_fields(t) for t in _benchmark(slug).tasks.prefetch_related("versions").order_by("position", "key")]


@api.get("/benchmarks/{slug}/tasks/{key}", response={200: s.TaskDetailOut, **ERRORS}, tags=["tasks"])
def task_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
                key: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """One task: its versions, and for every published round its parameter values and the prompt filled in."""
    t = _task(_benchmark(slug), key)
    values: dict[int, dict[str, str]] = {}
    for p in RoundParameter.objects.filter(in_published_round(), task=t):
        values.setdefault(p.round_id, {})[p.name] = p.value
    used = dict(Run.objects.published().filter(task=t).order_by("round_id", "task_version")
                .values_list("round_id", "task_version"))
    per_round = []
    for rnd in Round.objects.published().filter(Q(id__in=values.keys()) | Q(id__in=used.keys())):
        version = _version(t, used.get(rnd.id, t.version))
        per_round.append({"round": rnd.key, "task_version": version.version if version else t.version,
                          "parameters": values.get(rnd.id, {}),
                          "prompt": fill_prompt(version.prompt if version else "", values.get(rnd.id, {}))})
    versions = [{"version": v.version, "published_at": v.published_at, "change_note": v.change_note}
                for v in t.versions.all()]
    return {**_task_fields(t), "versions": versions, "rounds": per_round}


# --- runs -----------------------------------------------------------------------------------------------------------

def _verdict_fields(v: Verdict) -> dict[str, Any]:
    return {"role": v.role, "outcome": v.outcome, "matched": [str(m) for m in v.matched or []], "note": v.note,
            "at": v.created_at}


RUN_FIELDS = (
    "task_version", "trial", "language", "status", "outcome", "score", "auto_pass_rate", "tests_passed",
    "tests_total", "judge_scores", "heuristic", "app_started", "api_checks_passed", "api_checks_total",
    "browser_steps_passed", "browser_steps_total", "tokens_input", "tokens_output", "tokens_cache_write",
    "plan_label", "wall_seconds", "first_output_seconds", "steps", "interventions", "checks_version",
    "started_at", "due_at",
)


def _run_fields(run: Run) -> dict[str, Any]:
    return {
        "key": run.key, "round": run.round.key, "agent": run.entry.agent.slug, "task": run.task.key,
        **{f: getattr(run, f) for f in RUN_FIELDS},
        "cost_usd": float(run.cost_usd) if run.cost_usd is not None else None,
        "rerun_of": run.rerun_of.key if run.rerun_of_id else None,
        "verdicts": [_verdict_fields(v) for v in run.verdicts.all()],
    }


def _runs():
    return (Run.objects.published().select_related("round", "entry__agent", "task", "rerun_of")
            .prefetch_related("verdicts"))


@api.get("/benchmarks/{slug}/runs", response={200: s.RunPageOut, **ERRORS}, tags=["runs"])
def runs(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
         round: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="a round key"),
         agent: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="an agent slug"),
         task: str | None = Query(None, pattern=KEY_PATTERN, max_length=100, description="a task key"),
         page: int = Query(1, ge=1, description="1-based; past the last page answers 404"),
         page_size: int = Query(DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)):
    """Runs of published rounds with their verdicts, filtered by round, agent and task, a page at a time.
    An unknown (or unpublished) round, agent or task answers 404."""
    b = _benchmark(slug)
    qs = _runs().filter(round__benchmark=b)
    if round is not None:
        qs = qs.filter(round=_published_round(b, round))
    if agent is not None:
        if not Agent.objects.filter(slug=agent).exists():
            raise HttpError(404, f"no agent {agent!r}")
        qs = qs.filter(entry__agent__slug=agent)
    if task is not None:
        qs = qs.filter(task=_task(b, task))
    count = qs.count()
    pages = max(1, math.ceil(count / page_size))
    if page > pages:
        raise HttpError(404, f"page {page} is past the last page ({pages})")
    start = (page - 1) * page_size
    items = [_run_fields(r) for r in qs[start:start + page_size]]
    return {"count": count, "page": page, "page_size": page_size, "pages": pages, "items": items}


@api.get("/benchmarks/{slug}/runs/{round}/{path:run_key}", response={200: s.RunDetailOut, **ERRORS},
         tags=["runs"])
def run_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100),
               round: str = Path(..., pattern=KEY_PATTERN, max_length=100),
               run_key: str = Path(..., min_length=1, max_length=200)):
    """One run of a published round: verdicts (roles, never reviewers), evidence, checks, disputes, and its
    prompt with the round's parameters filled in."""
    b = _benchmark(slug)
    rnd = _published_round(b, round)
    if "\x00" in run_key:
        raise HttpError(404, "no such run")
    run = (_runs().filter(round=rnd, key=run_key).prefetch_related("evidence", "checks", "disputes", "task__versions")
           .first())
    if run is None:
        raise HttpError(404, f"no run {run_key!r} in round {rnd.key}")
    values = dict(RoundParameter.objects.filter(round=rnd, task=run.task).values_list("name", "value"))
    version = _version(run.task, run.task_version)
    rerun = Run.objects.filter(rerun_of=run).values_list("key", flat=True).first()
    return {
        **_run_fields(run), "prompt": fill_prompt(version.prompt if version else "", values), "parameters": values,
        "rerun": rerun,
        "evidence": [{"kind": e.kind, "url": e.href, "caption": e.caption} for e in run.evidence.all()],
        "checks": [{"position": c.position, "kind": c.kind, "name": c.name, "passed": c.passed, "detail": c.detail}
                   for c in run.checks.all()],
        "disputes": [{"reason": d.reason, "note": d.note, "status": d.status, "filed_at": d.filed_at,
                      "decided_at": d.decided_at, "decision_note": d.decision_note} for d in run.disputes.all()],
    }


# --- agents ---------------------------------------------------------------------------------------------------------

def _agent_fields(a: Agent) -> dict[str, Any]:
    return {"slug": a.slug, "name": a.name, "organization": a.organization.name if a.organization else None,
            "primary_language": a.primary_language, "languages": [str(x) for x in a.languages or []]}


@api.get("/agents", response={200: list[s.AgentOut], **ERRORS}, tags=["agents"])
def agents(request: HttpRequest):
    """Agents entered in a published round (or compared in public votes). An agent entered only in draft or
    preview rounds is not listed."""
    return [_agent_fields(a) for a in _public_agents().order_by("name", "slug")]


@api.get("/agents/{slug}", response={200: s.AgentDetailOut, **ERRORS}, tags=["agents"])
def agent_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """One agent and its entries in published rounds, with the conditions it was tested under."""
    a = _public_agents().filter(slug=slug).first()
    if a is None:
        raise HttpError(404, f"no agent {slug!r}")
    entries = [{"benchmark": e.round.benchmark.slug, "round": e.round.key, "published_at": e.round.published_at,
                "product_version": e.product_version, "plan": e.plan, "region": e.region, "network": e.network,
                "model": e.model, "cli": e.cli}
               for e in Entry.objects.filter(in_published_round(), agent=a).select_related("round__benchmark")
               .order_by("round__benchmark__position", "-round__published_at")]
    return {**_agent_fields(a), "entries": entries}
