"""Who a request comes from: the one rule for the client address, used by every rate limit (votes, sign-in,
the API)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The client's address. Behind the one trusted proxy (BEHIND_PROXY) it is the last X-Forwarded-For hop,
    the one the proxy itself appended; earlier hops are whatever the client sent, so they are never believed.
    Without a proxy the header is ignored (anyone can send it) and REMOTE_ADDR is the address."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if settings.BEHIND_PROXY and forwarded:
        return forwarded.split(",")[-1].strip()
    return request.META.get("REMOTE_ADDR", "")
