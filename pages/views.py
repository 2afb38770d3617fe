"""Public pages: short views over pages.selectors, pages.details and pages.tradeoffs; htmx requests get the
swapped region only."""

from __future__ import annotations

import json

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from bundles.export import bundle_export
from bundles.votes_file import votes_file_chunks
from leaderboard.caching import public_page

from . import details, downloads, selectors
from .agents import agent_page
from .compare import compare_page
from .readings import readings_page
from .search import search_page
from .tradeoffs import tradeoffs_page


def _page(request: HttpRequest, template: str, context: dict, region: str) -> HttpResponse:
    """The whole page, or only `region` (a {% partialdef %}) for an htmx request that is not a boost."""
    if request.htmx and not request.htmx.boosted:
        return render(request, f"{template}#{region}", context)
    return render(request, template, context)


@public_page
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html", selectors.home_page())


@public_page
@require_GET
@vary_on_headers("HX-Request")
def board(request: HttpRequest, bench: str, round: str | None = None) -> HttpResponse:
    context = selectors.board_page(bench_slug=bench, round_key=round, params=request.GET, viewer=request.user)
    return _page(request, "pages/board.html", context, "board-region")


# A run page may play a terminal recording with asciinema's player, whose terminal runs as WebAssembly: its
# script-src allows compiling WebAssembly ('wasm-unsafe-eval'; JavaScript's eval stays refused), on this page only.
RUN_PAGE_CSP = {**settings.SECURE_CSP, "script-src": [CSP.SELF, CSP.WASM_UNSAFE_EVAL]}


@csp_override(RUN_PAGE_CSP)
@public_page
@require_GET
def run_detail(request: HttpRequest, bench: str, round: str, run: str) -> HttpResponse:
    context = details.run_page(bench_slug=bench, round_key=round, run_key=run, query=request.GET, viewer=request.user)
    return render(request, "pages/run_detail.html", context)


@require_GET
def run_json(request: HttpRequest, bench: str, round: str, run: str) -> JsonResponse:
    doc = details.run_document(bench_slug=bench, round_key=round, run_key=run, viewer=request.user)
    return JsonResponse(doc, json_dumps_params={"indent": 2, "ensure_ascii": False})


@public_page
@require_GET
def round_agent(request: HttpRequest, bench: str, round: str, agent: str) -> HttpResponse:
    context = details.round_agent_page(bench_slug=bench, round_key=round, agent_slug=agent, viewer=request.user)
    return render(request, "pages/round_agent.html", context)


@public_page
@require_GET
def task_detail(request: HttpRequest, bench: str, task: str) -> HttpResponse:
    context = details.task_page(bench_slug=bench, task_key=task, agent=request.GET.get("agent"), viewer=request.user)
    return render(request, "pages/task.html", context)


@public_page
@require_GET
def agent_detail(request: HttpRequest, slug: str) -> HttpResponse:
    return render(request, "pages/agent.html", agent_page(slug=slug))


@public_page
@require_GET
@vary_on_headers("HX-Request")
def tradeoffs(request: HttpRequest, bench: str) -> HttpResponse:
    context = tradeoffs_page(bench_slug=bench, params=request.GET, viewer=request.user)
    return _page(request, "pages/tradeoffs.html", context, "weighted-region")


@public_page
@require_GET
@vary_on_headers("HX-Request")
def compare(request: HttpRequest, bench: str) -> HttpResponse:
    context = compare_page(bench_slug=bench, params=request.GET, viewer=request.user)
    return _page(request, "pages/compare.html", context, "compare-region")


@public_page
@require_GET
def search(request: HttpRequest, bench: str) -> HttpResponse:
    return render(request, "pages/search.html", search_page(bench_slug=bench, params=request.GET))


@public_page
@require_GET
def methodology(request: HttpRequest, bench: str) -> HttpResponse:
    return render(request, "pages/methodology.html", selectors.methodology_page(bench_slug=bench))


@public_page
@require_GET
def round_tasks(request: HttpRequest, bench: str, round: str) -> HttpResponse:
    context = selectors.round_tasks_page(bench_slug=bench, round_key=round, params=request.GET, viewer=request.user)
    return render(request, "pages/round_tasks.html", context)


@require_GET
def round_tasks_csv(request: HttpRequest, bench: str, round: str) -> HttpResponse:
    name, rows = downloads.round_tasks_csv(bench_slug=bench, round_key=round, viewer=request.user)
    return downloads.csv_response(name, rows)


@public_page
@require_GET
def changelog(request: HttpRequest, bench: str, round: str) -> HttpResponse:
    context = selectors.changelog_page(bench_slug=bench, round_key=round, viewer=request.user)
    return render(request, "pages/changelog.html", context)


@public_page
@require_GET
def readings(request: HttpRequest, bench: str, round: str) -> HttpResponse:
    context = readings_page(bench_slug=bench, round_key=round, viewer=request.user)
    return render(request, "pages/readings.html", context)


@require_GET
def runs_csv(request: HttpRequest, bench: str) -> HttpResponse:
    benchmark, rows = downloads.runs_csv_rows(bench_slug=bench)
    return downloads.csv_response(f"{benchmark.slug}-runs", [downloads.RUN_CSV_COLUMNS, *rows])


@require_GET
def board_csv(request: HttpRequest, bench: str, round: str) -> HttpResponse:
    name, rows = downloads.board_csv(bench_slug=bench, round_key=round, params=request.GET, viewer=request.user)
    return downloads.csv_response(name, rows)


@require_GET
def bundle_json(request: HttpRequest, bench: str) -> HttpResponse:
    """The public bundle: published rounds only, no owner, reviewer or voter identity (voters pseudonymous)."""
    doc = bundle_export(
        benchmark=selectors.benchmark_get(bench),
        votes_inline_limit=settings.VOTES_INLINE_LIMIT,
        votes_file_url=request.build_absolute_uri(reverse("votes_file", args=[bench])),
    )
    response = HttpResponse(json.dumps(doc, indent=1, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{bench}-bundle.json"'
    return response


def votes_file(request: HttpRequest, bench: str) -> StreamingHttpResponse:
    """Every public vote of the benchmark as gzip-compressed JSON lines, streamed (voters pseudonymous)."""
    chunks = votes_file_chunks(selectors.benchmark_get(bench))
    response = StreamingHttpResponse(chunks, content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="{bench}-votes.jsonl.gz"'
    return response


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
