"""API keys of the upload API: made, checked and revoked here, and nowhere else.

A key is 256 random bits, written `lbk_<43 characters>`; only its SHA-256 digest is stored (a fast digest is
enough for a random key of that length: there is nothing to guess), with its first characters to recognise it
in the admin. The full key is shown once, when it is made."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.utils import timezone

from .models import ApiKey, Benchmark, Organization

KEY_PREFIX = "lbk_"
# The last-used time is written at most this often per key, so an upload burst is not a write per request.
LAST_USED_EVERY = timedelta(minutes=1)


def key_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_key_create(
    *, name: str, benchmark: Benchmark, created_by=None, organization: Organization | None = None
) -> tuple[ApiKey, str]:
    """A new key for `benchmark`: the stored row and the key itself (shown once, never stored). With
    `organization`, that organization's submission key (it may only submit, `POST .../submissions`)."""
    raw = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(
        name=name,
        benchmark=benchmark,
        organization=organization,
        prefix=raw[:12],
        digest=key_digest(raw),
        created_by=created_by,
    )
    return key, raw


def api_key_revoke(*, key: ApiKey) -> None:
    if key.revoked_at is None:
        ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
        key.refresh_from_db(fields=["revoked_at"])


def api_key_check(raw: str) -> ApiKey | None:
    """The live key `raw` is, or None (unknown or revoked); notes its use."""
    if not raw.startswith(KEY_PREFIX) or len(raw) > 100:
        return None
    key = (
        ApiKey.objects.select_related("benchmark", "organization")
        .filter(digest=key_digest(raw), revoked_at__isnull=True)
        .first()
    )
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_EVERY:
        ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key
