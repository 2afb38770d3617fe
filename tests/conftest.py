"""Shared test set-up.

Unit tests run Celery tasks eagerly (the task body runs inside the request, after commit); the integration
tests in tests/scoring/test_worker.py start a real worker process and turn eager mode off themselves.
"""

import pytest
from django.core.cache import cache

from leaderboard.celery import app as celery_app

celery_app.conf.task_always_eager = True
celery_app.conf.task_eager_propagates = True


@pytest.fixture(autouse=True)
def _fresh_cache():
    from leaderboard.caching import local_clear

    cache.clear()
    local_clear()
    yield
    cache.clear()
    local_clear()
