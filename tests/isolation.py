"""What keeps two test runs on one machine apart (see TEST_RUN_ID in config/settings.py)."""

from django.core.cache import cache


def cache_clear_own() -> None:
    """Empty this run's cache keys only. `cache.clear()` on Redis empties the whole database, which would wipe
    the cache (and the rate-limit windows) of another test run on the same machine."""
    from django.conf import settings

    from leaderboard.caching import local_clear
    from voting import pool

    local_clear()
    pool.local_clear()
    if "redis" not in settings.CACHES["default"]["BACKEND"].lower():
        cache.clear()
        return
    client = cache._cache.get_client(None, write=True)
    prefix = settings.CACHES["default"].get("KEY_PREFIX", "")
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
