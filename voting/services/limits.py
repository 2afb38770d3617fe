"""The rate limits of voting and of the accounts: fixed-window counters per identity (an account, an address).

At most VOTE_RATE_LIMIT votes per VOTE_RATE_WINDOW_SECONDS get through at all (per account and per address; a
fixed window, so a burst across a window edge can reach twice that), new pairs are limited to
VOTE_DRAW_RATE_LIMIT per window, and sign-in and sign-up attempts to ACCOUNT_RATE_LIMIT per address.
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

from django.conf import settings

from leaderboard import ratelimit
from leaderboard.ratelimit import window_hits

from ..models import Vote


def rate_limit_hit(
    *, bucket: str, idents: list[str], limit: int, window: int, at: float | None = None, voter=None
) -> int:
    """Count one request against each identity (an account, an address) in a fixed window on the cache.
    Returns 0 when within `limit` for all of them, else the seconds until the window ends.

    A fixed window lets a burst straddling two windows reach twice the limit; that bound is what the
    documentation states. Counters live in the Django cache (Redis in production, shared by all workers).
    When the cache is down, votes are still limited per account from the database (the votes the account
    cast in the last window); the per-address limit needs the cache and is skipped until it is back."""
    return rate_limits_hit(limits={bucket: limit}, idents=idents, window=window, at=at, voter=voter)[bucket]


def rate_limits_hit(
    *, limits: dict[str, int], idents: list[str], window: int, at: float | None = None, voter=None
) -> dict[str, int]:
    """`rate_limit_hit` for several buckets at once ({bucket: limit}), in one round trip to the cache (a vote
    that also draws the next pair counts against "vote" and "draw" together). Returns {bucket: seconds to
    wait, 0 when within its limit}."""
    at = ratelimit.clock() if at is None else at
    slot = int(at // window)
    keys = [
        (
            bucket,
            f"vote-rate:{bucket}:{hashlib.sha256(f'{settings.SECRET_KEY}:{ident}'.encode()).hexdigest()[:24]}:{slot}",
        )
        for bucket in limits
        for ident in idents
    ]
    over = dict.fromkeys(limits, False)
    cache_down = False
    for (bucket, _), count in zip(keys, window_hits([key for _, key in keys], window), strict=True):
        if count is None:
            cache_down = True
            continue
        over[bucket] |= count > limits[bucket]
    if cache_down and voter is not None and "vote" in limits:
        since = datetime.fromtimestamp(at - window, tz=UTC)
        over["vote"] |= Vote.objects.filter(voter=voter, cast_at__gte=since).count() >= limits["vote"]
    wait = max(1, math.ceil((slot + 1) * window - at))
    return {bucket: wait if over[bucket] else 0 for bucket in limits}
