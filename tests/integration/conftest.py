"""Integration set-up: PostgreSQL, Redis and real Celery worker processes.

The unit tests run Celery eagerly (tests/conftest.py). These tests turn that off for themselves, commit their
data (`transactional_db`) so a worker process sees it, and start workers on the test database. Every worker
started here is killed at teardown, before pytest-django flushes the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.conf import settings
from django.db import connection
from live_services import Workers, broker_flush

from config.celery import app as celery_app


@pytest.fixture
def live_celery(transactional_db, tmp_path) -> Iterator[Workers]:
    """Real Celery: tasks go to the Redis broker (emptied first) and run in worker processes this fixture
    starts on demand and always stops."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.skip("needs DATABASE_URL=postgres://... and REDIS_URL (see the Makefile's test command)")
    broker_flush(settings.CELERY_BROKER_URL)
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    workers = Workers(tmp_path)
    try:
        yield workers
    finally:
        workers.stop_all()
        celery_app.conf.task_always_eager = eager
        broker_flush(settings.CELERY_BROKER_URL)


@pytest.fixture
def broker_at() -> Iterator[Callable[[str], None]]:
    """Point this process's Celery publisher at another broker URL (restored at teardown)."""
    # Celery reads CELERY_BROKER_URL from the environment before its own setting, but a write URL wins.
    original = celery_app.conf.get("broker_write_url")

    def reset_pools() -> None:
        # Drop the references only: the pools themselves are kombu's, shared per broker URL.
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    def point(url: str) -> None:
        reset_pools()
        celery_app.conf.broker_write_url = url
        assert celery_app.connection_for_write().as_uri(include_password=True) == url

    yield point
    reset_pools()
    celery_app.conf.broker_write_url = original
