"""System checks of the configuration (run by `manage.py check`, `migrate` and `runserver`).

PREVIEW_ORIGIN, when set, is the origin app builds are served from (`voting.selectors.preview_origin`): the vote
page frames `PREVIEW_ORIGIN/vote/app/<alias>/`, allows it in its `frame-src`, and the app's responses allow being
framed by their own origin and CSRF_TRUSTED_ORIGINS (`frame-ancestors`, `voting.app_serving.APP_CSP`). So it
only works, and is only a second wall, when

- it is an origin and nothing more: `http(s)://host[:port]`, no path (the frames' addresses are appended to it),
  https when the site is (an https page cannot frame an http one);
- its host is in ALLOWED_HOSTS: it points at this same site, which otherwise answers every frame with a 400;
- it is another host than the site's own (a host in CSRF_TRUSTED_ORIGINS): the same host on another port or
  scheme is the same site for the browser, which then sends the site's cookies with the app's navigations;
- CSRF_TRUSTED_ORIGINS holds the site's own origin: `frame-ancestors 'self'` of a response from the preview
  origin means the preview origin, so without it the browser refuses to show the apps in the vote page.

A misconfiguration is an error in production (`PRODUCTION=true`) and CI, so the site does not start with it,
and a warning otherwise.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, urlsplit

from django.conf import settings
from django.core import checks
from django.http.request import validate_host


def _host(origin: str) -> str:
    try:
        return (urlsplit(origin).hostname or "").lower()
    except ValueError:
        return ""


def _origin_parts(origin: str) -> SplitResult | None:
    """`origin` split, when it is http(s)://host[:port] and nothing more; else None."""
    try:
        parts = urlsplit(origin)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number from 0 to 65535)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    return None if parts.path or parts.query or parts.fragment else parts


def preview_origin_problems(origin: str) -> list[tuple[int, str, str]]:
    """What is wrong with `origin` as PREVIEW_ORIGIN under the current settings: (number, problem, hint), the
    number telling the kinds of problem apart (the check's id)."""
    parts = _origin_parts(origin)
    if parts is None or not parts.hostname:
        what = f"PREVIEW_ORIGIN {origin!r} is not an origin: it must be http(s)://host[:port], with no path."
        return [(1, what, "For example PREVIEW_ORIGIN=https://apps.example.net")]
    host = parts.hostname.lower()
    site_hosts = {_host(o) for o in settings.CSRF_TRUSTED_ORIGINS}
    problems = []
    if settings.SECURE and parts.scheme != "https":
        what = f"PREVIEW_ORIGIN {origin!r} is http while the site is served over https: browsers refuse the frames."
        problems.append((2, what, "Serve the preview host over https too."))
    if not validate_host(host, settings.ALLOWED_HOSTS):
        what = (
            f"PREVIEW_ORIGIN's host {host!r} is not in ALLOWED_HOSTS: the site would answer every app frame with 400."
        )
        problems.append((3, what, f"Point {host} at this site and add it to ALLOWED_HOSTS."))
    if host in site_hosts:
        what = (
            f"PREVIEW_ORIGIN's host {host!r} is the site's own (it is in CSRF_TRUSTED_ORIGINS): the apps would not "
            "be on a separate origin."
        )
        problems.append((4, what, "Use a host name of its own for PREVIEW_ORIGIN, e.g. apps.example.net."))
    elif not any(h and validate_host(h, settings.ALLOWED_HOSTS) for h in site_hosts):
        what = (
            "PREVIEW_ORIGIN is set but CSRF_TRUSTED_ORIGINS does not hold the site's own origin: the app responses "
            "allow being framed only by their own origin and those, so browsers refuse to show the apps in the vote "
            "page."
        )
        problems.append((5, what, "Add the site's origin, e.g. CSRF_TRUSTED_ORIGINS=https://leaderboard.example.org"))
    return problems


def preview_origin_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """PREVIEW_ORIGIN's problems (`preview_origin_problems`): errors leaderboard.E001-E005 in production and CI,
    the same as warnings W001-W005 otherwise. Registered by `leaderboard.apps.LeaderboardConfig.ready`."""
    origin = settings.PREVIEW_ORIGIN
    if not origin:
        return []
    strict = settings.PRODUCTION or settings.CI
    level, prefix = (checks.Error, "E") if strict else (checks.Warning, "W")
    return [
        level(problem, hint=hint, id=f"leaderboard.{prefix}{number:03d}")
        for number, problem, hint in preview_origin_problems(origin)
    ]
