"""PREVIEW_ORIGIN's system check (voting/checks.py): a preview origin that cannot work, or would be no
separate origin, stops the site from starting in production and CI, and is a warning elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core import checks

from voting.checks import preview_origin_check

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://leaderboard.example.org"
GOOD = {
    "PREVIEW_ORIGIN": "https://apps.example.net",
    "ALLOWED_HOSTS": ["leaderboard.example.org", "apps.example.net"],
    "CSRF_TRUSTED_ORIGINS": [SITE],
    "SECURE": True,
    "PRODUCTION": True,
    "CI": False,
}


def _ids(settings, **changes) -> list[str]:
    for name, value in {**GOOD, **changes}.items():
        setattr(settings, name, value)
    return [message.id for message in preview_origin_check()]


def test_a_preview_origin_on_its_own_host_pointing_at_the_site_is_accepted(settings):
    assert _ids(settings) == []
    assert _ids(settings, ALLOWED_HOSTS=[".example.org", ".example.net"]) == []
    assert _ids(settings, PREVIEW_ORIGIN="https://apps.example.net:8443", ALLOWED_HOSTS=["*"]) == []
    assert _ids(settings, PREVIEW_ORIGIN="http://apps.localhost:8000", SECURE=False, ALLOWED_HOSTS=["*"]) == []


def test_no_preview_origin_needs_nothing(settings):
    assert _ids(settings, PREVIEW_ORIGIN="", ALLOWED_HOSTS=[], CSRF_TRUSTED_ORIGINS=[]) == []


@pytest.mark.parametrize(
    "origin",
    [
        "apps.example.net",  # no scheme
        "ftp://apps.example.net",
        "https://apps.example.net/vote",  # a path: the frames' addresses are appended to it
        "https://apps.example.net?x=1",
        "https://apps.example.net#top",
        "https://user@apps.example.net",
        "https://",
        "https://apps.example.net:99999",
        "javascript:alert(1)",
    ],
)
def test_what_is_not_an_http_origin_is_refused(settings, origin):
    assert _ids(settings, PREVIEW_ORIGIN=origin) == ["leaderboard.E001"]


def test_an_http_preview_origin_for_an_https_site_is_refused(settings):
    assert _ids(settings, PREVIEW_ORIGIN="http://apps.example.net") == ["leaderboard.E002"]


def test_a_preview_host_the_site_does_not_answer_is_refused(settings):
    assert _ids(settings, ALLOWED_HOSTS=["leaderboard.example.org"]) == ["leaderboard.E003"]


@pytest.mark.parametrize(
    "origin",
    [SITE, "https://leaderboard.example.org:8443", "http://leaderboard.example.org", "https://LEADERBOARD.example.org"],
)
def test_the_sites_own_host_is_no_separate_origin(settings, origin):
    # The same host on another port or scheme is the same site to a browser, which sends it the site's cookies.
    assert _ids(settings, PREVIEW_ORIGIN=origin, SECURE=False) == ["leaderboard.E004"]


@pytest.mark.parametrize("trusted", [[], ["https://apps.example.net"], ["https://elsewhere.example.com"]])
def test_without_the_sites_origin_in_csrf_trusted_origins_the_frames_would_be_refused(settings, trusted):
    # A response from the preview origin allows `frame-ancestors 'self'` (the preview origin itself) and
    # CSRF_TRUSTED_ORIGINS: the vote page's origin must be among those, and be one this site answers.
    ids = _ids(settings, CSRF_TRUSTED_ORIGINS=trusted)
    assert ids == (["leaderboard.E004"] if trusted == ["https://apps.example.net"] else ["leaderboard.E005"])


def test_every_problem_is_reported_at_once(settings):
    ids = _ids(settings, PREVIEW_ORIGIN="http://apps.example.net", ALLOWED_HOSTS=[], CSRF_TRUSTED_ORIGINS=[])
    assert ids == ["leaderboard.E002", "leaderboard.E003", "leaderboard.E005"]


def test_outside_production_and_ci_the_same_problems_are_warnings(settings):
    site_only = ["leaderboard.example.org"]
    assert _ids(settings, PRODUCTION=False, CI=False, ALLOWED_HOSTS=site_only) == ["leaderboard.W003"]
    assert _ids(settings, PRODUCTION=False, CI=True, ALLOWED_HOSTS=site_only) == ["leaderboard.E003"]
    for name, value in {**GOOD, "ALLOWED_HOSTS": site_only}.items():
        setattr(settings, name, value)
    (message,) = preview_origin_check()
    assert message.level == checks.ERROR and "apps.example.net" in message.msg and "ALLOWED_HOSTS" in message.hint


def _manage(*args, **env_extra):
    clear = ("DEBUG", "CI", "PRODUCTION", "SECRET_KEY", "PREVIEW_ORIGIN", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")
    env = {k: v for k, v in os.environ.items() if k not in clear and k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(env_extra)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


PROD = {
    "PRODUCTION": "true",
    "SECRET_KEY": "k" * 20 + "-a-long-random-production-secret-0123456789-abcdefghijkl",
    "ALLOWED_HOSTS": "leaderboard.example.org,apps.example.net",
    "EMAIL_HOST": "mail.example.org",
}


def test_production_does_not_start_with_a_broken_preview_origin_and_starts_with_a_good_one():
    broken = _manage("check", PREVIEW_ORIGIN="https://apps.example.net", **PROD)
    assert broken.returncode != 0
    assert "leaderboard.E005" in broken.stderr and "CSRF_TRUSTED_ORIGINS" in broken.stderr
    good = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        PREVIEW_ORIGIN="https://apps.example.net/",
        CSRF_TRUSTED_ORIGINS=SITE,
        **PROD,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "no issues" in good.stdout


def test_a_development_server_starts_with_a_warning():
    result = _manage("check", PREVIEW_ORIGIN="http://apps.localhost:8000", DEBUG="true")
    assert result.returncode == 0, result.stderr
    assert "leaderboard.W003" in result.stderr and "leaderboard.W005" in result.stderr
