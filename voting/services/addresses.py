"""Accounts' email addresses: one account per address however it is written, and proof that the address is the
owner's before the account's votes count.

- The address an account is stored and looked up under is `account_email` (NFKC, lower case, an international
  domain in its Unicode form: `xn--exmple-4nf.org` is `exаmple.org`, one mailbox).
- Sign-up refuses an address that looks like a taken one: same confusable skeleton (`voting.lookalikes`),
  kept unique in `AccountAddress.skeleton`.
- Sign-up mails a link (`address_confirmation_send`); opening it confirms the address (`address_confirm`). A
  vote cast before that is stored and never counts (`counting.vote_standing`); the new-account delay runs from
  sign-up as before. The link is a signed token (Django's signing, salted, with the address in it), valid for
  ACCOUNT_CONFIRM_DAYS; a new one can be sent from the vote screen.
"""

from __future__ import annotations

import unicodedata

import idna
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from ..lookalikes import skeleton
from ..models import AccountAddress

SALT = "voting.address-confirmation"


def account_email(address: str) -> str:
    """The form an address is stored and looked up in: NFKC, as Django stores a username (so fullwidth
    `ｅｘａｍｐｌｅ.org` is `example.org`), lower case, and the domain's punycode labels (`xn--...`) in their
    Unicode form. Sign-up checks for a duplicate in this form, and sign-in looks the account up in it: one
    account per address however it is typed."""
    address = unicodedata.normalize("NFKC", address).strip().lower()
    name, at, domain = address.rpartition("@")
    if not at:
        return address
    labels = []
    for label in domain.split("."):
        try:
            labels.append(idna.decode(label) if label.startswith("xn--") else label)
        except idna.IDNAError:
            labels.append(label)  # not valid punycode: the address validator says so
    return f"{name}@{'.'.join(labels)}"


def addresses_fill() -> None:
    """Give each account without an address row (made by the admin, `createsuperuser`, `load_demo`) its row,
    confirmed (whoever made it vouches for it), so that the look-alike check sees it. An account whose skeleton
    is taken already keeps none in the row (two such accounts from before the check both stay)."""
    missing = list(get_user_model().objects.filter(account_address__isnull=True).values_list("pk", "username"))
    if not missing:
        return
    taken = set(AccountAddress.objects.filter(skeleton__isnull=False).values_list("skeleton", flat=True))
    rows = []
    for pk, username in missing:
        key = skeleton(account_email(username))
        rows.append(AccountAddress(user_id=pk, skeleton=None if key in taken else key, confirmed_at=timezone.now()))
        taken.add(key)
    AccountAddress.objects.bulk_create(rows, ignore_conflicts=True)


def address_taken(email: str) -> bool:
    """Whether an account has `email` (in `account_email`'s form) or an address that looks like it."""
    addresses_fill()
    return AccountAddress.objects.filter(skeleton=skeleton(email)).exists()


def account_create(*, email: str, password: str):
    """A new account with its address unconfirmed; IntegrityError when the address (or a look-alike) was taken
    in the moment since `address_taken` looked."""
    with transaction.atomic():
        user = get_user_model().objects.create_user(username=email, email=email, password=password)
        AccountAddress.objects.create(user=user, skeleton=skeleton(email))
    return user


def address_confirmed(user) -> bool:
    return not AccountAddress.objects.filter(user_id=user.pk, confirmed_at__isnull=True).exists()


def address_confirmation_send(*, user, link_base: str) -> None:
    """Mail `user` the link that confirms their address (`link_base`: the site's address, scheme and host)."""
    token = signing.dumps({"user": user.pk, "address": user.email}, salt=SALT)
    link = link_base.rstrip("/") + reverse("address_confirm", args=[token])
    send_mail(
        subject=f"Confirm your address for {settings.SITE_NAME}",
        message=(
            f"Someone, probably you, signed up on {settings.SITE_NAME} with this address.\n\n"
            f"Open this link to confirm it, so that your votes count:\n{link}\n\n"
            f"The link works for {settings.ACCOUNT_CONFIRM_DAYS} days. If it was not you, ignore this mail."
        ),
        from_email=None,
        recipient_list=[user.email],
    )


def address_confirm(token: str):
    """Confirm the address the token was made for; the account, or None for a token that is forged, expired,
    or for an address the account no longer has."""
    try:
        claim = signing.loads(token, salt=SALT, max_age=settings.ACCOUNT_CONFIRM_DAYS * 86_400)
    except signing.BadSignature:
        return None
    user = get_user_model().objects.filter(pk=claim.get("user"), email=claim.get("address")).first()
    if user is None:
        return None
    AccountAddress.objects.filter(user=user, confirmed_at__isnull=True).update(confirmed_at=timezone.now())
    return user
