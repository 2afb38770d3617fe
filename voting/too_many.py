"""The one 429 page, for every limit a person can hit on the site's pages: votes and new pairs (voting.views),
sign-in and sign-up attempts (voting.views.accounts). The API answers its own 429 in JSON (api/__init__.py)."""

from __future__ import annotations

import math

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def too_many_page(request: HttpRequest, *, what: str, limit: int, window: int, wait: int) -> HttpResponse:
    """The 429 answer: "too many `what`", `limit` per `window` seconds, try again in `wait` seconds (also sent
    as Retry-After when given). Over htmx only the message, which takes the place of the vote stage."""
    context = {
        "limit": limit,
        "window_minutes": math.ceil(window / 60),
        "wait_minutes": math.ceil(wait / 60),
        "what": what,
    }
    template = "429.html#message" if getattr(request, "htmx", False) else "429.html"
    response = render(request, template, context, status=429)
    if wait:
        response["Retry-After"] = str(wait)
    return response
