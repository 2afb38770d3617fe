"""Sliding-window rate limits in the shared cache (Redis in production): at most `limit` requests pass in any
stretch of `window` seconds, wherever it starts. Fixed windows (a counter per window) let a burst at the end of
one window and another at the start of the next through together, about twice the limit.

Each limited identity keeps a log of the times of its requests that passed (a Redis sorted set scored by
time). A request drops the entries older than the window, adds itself and counts: over the limit it is refused
and takes itself out again (a refused request uses no slot), in one more round trip only then. On Redis the
steps of every key a request counts against run as one script (`_COUNT`: one command to send and one reply to
read, where a pipeline of four commands a key cost a vote about 0.15 ms of CPU more).

When the cache cannot be reached the answer is None: the caller decides whether to let the request through
(reading the API) or to fall back on the database (casting a vote). A cache outage must never turn into
server errors: the database, not the cache, is the source of truth.
"""

from __future__ import annotations

import logging
import secrets
import time

from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.redis import RedisCache

log = logging.getLogger(__name__)


def clock() -> float:
    """The time requests are logged at (seconds since the epoch). Every rate limit reads it here, so a test can
    set it (tests/conftest.py starts each test at the start of a day) instead of racing the real one."""
    return time.time()


def limit_hit(key: str, *, limit: int, window: int, now: float | None = None) -> float | None:
    """Count one request against `key`'s sliding window: 0 when it passes (at most `limit` in the last `window`
    seconds, itself included), else the seconds until one would; None when the cache is unreachable."""
    return limits_hit({key: limit}, window=window, now=now)[key]


def limits_hit(limits: dict[str, int], *, window: int, now: float | None = None) -> dict[str, float | None]:
    """`limit_hit` for several keys ({key: limit}), on Redis in one round trip (a second only for a refusal)."""
    now = clock() if now is None else now
    if not limits:
        return {}
    client = _redis_client()
    if client is None:
        return {key: _limit_hit_portable(key, limit, window, now) for key, limit in limits.items()}
    member = f"{now!r}:{secrets.token_hex(6)}"
    full = {key: cache.make_and_validate_key(key) for key in limits}
    try:
        replies = _count_script(client)(
            keys=[full[key] for key in limits], args=[now - window, now, member, window + 5], client=client
        )
        counts = dict(zip(limits, replies, strict=True))
        over = [key for key in limits if counts[key] > limits[key]]
        if not over:
            return dict.fromkeys(limits, 0.0)
        pipe = client.pipeline(transaction=False)
        for key in over:
            pipe.zrem(full[key], member)
            # The entry whose leaving brings the count under the limit again.
            index = counts[key] - 1 - limits[key]
            pipe.zrange(full[key], index, index, withscores=True)
        replies = pipe.execute()[1::2]
    except Exception:  # noqa: BLE001 - any redis error: the caller's fallback applies
        log.warning("rate-limit logs unavailable: cache unreachable", exc_info=True)
        return dict.fromkeys(limits)
    waits: dict[str, float | None] = dict.fromkeys(limits, 0.0)
    for key, leaving in zip(over, replies, strict=True):
        waits[key] = max(1.0, leaving[0][1] + window - now) if leaving else 1.0
    return waits


# Each key's log: drop what left the window, log this request, count it, keep the log a little longer than the
# window. KEYS: the logs; ARGV: window start, now, this request's member, seconds to keep. Returns each log's
# count, in the order of KEYS.
_COUNT = """
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
  redis.call('ZADD', key, ARGV[2], ARGV[3])
  counts[i] = redis.call('ZCARD', key)
  redis.call('EXPIRE', key, ARGV[4])
end
return counts
"""
_script: list = []


def _count_script(client):
    """`_COUNT` as a redis-py Script (EVALSHA; redis-py loads it again when the server has lost it), made once."""
    if not _script:
        _script.append(client.register_script(_COUNT))
    return _script[0]


def _redis_client():
    """The raw client of Django's Redis cache (for the script and a pipeline), or None with another backend."""
    backend = caches[DEFAULT_CACHE_ALIAS]
    if not isinstance(backend, RedisCache):
        return None
    try:
        return backend._cache.get_client(None, write=True)
    except Exception:  # noqa: BLE001
        return None


def _limit_hit_portable(key: str, limit: int, window: int, now: float) -> float | None:
    """The same log as a list in any other cache (the file cache of a site with no configuration, which every
    process on the machine shares): a read then a write, so two processes counting at the same instant may both
    pass one request over the limit; Redis's log is exact."""
    try:
        times = [t for t in cache.get(key, []) if t > now - window]
        if len(times) >= limit:
            cache.set(key, times, timeout=window + 5)
            return max(1.0, sorted(times)[len(times) - limit] + window - now)
        cache.set(key, [*times, now], timeout=window + 5)
        return 0.0
    except Exception:  # noqa: BLE001 - any cache backend error (redis ConnectionError, TimeoutError, ...)
        log.warning("rate-limit log %s unavailable: cache unreachable", key.split(":")[0], exc_info=True)
        return None
