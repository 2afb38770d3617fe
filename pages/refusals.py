"""Refusals as pages of the site: its header and footer, the reason, and what to do next (sign in, ask to join an
organization, wait for a closed track), never a bare "403 Forbidden". `refusal_page` renders one; the site's
403 handler and its CSRF failure view answer every other refusal with it."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse


@dataclass(frozen=True)
class Step:
    label: str
    href: str = ""
    text: str = ""


def sign_in_step(next_url: str, text: str = "then come back here") -> Step:
    return Step("Sign in", f"{reverse('signin')}?{urlencode({'next': next_url}, safe='/')}", text)


def refusal_page(
    request: HttpRequest,
    *,
    title: str,
    reason: str,
    steps: list[Step] | None = None,
    eyebrow: str = "Not allowed",
    status: int = 403,
) -> HttpResponse:
    context = {"title": title, "reason": reason, "steps": steps or [], "eyebrow": eyebrow}
    return render(request, "403.html", context, status=status)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Any other refusal: the reason the code gave (its own words, never a visitor's input), and for a visitor
    who is not signed in, the way to sign in."""
    reason = str(exception or "") or "This page or action is not open to you."
    user = getattr(request, "user", None)
    signed_in = bool(getattr(user, "is_authenticated", False))
    steps = [] if signed_in else [sign_in_step(request.get_full_path() if request.method == "GET" else "/")]
    return refusal_page(request, title="Not allowed", reason=reason, steps=steps)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without this site's security token (CSRF_FAILURE_VIEW)."""
    return refusal_page(
        request,
        title="This form could not be sent",
        reason=(
            "It arrived without this site's security token: the page was open for a long time, you signed in or "
            "out in another tab, or the browser does not keep this site's cookies. Nothing was changed."
        ),
        steps=[Step("Go back, reload the page and send the form again")],
    )
