"""Shared test set-up.

Unit tests run Celery tasks eagerly (the task body runs inside the request, after commit); the integration
tests in tests/scoring/test_worker.py start a real worker process and turn eager mode off themselves.
"""

import os

import pytest

from config.celery import app as celery_app
from config.reachable import unreachable_settings
from tests.isolation import cache_clear_own

celery_app.conf.task_always_eager = True
celery_app.conf.task_eager_propagates = True


def pytest_configure(config):
    _services_answer()
    _fast_password_hasher()


def _services_answer():
    """A DATABASE_URL, REDIS_URL or CELERY_BROKER_URL whose server does not answer stops the run before any test,
    with a line naming it, rather than as a driver's connection traceback in the first test that touches it."""
    problems = unreachable_settings()
    if problems:
        raise pytest.UsageError("\n".join(problems))


def _fast_password_hasher():
    """Passwords are hashed with a fast hasher in tests: the production hasher (PBKDF2, over a million rounds)
    takes most of a second per account, and the suite makes hundreds of accounts. What is tested is who may
    sign in and what they see, not the hash's strength (the site's own PASSWORD_HASHERS are Django's)."""
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _rate_limit_clock(monkeypatch):
    """Rate-limit windows are counted on a clock that starts each test at the start of today (UTC), so at the
    start of every window (a minute, ten minutes, an hour, a day), and then runs at the real pace: no test
    races a window's edge (it would need a minute to reach one). It stays within the day, so the database
    fallback (votes cast in the last window) still sees the test's votes."""
    import time

    from leaderboard import ratelimit

    started, now = time.monotonic(), time.time()
    start = now - now % 86_400
    monkeypatch.setattr(ratelimit, "clock", lambda: start + (time.monotonic() - started))


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Every test writes uploads and app builds under a folder of its own, never into the checkout's var/media/:
    each import of the demo bundle with its folder unpacks the 17 messenger apps, and one run of the browser
    tests left over 200 build folders in var/media/app-builds/. A test may still set MEDIA_ROOT itself."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache_clear_own()
    yield
    cache_clear_own()


@pytest.fixture(autouse=True)
def _vote_cells_in_step(request):
    """After every test that used the database, the vote cells equal a fresh count of the votes (what
    `manage.py vote_cells --check` checks) and each voter's stored standing a fresh count of the voter's day, flag
    and address (`manage.py voter_standings --check`): no write path may leave them behind."""
    uses_db = request.node.get_closest_marker("django_db") or {"db", "transactional_db", "live_server"} & set(
        request.fixturenames
    )
    if not uses_db:
        yield
        return
    request.getfixturevalue("_django_db_helper")  # set up before this fixture, so torn down after its check
    yield
    from voting.cells import cells_differences

    differences = cells_differences()
    assert not differences, "vote cells out of step with the votes: " + "; ".join(map(str, differences))
    from voting.standing import standings_differences

    behind = standings_differences()
    assert not behind, "voter standings out of step: " + "; ".join(map(str, behind))


def pytest_collection_modifyitems(config, items):
    """Tests marked `postgres` skip with their reason on SQLite (a local run with no configuration). Under
    CI=true the settings refuse SQLite altogether, so there they always run."""
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    for item in items:
        marker = item.get_closest_marker("postgres")
        if marker is not None:
            reason = marker.kwargs.get("reason", "needs PostgreSQL")
            item.add_marker(pytest.mark.skip(reason=f"SQLite run: {reason}"))


def pytest_sessionfinish(session, exitstatus):
    """Drop this run's test databases if pytest-django could not (a live server's or a worker's connection
    still open at its teardown): with a database per run (TEST_RUN_ID), nothing else would ever drop them."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if not getattr(settings, "TEST_RUN_ID", "") or not db["ENGINE"].endswith("postgresql"):
        return
    import psycopg

    base = db.get("TEST", {}).get("NAME")
    if not base:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    names = [f"{base}_{worker}"] if worker else [base]
    params = {
        "host": db.get("HOST") or "127.0.0.1",
        "port": db.get("PORT") or 5432,
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
        "dbname": "postgres",
        "autocommit": True,
    }
    try:
        with psycopg.connect(**{k: v for k, v in params.items() if v is not None}) as conn:
            for name in names:
                conn.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = %s AND pid <> pg_backend_pid()",
                    [name],
                )
                conn.execute(psycopg.sql.SQL("DROP DATABASE IF EXISTS {}").format(psycopg.sql.Identifier(name)))
    except psycopg.Error:
        pass  # best effort: a database left here is dropped by hand, never reused by another run
