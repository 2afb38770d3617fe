"""The CSRF token of a vote screen's answer, masked once (the Jinja2 templates' `csrf_field()` and `csrf_value()`,
config/jinja2.py), and told to the screen cache, which keeps a page without it (`screen_cache`)."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token

# Where a request keeps the CSRF token masked for its answer.
_MASKED = "_jinja_csrf_token"


def masked_token(request: HttpRequest) -> str:
    """The CSRF token masked once for the request's answer: Django masks it afresh each time it is asked for
    (about 0.1 ms), and a vote screen's answer asks for it in its frame and in its forms."""
    token = getattr(request, _MASKED, None)
    if token is None:
        token = get_token(request)
        setattr(request, _MASKED, token)
    return token


def masked_token_given(request: HttpRequest) -> str | None:
    """The masked token this request's answer holds, if it holds one."""
    return getattr(request, _MASKED, None)
