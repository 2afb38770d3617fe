"""The rate limits of voting and of the accounts: sliding windows per identity (an account, an address).

At most VOTE_RATE_LIMIT votes in any VOTE_RATE_WINDOW_SECONDS get through at all (per account and per
address), new pairs are limited to
VOTE_DRAW_RATE_LIMIT per window, and sign-in and sign-up attempts to ACCOUNT_RATE_LIMIT per address.
"""

from __future__ import annotations

import hashlib
import math
from datetime import UTC, datetime

from django.conf import settings

from leaderboard import ratelimit
from leaderboard.ratelimit import limits_hit

from ..models import Vote


def rate_limit_hit(
    *, bucket: str, idents: list[str], limit: int, window: int, at: float | None = None, voter=None
) -> int:
    """Count one request against each identity (an account, an address) in a sliding window on the cache: at
    most `limit` pass in any `window` seconds. Returns 0 when within `limit` for all of them, else the seconds
    until one would pass.

    Counters live in the Django cache (Redis in production, shared by all workers: `leaderboard.ratelimit`).
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
    keys = {
        f"vote-rate:{bucket}:{hashlib.sha256(f'{settings.SECRET_KEY}:{ident}'.encode()).hexdigest()[:24]}": bucket
        for bucket in limits
        for ident in idents
    }
    waits = limits_hit({key: limits[bucket] for key, bucket in keys.items()}, window=window, now=at)
    wait = dict.fromkeys(limits, 0.0)
    cache_down = False
    for key, bucket in keys.items():
        if waits[key] is None:
            cache_down = True
        else:
            wait[bucket] = max(wait[bucket], waits[key] or 0.0)
    if cache_down and voter is not None and "vote" in limits:
        since = datetime.fromtimestamp(at - window, tz=UTC)
        if Vote.objects.filter(voter=voter, cast_at__gte=since).count() >= limits["vote"]:
            wait["vote"] = max(wait["vote"], float(window))
    return {bucket: math.ceil(seconds) for bucket, seconds in wait.items()}
