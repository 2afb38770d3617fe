"""A voter's vote screens, kept for a reload by the screen (`voting.views.screen_cache`), retired here by the writes
that change what they show.

Each voter has a *screens generation* in the shared cache: a random token that the screen reads before its own
reads and keeps with the page it keeps. `voter_screens_retire` removes it once the write's transaction commits, so
every page kept before (or drawn from reads made before) the write is never served again. The voting services
call it (a vote, a draw, a standing retired), the matchup admin does, and a membership's model signal does
(`membership_changed`, connected in `voting.apps`: the catalogue, which writes memberships, knows nothing of the
vote screen; its deletions by cascade send the signal too).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)


def generation_key(voter_id: int) -> str:
    return f"vote-screen:gen:{voter_id}"


def generation_timeout() -> int:
    # Longer than any page it can validate: a generation that expired only makes its pages unserved.
    return max(60, 2 * settings.VOTE_SCREEN_CACHE_SECONDS)


def voter_screens_retire(voter_ids: Iterable[int | None]) -> None:
    """Retire every kept vote screen of these voters (None is skipped) once the current transaction commits (at
    once outside one): call it from every write that changes what a voter's screen shows."""
    if settings.VOTE_SCREEN_CACHE_SECONDS <= 0:  # no screen is kept (a server with another setting keeps its
        return  # screens at most its own VOTE_SCREEN_CACHE_SECONDS)
    keys = [generation_key(i) for i in sorted({i for i in voter_ids if i is not None})]
    if not keys:
        return

    def retire() -> None:
        try:
            cache.delete_many(keys)
        except Exception:  # noqa: BLE001
            log.error("vote screen: cache unreachable, could not retire the kept screens of %d voters", len(keys))

    transaction.on_commit(retire)


def membership_changed(sender, instance, **kwargs) -> None:
    """A membership made, changed or ended (a `post_save` / `post_delete` receiver): its voter's screens go."""
    voter_screens_retire([instance.user_id])
