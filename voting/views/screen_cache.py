"""The vote screen's page, kept per voter in the shared cache: a reload shows the same open pair without reading
it again or drawing the page again.

A voter's vote screen shows the voter's open pair for the scope asked, where the voter stands (the notice) and
the site's frame for that account; reloading it changes none of these. So the page a voter was last shown for a
scope is kept (`screen_keep`) and a reload within VOTE_SCREEN_CACHE_SECONDS answers with it (`screen_cached`),
with the CSRF token masked afresh for the request. It is only ever served to the account it was drawn for,
after the sign-in check, and only while each of these still holds:

- **the voter's screens generation**: a random token per voter in the cache, read before the page's own reads
  and kept with the page. Every write of the site that changes what a voter's screen shows retires it once its
  transaction commits (`voting.screens.voter_screens_retire`): a vote cast, a pair drawn, a standing retired (a
  flag raised or cleared, an address confirmed or changed, an editor's change to a vote, votes stored in bulk:
  `standing.standings_retire`), a membership made or ended, a matchup saved or deleted in the admin. A page
  drawn from reads made before such a write carries the old token and is never served again, whatever the
  order in which the write and the page reach the cache;
- **the vote pool's version** (`pool.vote_pool_version`): what the page shows of the two runs and of the task,
  and the list of scopes, come from the pool; any write to runs, tasks or benchmarks retires it;
- **the account as read for this request**: its id, username, address, staff flag and sign-up time (the
  frame's name and links, the notice's address and new-account date);
- **the page's own limits**: its pair's expiry, the end of the UTC day (the daily cap's count), the time a new
  account's votes start counting, and at most VOTE_SCREEN_CACHE_SECONDS, which also bounds what a write from
  outside the site's services (a queryset update in a shell) can leave on a voter's screen.

A page is kept under a key that carries a digest of the vote screen's templates: during a deploy that changes them,
a server of either code answers only with pages it drew itself.

Only the whole page of an open pair read again is kept: not an htmx answer, not a page with a message to show (the
message is shown once), not an empty screen (each reload of one may draw a pair), not the page of a pair drawn by
the same request (its draw retired the generation it would be kept under). With the cache unreachable nothing is
kept or served: every reload reads the database, as without this module. A retirement that cannot reach the
cache is logged as an error; the page it should have retired lives at most VOTE_SCREEN_CACHE_SECONDS.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from ..models import Matchup
from ..pool import vote_pool_version
from ..screens import generation_key, generation_timeout
from ..selectors import account_counts_from
from .csrf import masked_token, masked_token_given

log = logging.getLogger(__name__)

# The page's CSRF token is kept as this mark and masked afresh for each answer: a page's text cannot hold it (its
# "<" would have been escaped).
_TOKEN_MARK = "<csrf-token-kept-out>"
# The shape of a kept entry: bump it when `_Kept` changes, so a process of new code never serves an old entry.
_FORMAT = 1


def _templates_digest() -> str:
    """The vote screen's templates as this process has them: a deploy that changes them keeps its pages under other
    keys, so a server of the new code never answers with a page drawn by the old one (nor the reverse)."""
    digest = hashlib.sha256()
    templates = sorted((Path(__file__).resolve().parent.parent / "jinja2" / "voting").glob("*.html"))
    if not templates:
        raise RuntimeError("the vote screen's templates (voting/jinja2/voting/*.html) are not where they were")
    for path in templates:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


_VERSION = f"{_FORMAT}-{_templates_digest()}"


def _now() -> datetime:
    return timezone.now()


def _page_key(voter_id: int, scope: str) -> str:
    return f"vote-screen:{_VERSION}:{voter_id}:{hashlib.sha256(scope.encode()).hexdigest()[:24]}"


def _account(user) -> tuple:
    """What the kept page shows of the account (and depends on): a change to any of these is a new page."""
    return (user.pk, user.get_username(), user.email, user.is_staff, user.date_joined)


@dataclass(frozen=True)
class _Kept:
    generation: str
    pool_version: str
    account: tuple
    until: float  # a POSIX time: the page is not served from then on
    body: str  # the page with its CSRF token replaced by _TOKEN_MARK


@dataclass
class Ticket:
    """What a reload that found no kept page read before its own reads: the page it draws is kept under it."""

    voter_id: int
    scope: str
    generation: str


def _enabled(request: HttpRequest) -> bool:
    if settings.VOTE_SCREEN_CACHE_SECONDS <= 0 or request.htmx:  # type: ignore[attr-defined]
        return False
    # A page with a message shows it once: neither kept nor answered from what was kept.
    return not len(get_messages(request))


def screen_cached(request: HttpRequest, scope: str) -> tuple[HttpResponse | None, Ticket | None]:
    """The kept vote screen of this voter and scope when it still holds (the response), else the ticket to keep
    the page this request draws under (None: keep nothing, e.g. the cache is unreachable)."""
    if not _enabled(request):
        return None, None
    voter_id = request.user.pk
    gen_key, page_key = generation_key(voter_id), _page_key(voter_id, scope)
    try:
        found = cache.get_many([gen_key, page_key])
        generation = found.get(gen_key)
        kept = found.get(page_key)
        if (
            generation is not None
            and isinstance(kept, _Kept)
            and kept.generation == generation
            and kept.pool_version == vote_pool_version()
            and kept.account == _account(request.user)
            and _now().timestamp() < kept.until
        ):
            return HttpResponse(kept.body.replace(_TOKEN_MARK, masked_token(request))), None
        if generation is None:
            generation = secrets.token_hex(8)
            if not cache.add(gen_key, generation, timeout=generation_timeout()):
                generation = cache.get(gen_key)
                if generation is None:
                    return None, None
    except Exception:  # noqa: BLE001 - the cache unreachable: the database answers, nothing is kept
        log.warning("vote screen: cache unreachable, reading the pair", exc_info=True)
        return None, None
    return None, Ticket(voter_id, scope, generation)


def screen_keep(request: HttpRequest, ticket: Ticket | None, response: HttpResponse, *, matchup: Matchup) -> None:
    """Keep the page just drawn for the voter's open pair `matchup` under `ticket` (see the module's list of what
    it must still hold when served)."""
    pool_version = vote_pool_version()
    if ticket is None or pool_version is None or response.status_code != 200:
        return
    now = _now()
    limits = [now + timedelta(seconds=settings.VOTE_SCREEN_CACHE_SECONDS), matchup.expires_at]
    limits.append(datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), tzinfo=UTC))
    counts_from = account_counts_from(request.user)
    if counts_from > now:
        limits.append(counts_from)
    until = min(limits)
    seconds = int((until - now).total_seconds())
    token = masked_token_given(request)
    if seconds < 1 or not token:
        return
    body = response.content.decode(response.charset)
    kept = _Kept(
        ticket.generation, pool_version, _account(request.user), until.timestamp(), body.replace(token, _TOKEN_MARK)
    )
    try:
        cache.set(_page_key(ticket.voter_id, ticket.scope), kept, timeout=seconds)
    except Exception:  # noqa: BLE001
        log.warning("vote screen: cache unreachable, the page is not kept", exc_info=True)
