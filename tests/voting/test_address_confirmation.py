"""Sign-up asks for proof of the address: a mailed link. Until it is opened, the account's votes are stored and
never count (the new-account delay still runs from sign-up), so one person holds as many counting voting
accounts as mailboxes, not as many as they can type addresses. Tested from outside: the signed-out visitor
signs up, reads the mail, votes."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.builders.voting import cast, make_user
from voting.models import AccountAddress, Vote

pytestmark = pytest.mark.django_db

PASSWORD = "long-enough-pass-2026"
AGENTS = ("zephyrbot", "marlinide")


def sign_up(email: str = "voter@example.org") -> Client:
    client = Client()
    assert client.post("/signup/", {"email": email, "password1": PASSWORD, "password2": PASSWORD}).status_code == 302
    # A day has passed since sign-up: the new-account delay is over, only the address is left to prove.
    get_user_model().objects.filter(username=email).update(
        date_joined=get_user_model().objects.get().date_joined - timedelta(days=2)
    )
    return client


def vote(client: Client) -> Vote:
    client.get(reverse("vote"))
    matchup = get_user_model().objects.get().matchups.filter(used_at__isnull=True).latest("id")
    assert client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "a"}).status_code in (200, 302)
    return Vote.objects.latest("id")


def mailed_link() -> str:
    (message,) = mail.outbox
    assert message.to == ["voter@example.org"]
    (link,) = re.findall(r"https?://\S+", message.body)
    return link


def test_it_mails_a_link_and_counts_no_vote_until_the_link_is_opened(world):
    client = sign_up()
    link = mailed_link()
    assert "confirm your email address" in client.get(reverse("vote")).content.decode()
    before = vote(client)
    assert (before.counts, before.held) == (False, "unconfirmed")
    # opened in another browser (the mail client's): no session needed, the link is the proof
    assert Client().get(link).status_code == 200
    after = vote(client)
    assert (after.counts, after.held) == (True, "")
    before.refresh_from_db()
    assert before.counts is False  # a vote cast unconfirmed never counts


def test_the_new_account_delay_still_applies_after_confirming(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    client = Client()
    client.post("/signup/", {"email": "voter@example.org", "password1": PASSWORD, "password2": PASSWORD})
    Client().get(mailed_link())
    assert vote(client).held == "new-account"


@pytest.mark.parametrize("tamper", ["forged", "other account", "expired"])
def test_a_forged_or_expired_link_confirms_nothing(world, settings, tamper):
    sign_up()
    link = mailed_link()
    if tamper == "forged":
        link = link[:-3] + ("AAA" if not link.endswith("AAA/") else "BBB") + "/"
    elif tamper == "other account":
        sign_up_other = Client()
        sign_up_other.post("/signup/", {"email": "other@example.org", "password1": PASSWORD, "password2": PASSWORD})
        user = get_user_model().objects.get(username="voter@example.org")
        user.email = "moved@example.org"  # the link was for the address the account had
        user.save()
    else:
        settings.ACCOUNT_CONFIRM_DAYS = 0
    assert Client().get(link).status_code == 400
    assert not AccountAddress.objects.filter(confirmed_at__isnull=False).exists()


def test_the_link_can_be_sent_again_from_the_vote_screen(world):
    client = sign_up()
    mail.outbox.clear()
    assert client.post(reverse("address_confirm_again")).status_code == 302
    Client().get(mailed_link())
    assert vote(client).counts is True


def test_accounts_made_by_staff_or_the_demo_count_as_confirmed(world):
    user = make_user("made-by-staff@example.com", age_hours=25)
    a, b = (next(r for r in world.runs if r.entry.agent.slug == s and r.task_id == world.tasks[0].id) for s in AGENTS)
    assert cast(user, a, b, "a").counts is True
