"""A voter's vote screen kept for a reload (voting/views/screen_cache.py): a reload shows the same page reading only the
account, with a CSRF token of its own; every write of the site that changes what the screen shows makes the next
reload read it again; nothing of it reaches another voter, an htmx answer or a page with a message.

Each request and each write runs as its own committed transaction would (`step`): a kept screen is retired when
the write that changes it commits, and a test's transaction never commits.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from leaderboard.models import Membership
from tests.builders.voting import make_user
from voting import screens
from voting.models import Matchup, VoterFlag
from voting.pool import vote_pool, vote_pool_retire
from voting.services.addresses import account_address_save
from voting.services.flagging import voter_flag_clear
from voting.standing import standings_retire
from voting.views import screen_cache

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r'("X-CSRFToken": "|name="csrfmiddlewaretoken" value=")([A-Za-z0-9]{64})"')


@pytest.fixture(autouse=True)
def keep(settings):
    settings.VOTE_SCREEN_CACHE_SECONDS = 30


@pytest.fixture
def step(django_capture_on_commit_callbacks):
    """Run `fn` as its own committed transaction: its commit callbacks (the retirements) run when it ends."""

    def run(fn, *args, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return fn(*args, **kwargs)

    return run


class Load:
    def __init__(self, response, queries: int) -> None:
        assert response.status_code == 200
        self.page = response.content.decode()
        self.queries = queries
        self.tokens = {m[2] for m in TOKEN.finditer(self.page)}
        self.plain = TOKEN.sub(r"\1TOKEN", self.page)  # the page without its masked tokens
        self.key = Matchup.objects.filter(key__in=re.findall(r'action="/vote/m/([\w-]+)/"', self.page)).first()


@pytest.fixture
def load(step):
    def run(client, **params) -> Load:
        with CaptureQueriesContext(connection) as ctx:
            response = step(client.get, reverse("vote"), params)
        return Load(response, len(ctx.captured_queries))

    return run


def _kept(client, load) -> Load:
    """The screen drawn (a new pair: its draw retires what was kept before it), then read and kept."""
    load(client)
    first = load(client)
    assert first.queries == 2  # the account, the open pair read with the standing
    return first


def test_a_reload_shows_the_kept_page_reading_only_the_account(voter_client, world, load):
    first = _kept(voter_client, load)
    again = load(voter_client)
    # The account only (the session comes from the cache): the pair, the standing and the page are the kept ones.
    assert again.queries == 1
    assert again.plain == first.plain and 'class="side' in again.page
    # The token is masked afresh for every answer, never the one kept with the page.
    assert first.tokens and again.tokens and not first.tokens & again.tokens


def test_the_kept_page_s_token_is_the_requester_s_own(world, voter, load, step):
    client = Client(enforce_csrf_checks=True)
    client.force_login(voter)
    _kept(client, load)
    kept = load(client)
    assert kept.queries == 1
    (token,) = kept.tokens
    (matchup,) = Matchup.objects.filter(used_at__isnull=True)
    response = step(
        client.post, reverse("vote_cast", args=[matchup.key]), {"winner": "a", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    matchup.refresh_from_db()
    assert matchup.used_at is not None


def test_a_vote_retires_the_kept_page(voter_client, world, load, step):
    first = _kept(voter_client, load)
    step(voter_client.post, reverse("vote_cast", args=[first.key.key]), {"winner": "b"})
    after = load(voter_client)
    assert after.queries > 2  # read again: the pair is used, a new one is drawn
    assert after.key is not None and after.key != first.key and after.key.used_at is None


def test_a_pair_drawn_elsewhere_retires_the_kept_page(voter_client, world, load, step):
    # The htmx vote draws the next pair with the vote; a reload then shows that pair, not the kept page.
    first = _kept(voter_client, load)
    answer = step(
        voter_client.post, reverse("vote_cast", args=[first.key.key]), {"winner": "a"}, HTTP_HX_REQUEST="true"
    )
    assert answer.status_code == 200 and 'id="next-stage"' in answer.content.decode()
    following = Matchup.objects.filter(used_at__isnull=True).latest("id")
    assert load(voter_client).key == following


def test_a_new_open_pair_retires_the_kept_page(voter_client, voter, world, load, step):
    # Whatever draws it (here the draw itself, beside the pair on screen), a reload shows the voter's latest pair.
    from voting.draw.matchups import matchup_draw
    from voting.pool import vote_pool

    first = _kept(voter_client, load)
    drawn = step(matchup_draw, voter=voter, scope="", pool=vote_pool())
    assert drawn is not None and drawn.pk != first.key.pk
    after = load(voter_client)
    assert after.queries == 2 and after.key == drawn


@pytest.mark.parametrize("change", ["address unconfirmed", "flag cleared", "membership", "account"])
def test_a_write_that_changes_the_screen_retires_the_kept_page(voter_client, voter, world, load, step, change):
    if change == "flag cleared":  # flagged before the page is kept: its notice is on it
        step(standings_retire, [voter.pk])
        VoterFlag.objects.create(voter=voter, decided_votes=40, agreed=5, p_value=0.0001)
    first = _kept(voter_client, load)
    assert ("on hold" in first.page) is (change == "flag cleared")
    if change == "address unconfirmed":
        step(account_address_save, user=voter, confirmed=False)
    elif change == "flag cleared":
        step(voter_flag_clear, flag=VoterFlag.objects.get(), by=make_user("editor@example.com"))
    elif change == "membership":
        step(Membership.objects.create, user=voter, organization=next(iter(world.orgs.values())))
    else:  # the account's address, shown in the frame: no retirement, the kept page is for another account state
        get_user_model().objects.filter(pk=voter.pk).update(email="renamed@example.com")
    after = load(voter_client)
    assert after.queries >= 2 and after.plain != first.plain
    assert after.key == first.key  # the same open pair, read again
    if change == "address unconfirmed":
        assert "confirm your email address" in after.page
    elif change == "flag cleared":
        assert "on hold" not in after.page
    elif change == "membership":
        assert reverse("preview_index") in after.page
    else:
        assert "renamed@example.com" in after.page


def test_an_editor_deleting_the_pair_in_the_admin_retires_the_kept_page(voter_client, world, load, step, admin_client):
    first = _kept(voter_client, load)
    response = step(admin_client.post, reverse("admin:voting_matchup_delete", args=[first.key.pk]), {"post": "yes"})
    assert response.status_code == 302 and not Matchup.objects.filter(pk=first.key.pk).exists()
    after = load(voter_client)
    assert after.queries > 2 and after.key != first.key


def test_an_editor_marking_the_pair_used_in_the_admin_retires_the_kept_page(
    voter_client, world, load, step, admin_client
):
    first = _kept(voter_client, load)
    m = first.key

    def split(name, value):
        value = timezone.localtime(value)
        return {f"{name}_0": value.strftime("%Y-%m-%d"), f"{name}_1": value.strftime("%H:%M:%S")}

    data = {"voter": m.voter_id, "task": m.task_id, "run_a": m.run_a_id, "run_b": m.run_b_id, "scope": m.scope}
    data |= split("created_at", m.created_at) | split("expires_at", m.expires_at) | split("used_at", timezone.now())
    response = step(admin_client.post, reverse("admin:voting_matchup_change", args=[m.pk]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    m.refresh_from_db()
    assert m.used_at is not None
    after = load(voter_client)
    assert after.queries > 2 and after.key != m


def test_a_write_during_a_reload_s_reads_leaves_its_page_unserved(voter_client, voter, world, load, step, monkeypatch):
    # The reload takes its ticket before it reads: a write that commits between its read of the pair and its
    # keeping of the page (another server's) retires that ticket, so the page, which shows the state before the
    # write, is never served; the next reload shows the write.
    from voting import views

    first = _kept(voter_client, load)
    step(screens.voter_screens_retire, [voter.pk])  # the kept page retired: the next reload reads and keeps
    read = views.matchup_open

    def read_then_write(**kwargs):
        found = read(**kwargs)
        # Another server's transaction, committed now: its commit callbacks run once, here, not again when the
        # reload's own (the test's capture around the request) end.
        hooks = connection.run_on_commit
        start = len(hooks)
        account_address_save(user=voter, confirmed=False)  # the voter's address now unconfirmed
        theirs = hooks[start:]
        del hooks[start:]
        for _, callback, _ in theirs:
            callback()
        return found

    monkeypatch.setattr(views, "matchup_open", read_then_write)
    during = load(voter_client)
    assert during.key == first.key and "confirm your email address" not in during.page
    monkeypatch.setattr(views, "matchup_open", read)
    after = load(voter_client)
    assert after.queries >= 2 and "confirm your email address" in after.page


def test_a_new_vote_pool_retires_the_kept_page(voter_client, world, load):
    # Every service that changes runs, tasks or benchmarks retires the pool (`leaderboard.stale`); what the page
    # shows of the runs and the task comes from it.
    _kept(voter_client, load)
    vote_pool_retire()
    vote_pool()  # the new pool worked out (its own reads are not the page's)
    assert load(voter_client).queries == 2  # the account and the pair: the page drawn again from the new pool


def _clock(monkeypatch, at):
    monkeypatch.setattr(screen_cache, "_now", lambda: at)


@pytest.mark.parametrize("limit", ["the pair's expiry", "the end of the UTC day", "a new account's first counted vote"])
def test_the_kept_page_goes_at_the_first_of_its_limits(world, load, monkeypatch, limit):
    # Each limit comes 10 s after the page is kept, before the 30 s every kept page has: 5 s later the kept page
    # is served (the account only), 11 s later the screen is read again.
    now = timezone.now()
    voter = make_user("new@example.com", age_hours=24 - 10 / 3600 if limit.startswith("a new") else 72)
    client = Client()
    client.force_login(voter)
    load(client)  # the draw
    expiry = now + (timedelta(seconds=10) if limit == "the pair's expiry" else timedelta(days=2))
    Matchup.objects.filter(voter=voter).update(expires_at=expiry)
    if limit == "the end of the UTC day":
        now = now.replace(hour=23, minute=59, second=50, microsecond=0)
    _clock(monkeypatch, now)
    kept = load(client)
    assert kept.queries == 2 and ("start counting" in kept.page) is limit.startswith("a new")
    _clock(monkeypatch, now + timedelta(seconds=5))
    assert load(client).queries == 1
    _clock(monkeypatch, now + timedelta(seconds=11))
    assert load(client).queries >= 2


def test_another_voter_never_gets_the_kept_page(voter_client, world, load):
    first = _kept(voter_client, load)
    other = Client()
    other.force_login(make_user("other@example.com"))
    theirs = load(other)
    assert theirs.queries > 2 and theirs.key != first.key and "other@example.com" in theirs.page
    assert "voter@example.com" not in theirs.page


def test_an_htmx_reload_is_the_stage_read_again(voter_client, world, load, step):
    _kept(voter_client, load)
    with CaptureQueriesContext(connection) as ctx:
        response = step(voter_client.get, reverse("vote"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "<html" not in response.content.decode()
    assert len(ctx.captured_queries) == 2


def test_a_message_is_shown_once_never_with_the_kept_page(voter_client, voter, world, load, step):
    step(account_address_save, user=voter, confirmed=False)
    first = _kept(voter_client, load)
    response = step(voter_client.post, reverse("address_confirm_again"))
    assert response.status_code == 302
    shown = load(voter_client)
    assert "We sent a new link" in shown.page and shown.key == first.key
    assert "We sent a new link" not in load(voter_client).page


def test_a_page_drawn_from_reads_made_before_a_write_is_never_served(voter_client, voter, world, load, step):
    # The order a reload and a write may take on two servers: the reload reads its generation, the write
    # commits and retires, the reload keeps the page it drew from the older reads. That page is never served.
    first = _kept(voter_client, load)
    shown = voter_client.get(reverse("vote"))  # the kept page
    request, page = shown.wsgi_request, HttpResponse(shown.content)
    step(standings_retire, [voter.pk])  # a write: its retirement
    found, ticket = screen_cache.screen_cached(request, "")
    assert found is None and ticket is not None  # a reload reads its generation, then the database...
    step(standings_retire, [voter.pk])  # ...another write commits and retires...
    assert load(voter_client).queries > 1  # ...another reload reads the new state and keeps its page...
    screen_cache.screen_keep(request, ticket, page, matchup=first.key)  # ...and the first one keeps its own
    assert load(voter_client).queries > 1  # the first reload's page is not served (1: the account only)


def test_with_the_cache_unreachable_every_reload_reads_the_pair(voter_client, world, load, monkeypatch):
    first = _kept(voter_client, load)

    class Down:
        def __getattr__(self, name):
            def fail(*args, **kwargs):
                raise ConnectionError("cache down")

            return fail

    monkeypatch.setattr(screen_cache, "cache", Down())
    for _ in range(2):
        again = load(voter_client)
        assert again.queries == 2 and again.key == first.key
