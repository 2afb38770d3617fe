"""Whole-page caching of the public pages for visitors without a session.

Board, run and task pages are built from snapshots that change only when a recompute finishes. A visitor
with no session cookie (no account, no pending message) sees exactly what every other such visitor sees,
so the rendered page is kept in the cache under its URL and whether htmx asked for a fragment, with the
site's *content version* it was made for. The version is bumped whenever a board snapshot changes or turns
stale, which retires every cached page at once; a short timeout bounds how long any other edit (an agent
renamed in the admin) takes to show. Signed-in visitors are never served from this cache.

A cache that is down is skipped: pages are rendered as if nothing was cached.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import OrderedDict
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)
VERSION_KEY = "site:content-version"
PAGE_TIMEOUT = 60
# Each process also keeps its latest pages, and trusts the version it last read for one second: repeated hits
# then cost no cache round trip, and a changed board reaches every process within that second.
LOCAL_VERSION_SECONDS = 1.0
LOCAL_PAGES = 256
_local_lock = threading.Lock()
_local_version: list = [None, 0.0]  # [version, time.monotonic() when read]
_local_pages: OrderedDict[str, dict] = OrderedDict()


def local_clear() -> None:
    """Forget this process's copies (the next request reads the shared cache)."""
    with _local_lock:
        _local_version[:] = [None, 0.0]
        _local_pages.clear()


def _remember(key: str, entry: dict) -> None:
    with _local_lock:
        _local_pages[key] = entry
        _local_pages.move_to_end(key)
        while len(_local_pages) > LOCAL_PAGES:
            _local_pages.popitem(last=False)


def _served(entry: dict) -> HttpResponse:
    response = HttpResponse(entry["content"], content_type=entry["content_type"])
    for header, value in entry["headers"].items():
        response[header] = value
    response["X-Page-Cache"] = "hit"
    return response


def content_version_bump() -> None:
    """Retire every cached public page (called when a snapshot changes or turns stale)."""
    local_clear()
    try:
        try:
            cache.incr(VERSION_KEY)
        except ValueError:  # never set: pages were cached under the default version 1
            cache.set(VERSION_KEY, 2, timeout=None)
    except Exception:  # noqa: BLE001 - a cache that is down holds no pages to retire
        log.warning("could not bump the content version: cache unreachable")


def _cacheable(request: HttpRequest) -> bool:
    # DEBUG (make serve) renders every time, so template edits show at once.
    return (
        not settings.DEBUG
        and request.method == "GET"
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "messages" not in request.COOKIES
    )


def public_page(view):
    """Serve `view` from the cache to visitors without a session (see the module docstring)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        raw = f"{bool(getattr(request, 'htmx', False))}:{request.get_full_path()}"
        key = "page:" + hashlib.sha256(raw.encode()).hexdigest()
        now = time.monotonic()
        with _local_lock:
            version = _local_version[0] if now - _local_version[1] < LOCAL_VERSION_SECONDS else None
            local = _local_pages.get(key)
        if version is not None and local is not None and local["version"] == version:
            return _served(local)
        try:
            # One round trip: the current version and the page, which remembers the version it was made for.
            found = cache.get_many([VERSION_KEY, key])
        except Exception:  # noqa: BLE001 - cache down: render
            return view(request, *args, **kwargs)
        version = found.get(VERSION_KEY, 1)
        with _local_lock:
            _local_version[:] = [version, now]
        hit = found.get(key)
        if hit is not None and hit["version"] == version:
            _remember(key, hit)
            return _served(hit)
        response = view(request, *args, **kwargs)
        if response.status_code == 200 and not response.cookies and not response.streaming:
            headers = {h: response[h] for h in ("Vary", "Content-Disposition") if response.has_header(h)}
            entry = {
                "version": version,
                "content": response.content,
                "content_type": response["Content-Type"],
                "headers": headers,
            }
            _remember(key, entry)
            try:
                cache.set(key, entry, timeout=PAGE_TIMEOUT)
            except Exception:  # noqa: BLE001
                pass
        return response

    return wrapped
