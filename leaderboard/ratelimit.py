"""Fixed-window counters in the shared cache (Redis in production), for rate limits.

When the cache cannot be reached the counter answers None: the caller decides whether to let the request
through (reading the API) or to fall back on the database (casting a vote). A cache outage must never turn
into server errors: the database, not the cache, is the source of truth.
"""

from __future__ import annotations

import logging

from django.core.cache import cache

log = logging.getLogger(__name__)


def window_hit(key: str, window: int) -> int | None:
    """Add one to the counter `key` (living `window` seconds) and return its new value, or None when the
    cache is unreachable. `incr` is atomic in Redis, so concurrent workers cannot both take the last slot."""
    try:
        cache.add(key, 0, timeout=window + 5)
        try:
            return cache.incr(key)
        except ValueError:  # expired or evicted between add and incr
            cache.set(key, 1, timeout=window + 5)
            return 1
    except Exception:  # noqa: BLE001 - any cache backend error (redis ConnectionError, TimeoutError, ...)
        log.warning("rate-limit counter %s unavailable: cache unreachable", key.split(":")[0], exc_info=True)
        return None
