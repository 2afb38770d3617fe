"""Shared test set-up.

Unit tests run Celery tasks eagerly (the task body runs inside the request, after commit); the integration
tests in tests/scoring/test_worker.py start a real worker process and turn eager mode off themselves.
"""

import pytest

from leaderboard.celery import app as celery_app
from tests.isolation import cache_clear_own

celery_app.conf.task_always_eager = True
celery_app.conf.task_eager_propagates = True


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache_clear_own()
    yield
    cache_clear_own()


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
