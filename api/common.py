"""What every operation of the read API shares: the rate limit, the API class (conditional GETs, operation
ids), the error responses and the self-hosted docs page."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path as FilePath
from typing import Any

import ninja
from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.template import engines
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import parse_http_date_safe, quote_etag
from ninja import NinjaAPI
from ninja.openapi.docs import DocsBase
from ninja.operation import Operation
from ninja.throttling import BaseThrottle

from leaderboard import ratelimit
from leaderboard.clients import client_address
from leaderboard.ratelimit import limit_hit

from . import schemas as s

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
    """API_RATE_LIMIT requests per API_RATE_WINDOW_SECONDS per client, over any stretch of that length (a
    sliding window in the shared cache: `leaderboard.ratelimit`)."""

    timer = staticmethod(lambda: ratelimit.clock())

    def __init__(self) -> None:
        # One throttle object serves every thread; the wait belongs to the request just checked.
        self._local = threading.local()

    def allow_request(self, request: HttpRequest) -> bool:
        limit, window = settings.API_RATE_LIMIT, max(1, settings.API_RATE_WINDOW_SECONDS)
        if limit <= 0:
            return True
        ident = hashlib.sha256(client_id(request).encode()).hexdigest()[:32]
        wait = limit_hit(f"api-rate:{ident}", limit=limit, window=window, now=self.timer())
        self._local.wait = wait
        # A cache that is down (None) lets reads through rather than failing every request.
        return not wait

    def wait(self) -> float | None:
        return getattr(self._local, "wait", None)


# --- the docs page --------------------------------------------------------------------------------------------------


class SelfHostedSwagger(DocsBase):
    """Swagger UI from the files django-ninja ships, served by `docs_asset` below: no CDN, and no need to put
    "ninja" in INSTALLED_APPS. The settings travel in a JSON script element, so the page runs no inline
    script."""

    # The site's own page (header, footer, a way back, the phone viewport) around Swagger UI.
    page = engines["django"].from_string(
        '{% extends "base.html" %}{% load static %}{% block title %}API docs · {{ SITE_NAME }}{% endblock %}'
        '{% block head %}<link rel="stylesheet" href="{{ assets }}swagger-ui.css?v={{ v }}">'
        '<link rel="stylesheet" href="{% static \'css/api-docs.css\' %}">'
        '<script src="{{ assets }}swagger-ui-bundle.js?v={{ v }}" defer></script>'
        '<script src="{{ assets }}swagger-ui-init.js?v={{ v }}" defer></script>{% endblock %}'
        '{% block content %}<nav class="crumbs" aria-label="Breadcrumb"><a href="{% url \'home\' %}">Boards</a> '
        '<span aria-hidden="true">›</span> <span aria-current="page">API docs</span></nav>'
        '<header class="page-head"><div><p class="eyebrow">For developers</p><h1>{{ title }}</h1>'
        '<p class="lede">Every operation below, with its parameters and answers; the guide, with the upload '
        'API, the keys and the rate limits, is <a href="{{ guide }}">docs/api.md</a>. The schema itself: '
        '<a href="{{ swagger.url }}">OpenAPI (JSON)</a>.</p></div></header>'
        '<div id="swagger-root">{{ swagger|json_script:"swagger-settings" }}'
        '<div id="swagger-ui"></div></div>{% endblock %}'
    )

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        context = {
            "title": api.title,
            "v": ninja.__version__,
            "assets": reverse("api-docs-asset", args=["x"])[:-1],
            "swagger": {"url": self.get_openapi_url(api, kwargs), "layout": "BaseLayout", "deepLinking": False},
            "guide": reverse("api-guide", args=["api"]),
        }
        return HttpResponse(self.page.render(context, request))


# The project's docs the API docs page links to, rendered as site pages (/api/docs/<name>.md); any other name
# is not found.
GUIDES = {"api", "inspect", "submissions"}
GUIDE_DIR = FilePath(settings.BASE_DIR) / "docs"
guide_page = engines["django"].from_string(
    '{% extends "base.html" %}{% load static %}{% block title %}{{ name }} · {{ SITE_NAME }}{% endblock %}'
    '{% block head %}<link rel="stylesheet" href="{% static \'css/api-docs.css\' %}">{% endblock %}{% block content %}'
    '<nav class="crumbs" aria-label="Breadcrumb"><a href="{% url \'home\' %}">Boards</a> <span aria-hidden="true">›'
    '</span> <a href="{{ docs }}">API docs</a> <span aria-hidden="true">›</span> <span aria-current="page">'
    '{{ name }}</span></nav><article class="prose guide">{{ html }}</article>{% endblock %}'
)


def api_guide(request: HttpRequest, name: str) -> HttpResponse:
    """One of the project's docs (`GUIDES`), its Markdown rendered with raw HTML left as text."""
    from django.utils.safestring import mark_safe
    from markdown_it import MarkdownIt

    if name not in GUIDES:
        raise Http404(name)
    text = (GUIDE_DIR / f"{name}.md").read_text(encoding="utf-8")
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    context = {"name": f"docs/{name}.md", "html": mark_safe(html), "docs": reverse("api:openapi-view")}  # noqa: S308
    return HttpResponse(guide_page.render(context, request))


DOCS_ASSETS = {
    "swagger-ui.css": "text/css",
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-init.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}
DOCS_ASSET_DIR = FilePath(ninja.__file__).resolve().parent / "static" / "ninja"


def docs_asset(request: HttpRequest, name: str) -> FileResponse:
    if name not in DOCS_ASSETS:
        raise Http404(name)
    response = FileResponse((DOCS_ASSET_DIR / name).open("rb"), content_type=DOCS_ASSETS[name])
    response["Cache-Control"] = "public, max-age=86400"
    return response


# --- the API class: conditional GETs and stable operation ids -----------------------------------------------------


class LeaderboardAPI(NinjaAPI):
    def create_response(
        self,
        request: HttpRequest,
        data: Any,
        *,
        status: int | None = None,
        temporal_response: HttpResponse | None = None,
    ) -> HttpResponse:
        response = super().create_response(request, data, status=status, temporal_response=temporal_response)
        if request.method != "GET" or response.status_code != 200:
            return response
        etag = quote_etag(hashlib.sha256(response.content).hexdigest()[:40])
        response["ETag"] = etag
        response["Cache-Control"] = f"public, max-age={CACHE_MAX_AGE}"
        last_modified = parse_http_date_safe(response.get("Last-Modified", ""))
        return get_conditional_response(request, etag=etag, last_modified=last_modified, response=response)

    def get_openapi_operation_id(self, operation: Operation) -> str:
        # Published ids (`leaderboard_api_<view>`) that clients may have generated code from: they name the
        # view, never the module of the package it is defined in.
        return f"leaderboard_api_{operation.view_func.__name__}"
