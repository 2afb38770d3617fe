"""Django's cached_db sessions, answering from the database while the cache is unreachable.

The session engine is Django's `cached_db` as it is: sessions are kept in the database (django_session) and
read through the cache. Django's store already treats a failed cache read as a miss, but not a failed copy
into the cache after reading the database, nor a failed check of whether a new key is taken; with Redis down
those would answer every signed-in request with an error, where the site keeps serving from PostgreSQL
(tests/integration/test_faults.py). So the store is given its cache through `CacheOrMiss`: a read or a copy
that cannot reach the cache is a miss, logged, and the database answers; a removal that cannot reach it (a
sign-in renewing the session key, a sign-out) is logged as an error and the database row goes as usual.

What that leaves: a session signed out while the cache was unreachable is gone from the database, but if the
cache comes back holding its old copy (a Redis that persisted its data), that copy would be read until it
expires. The error logged names it; clearing the cache's session keys after such an outage removes it.
"""

from __future__ import annotations

import logging

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore

log = logging.getLogger(__name__)


class CacheOrMiss:
    """A cache whose reads and writes answer as a miss when the cache cannot be reached."""

    def __init__(self, cache) -> None:
        self._cache = cache

    def get(self, key, default=None):
        try:
            return self._cache.get(key, default)
        except Exception:  # noqa: BLE001 - any cache failure: the database answers
            log.warning("sessions: cache unreachable, reading the database", exc_info=True)
            return default

    def set(self, key, value, timeout=None):
        try:
            self._cache.set(key, value, timeout)
        except Exception:  # noqa: BLE001
            log.warning("sessions: cache unreachable, the session is kept in the database only", exc_info=True)

    def __contains__(self, key) -> bool:
        try:
            return key in self._cache
        except Exception:  # noqa: BLE001 - the database says whether the key is taken
            return False

    def delete(self, key):
        try:
            self._cache.delete(key)
        except Exception:  # noqa: BLE001
            log.error("sessions: cache unreachable, could not remove a session's cached copy")


class SessionStore(CachedDBStore):
    def __init__(self, session_key=None):
        super().__init__(session_key)
        self._cache = CacheOrMiss(self._cache)
