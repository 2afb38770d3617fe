"""Accounts' email addresses: one account per mailbox however its address is written, and proof that the
mailbox is the owner's before the account's votes count.

- The rule (`voting.mailbox`): an address is stored, signed in, mailed and shown in its canonical form
  (`address_canonical`), and two accounts may not share a mailbox key (`mailbox_key`), kept unique in
  `AccountAddress.skeleton` by the database.
- Sign-up (`account_create`) stores the account and mails the link in one transaction: when the mail server
  refuses or cannot be reached, nothing is stored (`MailNotSent`).
- Opening the link confirms the address (`address_confirm`). A vote cast before that is stored and never counts
  (`counting.vote_standing`); the new-account delay runs from sign-up as before. The link carries a random token
  (stored only as its SHA-256), valid for ACCOUNT_CONFIRM_DAYS for the address it was sent to; it names neither
  the account nor the address. A new one can be sent from the vote screen (the earlier one then stops working).
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from leaderboard.mail import mail_send

from ..mailbox import mailbox_key, name_key
from ..models import AccountAddress
from ..standing import standings_retire


class MailNotSent(Exception):
    """The mail server refused the mail or could not be reached."""


def addresses_fill() -> None:
    """Give each account without an address row (made by `createsuperuser` or a script) its row, confirmed
    (whoever made it vouches for it), so that the look-alike check sees it. An account whose key is taken
    already keeps none in the row (two such accounts from before the check both stay)."""
    missing = list(get_user_model().objects.filter(account_address__isnull=True).values_list("pk", "username"))
    if not missing:
        return
    taken = set(AccountAddress.objects.filter(skeleton__isnull=False).values_list("skeleton", flat=True))
    rows = []
    for pk, username in missing:
        key = name_key(username)
        rows.append(AccountAddress(user_id=pk, skeleton=None if key in taken else key, confirmed_at=timezone.now()))
        taken.add(key)
    AccountAddress.objects.bulk_create(rows, ignore_conflicts=True)


def address_taken(address: str, *, other_than=None) -> bool:
    """Whether an account (other than `other_than`) has the mailbox of `address` (canonical), or one whose
    address looks like it."""
    addresses_fill()
    rows = AccountAddress.objects.filter(skeleton=mailbox_key(address))
    return rows.exclude(user=other_than).exists() if other_than is not None else rows.exists()


def account_create(*, email: str, password: str, link_base: str):
    """A new account for the canonical address `email`, unconfirmed, and the mail with its link, in one
    transaction. IntegrityError when the mailbox was taken in the moment since `address_taken` looked;
    MailNotSent when the mail could not be sent (nothing is stored then)."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(username=email, email=email, password=password)
        AccountAddress.objects.create(user=user, skeleton=mailbox_key(email))
        address_confirmation_send(user=user, link_base=link_base)
    return user


def account_address_save(*, user, confirmed: bool) -> None:
    """After staff made or changed an account (the admin): its row holds the key of its name as it is now;
    `confirmed` (staff vouch for the address) marks it confirmed, and a new address needs a new link.
    IntegrityError when another account holds the key."""
    key = name_key(user.username)
    with transaction.atomic():
        standings_retire([user.pk])  # the address may become confirmed
        _address_save(user, key, confirmed)


def _address_save(user, key: str, confirmed: bool) -> None:
    row = AccountAddress.objects.filter(user=user).first()
    if row is None:
        AccountAddress.objects.create(user=user, skeleton=key, confirmed_at=timezone.now() if confirmed else None)
        return
    changed = row.skeleton != key
    row.skeleton = key
    if changed:
        row.link_digest, row.link_address, row.link_sent_at = None, "", None
    if confirmed and row.confirmed_at is None:
        row.confirmed_at = timezone.now()
    row.save()


def address_confirmed(user) -> bool:
    return not AccountAddress.objects.filter(user_id=user.pk, confirmed_at__isnull=True).exists()


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def address_confirmation_send(*, user, link_base: str) -> None:
    """Mail `user` a new link that confirms their address (`link_base`: the site's address, scheme and host);
    an earlier link stops working. MailNotSent, with nothing changed, when the mail could not be sent."""
    token = secrets.token_urlsafe(32)
    link = link_base.rstrip("/") + reverse("address_confirm", args=[token])
    with transaction.atomic():
        AccountAddress.objects.filter(user=user).update(
            link_digest=_digest(token), link_address=user.email, link_sent_at=timezone.now()
        )
        try:
            mail_send(
                to=user.email,
                subject=f"Confirm your address for {settings.SITE_NAME}",
                body=(
                    f"Someone, probably you, signed up on {settings.SITE_NAME} with this address.\n\n"
                    f"Open this link to confirm it, so that your votes count:\n\n{link}\n\n"
                    f"The link works for {settings.ACCOUNT_CONFIRM_DAYS} days. If it was not you, ignore this mail.\n"
                ),
            )
        except (OSError, UnicodeError) as exc:  # smtplib's errors are OSErrors
            raise MailNotSent(str(exc)) from exc


def address_confirm(token: str):
    """Confirm the address the token was sent to; the account, or None for a token that is unknown, expired,
    or for an address the account no longer has."""
    since = timezone.now() - timedelta(days=settings.ACCOUNT_CONFIRM_DAYS)
    row = (
        AccountAddress.objects.select_related("user").filter(link_digest=_digest(token), link_sent_at__gt=since).first()
    )
    if row is None or row.link_address != row.user.email:
        return None
    with transaction.atomic():
        standings_retire([row.user_id])  # the account's votes from now on count
        AccountAddress.objects.filter(pk=row.pk, confirmed_at__isnull=True).update(confirmed_at=timezone.now())
    return row.user
