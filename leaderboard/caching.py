"""Whole-page caching of the public pages for visitors without a session.

Board, run and task pages are built from snapshots that change only when a recompute finishes. A visitor
with no session cookie (no account, no pending message) sees exactly what every other such visitor sees,
so the rendered page is kept in the cache under its URL and whether htmx asked for a fragment, with the
*content version* it was made for. A page of one benchmark (a view with a `bench` argument) is made for that
benchmark's version; every other page (the home page, which shows every benchmark) for the version of the
pages outside any benchmark; every page also carries the site-wide version. When a benchmark's board
snapshot changes or turns stale, `content_version_bump(benchmarks=[slug])` retires that benchmark's pages and
the pages outside any benchmark, and no other benchmark's; when only its ratings do (a vote),
`outside=False` retires that benchmark's pages alone (the pages outside read no ratings): votes streaming
into one benchmark leave every other page cached. `content_version_bump()` with no argument retires every
page. A short timeout bounds how long any other edit (an agent renamed in the admin) takes to show.
Signed-in visitors are never served from this cache.

A cached page is also kept gzip-compressed, made once when it is stored, and sent so to a browser that says
it accepts gzip (every browser does; `Vary: Accept-Encoding` on both forms): the 100 x 30 board's 897 KB of
HTML is sent as 44 KB; sending it was what its cached hit cost (bench/README.md, "Pages under load").
These pages hold no secret (no CSRF token: `base.html` emits it for signed-in visitors only, who are never
served from here), so compressing them gives BREACH nothing to guess.

A changed page is rendered once for all processes: the first request to miss takes a short render lock in
the shared cache and renders; the others, meanwhile, serve the page they already had (for at most
RENDER_LOCK_SECONDS) instead of rendering it too.

A cache that is down is skipped: pages are rendered as if nothing was cached.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

log = logging.getLogger(__name__)
VERSION_KEY = "site:content-version"
OUTSIDE_SCOPE = "*"  # the pages outside any benchmark
PAGE_TIMEOUT = 60
RENDER_LOCK_SECONDS = 5
# Each process also keeps its latest pages, and trusts the versions it last read for one second: repeated hits
# then cost no cache round trip, and a changed board reaches every process within that second.
LOCAL_VERSION_SECONDS = 1.0
LOCAL_PAGES = 256
_local_lock = threading.Lock()
_local_versions: dict[str, tuple[object, float]] = {}  # scope -> (version, time.monotonic() when read)
_local_pages: OrderedDict[str, dict] = OrderedDict()


def _scope_key(scope: str) -> str:
    # Hashed: the scope comes from the address, which may hold any characters (a key must not).
    return f"{VERSION_KEY}:{hashlib.sha256(scope.encode()).hexdigest()[:32]}"


def local_clear() -> None:
    """Forget this process's copies (the next request reads the shared cache)."""
    with _local_lock:
        _local_versions.clear()
        _local_pages.clear()


def _remember(key: str, entry: dict) -> None:
    with _local_lock:
        _local_pages[key] = entry
        _local_pages.move_to_end(key)
        while len(_local_pages) > LOCAL_PAGES:
            _local_pages.popitem(last=False)


# What Django's GZipMiddleware reads in Accept-Encoding.
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


def _served(entry: dict, request: HttpRequest) -> HttpResponse:
    gzipped = entry.get("gzip")
    if gzipped is not None and _ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")):
        response = HttpResponse(gzipped, content_type=entry["content_type"])
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(entry["content"], content_type=entry["content_type"])
    for header, value in entry["headers"].items():
        response[header] = value
    if gzipped is not None:
        patch_vary_headers(response, ("Accept-Encoding",))
    response["X-Page-Cache"] = "hit"
    return response


def _incr(key: str) -> None:
    try:
        cache.incr(key)
    except ValueError:  # never set: pages were cached under the default version 1
        cache.set(key, 2, timeout=None)


def content_version_bump(*, benchmarks: Iterable[str] | None = None, outside: bool = True) -> None:
    """Retire the cached pages of these benchmarks (by slug) and, unless `outside` is false, the pages outside
    any benchmark; with no argument, every cached page. Called when a snapshot changes or turns stale: the
    pages outside any benchmark (the home page, the agent pages) read board snapshots only, so a change of
    ratings alone passes `outside=False` and leaves them cached."""
    scopes = [] if benchmarks is None else sorted(set(benchmarks)) + ([OUTSIDE_SCOPE] if outside else [])
    with _local_lock:
        if benchmarks is None:
            _local_versions.clear()
        else:
            for scope in scopes:
                _local_versions.pop(scope, None)
    try:
        if benchmarks is None:
            _incr(VERSION_KEY)
            return
        for scope in scopes:
            _incr(_scope_key(scope))
    except Exception:  # noqa: BLE001 - a cache that is down holds no pages to retire
        log.warning("could not bump the content version: cache unreachable")


# The vote pool's shared version (voting.pool keeps the pool itself; a retirement needs only its key, so the
# one "this changed" call, leaderboard.stale.snapshots_mark_stale, reaches it without knowing the pool).
VOTE_POOL_VERSION_KEY = "vote-pool:version"
_draws_generation = [0]  # bumped by every retirement in this process: the pool drops its local copy


def draws_generation() -> int:
    """How many times this process has retired the vote pool (its local copy is good for one generation)."""
    return _draws_generation[0]


def draws_retire() -> None:
    """Retire the vote pool: the runs a vote can draw, or what its screen shows of them, may have changed.
    This process's copy goes at once; every other process's within the pool's recheck interval."""
    with _local_lock:
        _draws_generation[0] += 1
    try:
        cache.delete(VOTE_POOL_VERSION_KEY)
    except Exception:  # noqa: BLE001 - a cache that is down holds no pool
        log.warning("vote pool: cache unreachable, could not retire the pool")


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
        scope = str(kwargs.get("bench") or OUTSIDE_SCOPE)
        raw = f"{bool(getattr(request, 'htmx', False))}:{request.get_full_path()}"
        key = "page:" + hashlib.sha256(raw.encode()).hexdigest()
        now = time.monotonic()
        with _local_lock:
            known = _local_versions.get(scope)
            version = known[0] if known and now - known[1] < LOCAL_VERSION_SECONDS else None
            local = _local_pages.get(key)
        if version is not None and local is not None and local["version"] == version:
            return _served(local, request)
        try:
            # One round trip: the site-wide and the scope's versions, and the page (it remembers its version).
            found = cache.get_many([VERSION_KEY, _scope_key(scope), key])
        except Exception:  # noqa: BLE001 - cache down: render
            return view(request, *args, **kwargs)
        version = (found.get(VERSION_KEY, 1), found.get(_scope_key(scope), 1))
        with _local_lock:
            if len(_local_versions) >= LOCAL_PAGES and scope not in _local_versions:
                _local_versions.clear()  # addresses of benchmarks that do not exist must not grow it forever
            _local_versions[scope] = (version, now)
        hit = found.get(key)
        if hit is not None and hit["version"] == version:
            _remember(key, hit)
            return _served(hit, request)
        if hit is not None and not _render_claim(key, version):
            return _served(hit, request)  # another process is rendering the new version; this one is a moment old
        response = view(request, *args, **kwargs)
        if _store(key, version, response):
            patch_vary_headers(response, ("Accept-Encoding",))  # its next requests may be answered gzipped
        return response

    return wrapped


def _render_claim(key: str, version: tuple) -> bool:
    """Whether this process should render the page's new version: true for the first to ask (or when the
    cache cannot say), false while another process holds the claim."""
    try:
        return bool(cache.add(f"render:{key}:{'-'.join(map(str, version))}", 1, timeout=RENDER_LOCK_SECONDS))
    except Exception:  # noqa: BLE001
        return True


def _store(key: str, version: tuple, response: HttpResponse) -> bool:
    """Keep the page (here and in the shared cache); whether a gzipped form of it is kept too."""
    if response.status_code != 200 or response.cookies or response.streaming:
        return False
    headers = {h: response[h] for h in ("Vary", "Content-Disposition") if response.has_header(h)}
    content = response.content
    # As GZipMiddleware: not worth it for a short page, nor when it does not come out shorter.
    gzipped = compress_string(content) if len(content) >= 200 else None
    entry = {
        "version": version,
        "content": content,
        "gzip": gzipped if gzipped is not None and len(gzipped) < len(content) else None,
        "content_type": response["Content-Type"],
        "headers": headers,
    }
    _remember(key, entry)
    try:
        cache.set(key, entry, timeout=PAGE_TIMEOUT)
    except Exception:  # noqa: BLE001
        pass
    return entry["gzip"] is not None
