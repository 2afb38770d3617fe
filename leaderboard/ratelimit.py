"""Fixed-window counters in the shared cache (Redis in production), for rate limits.

When the cache cannot be reached the counter answers None: the caller decides whether to let the request
through (reading the API) or to fall back on the database (casting a vote). A cache outage must never turn
into server errors: the database, not the cache, is the source of truth.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)


def clock() -> float:
    """The time fixed windows are counted in (seconds since the epoch). Every rate limit reads it here, so a
    test can pin it away from a window's edge (tests/conftest.py) instead of racing one."""
    return time.time()


def window_hit(key: str, window: int) -> int | None:
    """Add one to the counter `key` (living `window` seconds) and return its new value, or None when the
    cache is unreachable. `incr` is atomic in Redis, so concurrent workers cannot both take the last slot."""
    return window_hits([key], window)[0]


def window_hits(keys: list[str], window: int) -> list[int | None]:
    """`window_hit` for several counters; on Redis in one round trip (INCR, then EXPIRE NX so the window is
    set only by the first hit), elsewhere one counter at a time."""
    if not keys:
        return []
    client = _redis_client()
    if client is None:
        return [_window_hit_portable(key, window) for key in keys]
    try:
        pipe = client.pipeline(transaction=False)
        for key in keys:
            full = cache.make_and_validate_key(key)
            pipe.incr(full)
            pipe.expire(full, window + 5, nx=True)
        replies = pipe.execute()
        return [int(n) for n in replies[::2]]
    except Exception:  # noqa: BLE001 - any redis error: the caller's fallback applies
        log.warning("rate-limit counters unavailable: cache unreachable", exc_info=True)
        return [None] * len(keys)


def _redis_client():
    """The raw client of Django's Redis cache (for a pipeline), or None with another backend."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, RedisCache):
        return None
    try:
        return backend._cache.get_client(None, write=True)
    except Exception:  # noqa: BLE001
        return None


def _window_hit_portable(key: str, window: int) -> int | None:
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
