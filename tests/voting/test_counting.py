"""Which votes count: the new-account delay, the daily cap, flagged voters, and what one account can do."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.sites import site
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from scoring.bradley_terry import fit_ratings
from snapshots.models import BoardSnapshot
from tests.builders.voting import cast, make_user
from voting.cells import votes_add
from voting.models import Vote, VoterFlag
from voting.services.counting import votes_mature
from voting.services.flagging import voter_agreement, voter_flag_clear, voters_flag

pytestmark = pytest.mark.django_db


def _run(world, slug, task=0):
    return next(r for r in world.runs if r.entry.agent.slug == slug and r.task_id == world.tasks[task].id)


def test_a_day_old_account_votes_count(world):
    user = make_user("old@example.com", age_hours=25)
    vote = cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    assert vote.counts is True and vote.held == ""


def test_a_new_accounts_vote_is_stored_but_counts_only_a_day_after_sign_up(world, settings):
    settings.VOTE_NEW_ACCOUNT_DELAY_HOURS = 24
    user = make_user("new@example.com", age_hours=2)
    vote = cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    assert (vote.counts, vote.held) == (False, "new-account")
    assert vote.counts_from == user.date_joined + timedelta(hours=24)
    assert votes_mature(now=timezone.now() + timedelta(hours=21)) == 0
    assert votes_mature(now=timezone.now() + timedelta(hours=23)) == 1
    vote.refresh_from_db()
    assert (vote.counts, vote.held) == (True, "")


def test_the_screen_tells_a_new_voter_when_votes_start_counting(client, world):
    user = make_user("fresh@example.com", age_hours=1)
    client.force_login(user)
    html = client.get(reverse("vote")).content.decode()
    assert "Your account is new" in html and "start counting on" in html


def test_the_reveal_says_a_new_accounts_vote_does_not_count_yet(client, world):
    user = make_user("fresh2@example.com", age_hours=1)
    client.force_login(user)
    client.get(reverse("vote"))
    matchup = user.matchups.get()
    html = client.post(reverse("vote_cast", args=[matchup.key]), {"winner": "b"}, follow=True).content.decode()
    assert "starts counting on" in html
    assert Vote.objects.get().counts is False


def test_votes_beyond_the_daily_cap_are_stored_without_counting(world, settings):
    settings.VOTE_DAILY_CAP = 5
    user = make_user("busy@example.com")
    now = timezone.now().replace(hour=12)
    votes = [
        cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now + timedelta(minutes=i))
        for i in range(8)
    ]
    assert [v.counts for v in votes] == [True] * 5 + [False] * 3
    assert {v.held for v in votes[5:]} == {"daily-cap"}
    tomorrow = cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a", now=now + timedelta(days=1))
    assert tomorrow.counts is True


def test_the_daily_cap_counts_a_new_accounts_pending_votes(world, settings):
    settings.VOTE_DAILY_CAP = 3
    user = make_user("newbusy@example.com", age_hours=1)
    votes = [cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a") for _ in range(5)]
    assert [v.held for v in votes] == ["new-account"] * 3 + ["daily-cap"] * 2
    votes_mature(now=timezone.now() + timedelta(days=2))
    assert Vote.objects.filter(counts=True).count() == 3


def test_a_counted_vote_marks_the_ratings_stale_and_they_are_refitted(world, django_capture_on_commit_callbacks):
    user = make_user("rater@example.com")
    BoardSnapshot.objects.create(
        benchmark=world.benchmark, kind="ratings", stale=False, stale_since=None, data={"all": [], "tasks": {}}
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        cast(user, _run(world, "zephyrbot"), _run(world, "marlinide"), "a")
    snap = BoardSnapshot.objects.get(benchmark=world.benchmark, kind="ratings")
    assert snap.stale is True and len(callbacks) == 1
    callbacks[0]()  # after commit: the (eager) refit
    snap.refresh_from_db()
    assert snap.stale is False
    assert {row["agent"] for row in snap.data["all"]} == {"zephyrbot", "marlinide"}


def _honest_votes(world, task=0, per_pair=40):
    """Imported votes from many people: zephyrbot > marlinide > thistledev, each by 3 to 1."""
    order = ["zephyrbot", "marlinide", "thistledev"]
    rows = []
    for i, better in enumerate(order):
        for worse in order[i + 1 :]:
            for n in range(per_pair):
                rows.append(
                    Vote(
                        task=world.tasks[task],
                        agent_a=world.agents[better],
                        agent_b=world.agents[worse],
                        winner="a" if n % 4 else "b",
                        voter_label=f"crowd-{n}",
                    )
                )
    votes_add(rows)


def _rating(agent, task_id):
    rows = fit_ratings(
        [
            (a, b, w)
            for a, b, w in Vote.objects.filter(task_id=task_id, counts=True).values_list(
                "agent_a__slug", "agent_b__slug", "winner"
            )
        ],
        bootstrap_rounds=1,
    )
    return {r["agent"]: r["rating"] for r in rows}[agent]


def test_one_account_voting_many_times_is_bounded_by_the_cap_and_then_flagged(world, settings):
    """The effect of a single voter: in one day at most VOTE_DAILY_CAP of their votes count (and at most
    VOTE_RATE_LIMIT per window get through at all); once the agreement check runs, a voter who keeps
    picking the crowd's loser is flagged and none of their votes count, so the rating returns to where
    everyone else's votes put it."""
    settings.VOTE_DAILY_CAP = 30
    settings.VOTE_FLAG_MIN_VOTES = 20
    _honest_votes(world)
    task_id = world.tasks[0].id
    baseline = _rating("thistledev", task_id)
    pusher = make_user("pusher@example.com")
    now = timezone.now().replace(hour=1)
    for i in range(100):  # thistledev (the crowd's last) over zephyrbot (its first), again and again
        cast(pusher, _run(world, "thistledev"), _run(world, "zephyrbot"), "a", now=now + timedelta(minutes=i))
    assert Vote.objects.filter(voter=pusher, counts=True).count() == 30  # the cap bounds the push
    pushed = _rating("thistledev", task_id)
    assert pushed > baseline

    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert flag.voter == pusher and flag.agreed == 0 and flag.decided_votes == 100 and flag.p_value < 1e-20
    assert not Vote.objects.filter(voter=pusher, counts=True).exists()
    assert _rating("thistledev", task_id) == pytest.approx(baseline)
    # Still flagged: later votes are stored and held.
    later = cast(pusher, _run(world, "thistledev"), _run(world, "zephyrbot"), "a", now=now + timedelta(days=1))
    assert (later.counts, later.held) == (False, "flagged")


def test_an_honest_voter_is_not_flagged(world, settings):
    settings.VOTE_FLAG_MIN_VOTES = 20
    settings.VOTE_DAILY_CAP = 1000
    _honest_votes(world)
    honest = make_user("honest@example.com")
    for i in range(60):  # agrees with the crowd 2 times in 3
        winner = "a" if i % 3 else "b"
        cast(honest, _run(world, "zephyrbot"), _run(world, "thistledev"), winner)
    assert voters_flag(benchmark_id=world.benchmark.id) == []
    (row,) = voter_agreement(benchmark_id=world.benchmark.id)
    assert row.agreed == 40 and row.decided == 60


def test_a_new_account_flagged_before_its_votes_mature_never_counts(world, settings):
    settings.VOTE_FLAG_MIN_VOTES = 20
    _honest_votes(world)
    sock = make_user("sock@example.com", age_hours=1)
    for _ in range(40):
        cast(sock, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    assert len(voters_flag(benchmark_id=world.benchmark.id)) == 1
    votes_mature(now=timezone.now() + timedelta(days=2))
    assert not Vote.objects.filter(voter=sock, counts=True).exists()
    assert set(Vote.objects.filter(voter=sock).values_list("held", flat=True)) == {"flagged"}


def test_an_editor_clears_a_flag_in_the_admin_and_the_votes_count_again(world, settings, admin_user):
    settings.VOTE_FLAG_MIN_VOTES = 20
    _honest_votes(world)
    pusher = make_user("pusher2@example.com")
    for _ in range(30):
        cast(pusher, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    voters_flag(benchmark_id=world.benchmark.id)
    model_admin = site._registry[VoterFlag]
    request = RequestFactory().post("/admin/voting/voterflag/")
    request.user = admin_user
    request._messages = type("M", (), {"add": lambda *a, **k: None})()
    model_admin.clear(request, VoterFlag.objects.all())
    flag = VoterFlag.objects.get()
    assert flag.cleared_at is not None and flag.cleared_by == admin_user
    assert Vote.objects.filter(voter=pusher, counts=True).count() == 30
    # Cleared and nothing new cast: the check does not flag the same evidence again.
    assert voters_flag(benchmark_id=world.benchmark.id) == []


def test_the_admin_lists_flagged_voters(world, settings, admin_client):
    settings.VOTE_FLAG_MIN_VOTES = 20
    _honest_votes(world)
    pusher = make_user("listed@example.com")
    for _ in range(25):
        cast(pusher, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    voters_flag(benchmark_id=world.benchmark.id)
    html = admin_client.get(reverse("admin:voting_voterflag_changelist")).content.decode()
    assert "listed@example.com" in html
    assert "Clear: the selected voters" in html


def test_the_agreement_check_fits_everyone_else_s_votes_without_the_voter_s_own(world, settings):
    """A voter's own votes never enter the fit they are judged against, however many there are. The crowd: 3
    imported votes, zephyrbot over thistledev. The voter: 40 counted votes for thistledev over zephyrbot.
    Everyone else's fit rates zephyrbot higher, so none of the 40 agrees: agreed 0 of 40, and the one-sided
    p-value of 0 agreements in 40 fair coin tosses is 0.5^40 (about 9.1e-13). With the voter's own votes in
    the fit, thistledev would rank first (40 wins to 3) and the voter would agree 40 times in 40."""
    settings.VOTE_FLAG_MIN_VOTES = 20
    crowd = [world.agents["zephyrbot"], world.agents["thistledev"]]
    votes_add(
        [
            Vote(task=world.tasks[0], agent_a=crowd[0], agent_b=crowd[1], winner="a", voter_label=f"c{n}")
            for n in range(3)
        ]
    )
    loud = make_user("loud@example.com")
    for _ in range(40):
        cast(loud, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    assert Vote.objects.filter(voter=loud, counts=True).count() == 40
    (row,) = voter_agreement(benchmark_id=world.benchmark.id)
    assert (row.voter_id, row.decided, row.agreed) == (loud.id, 40, 0)
    assert row.p_value == pytest.approx(0.5**40, rel=1e-9)
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    assert flag.voter == loud


def test_clearing_a_flag_keeps_a_new_account_s_votes_waiting_for_their_day(world, settings, admin_user):
    """A new account's votes count only from sign-up + VOTE_NEW_ACCOUNT_DELAY_HOURS (24 h). An account 1 h old
    is flagged after 30 votes against the crowd; the 5 votes it casts while flagged are held "flagged". When an
    editor clears the flag an hour later, those 5 are still 22 h short of counting: they wait, held
    "new-account" until sign-up + 24 h, and only then count (the 30 earlier ones were held "new-account" all
    along and mature the same way: 35 votes count a day later)."""
    settings.VOTE_FLAG_MIN_VOTES = 20
    _honest_votes(world)
    sock = make_user("sock2@example.com", age_hours=1)
    for _ in range(30):
        cast(sock, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    (flag,) = voters_flag(benchmark_id=world.benchmark.id)
    for _ in range(5):
        cast(sock, _run(world, "thistledev"), _run(world, "zephyrbot"), "a")
    assert Vote.objects.filter(voter=sock, held="flagged").count() == 5
    counted = voter_flag_clear(flag=flag, by=admin_user, now=timezone.now() + timedelta(hours=1))
    assert counted == 0
    assert not Vote.objects.filter(voter=sock, counts=True).exists()
    waiting = Vote.objects.filter(voter=sock, held="new-account")
    assert waiting.count() == 35
    assert {v.counts_from for v in waiting} == {sock.date_joined + timedelta(hours=24)}
    assert votes_mature(now=sock.date_joined + timedelta(hours=24, seconds=1)) == 35
