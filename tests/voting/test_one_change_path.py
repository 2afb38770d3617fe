"""One way to say "this changed" (#28.4): the services' `snapshots_mark_stale` marks the boards stale and,
once the write commits, retires the cached pages and the vote pool. No model signal does it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save

from leaderboard.caching import draws_generation
from leaderboard.models import Agent, Benchmark, Entry, Organization, Round, Task, TaskVersion
from leaderboard.services import agent_update
from leaderboard.stale import snapshots_mark_stale
from runs.models import AppBuild, Evidence, Run

MODELS = (Benchmark, Task, TaskVersion, Round, Organization, Agent, Entry, Run, Evidence, AppBuild)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_no_signal_receiver_of_the_site_listens_to_what_a_draw_reads(model):
    for signal in (post_save, post_delete):
        receivers = signal._live_receivers(model)
        receivers = receivers[0] if isinstance(receivers, tuple) else receivers  # sync, async (Django 5+)
        mine = [r for r in receivers if r.__module__.split(".")[0] in {"leaderboard", "runs", "voting", "snapshots"}]
        assert not mine, mine


@pytest.mark.django_db
def test_a_service_write_retires_the_vote_pool_once_it_commits(django_capture_on_commit_callbacks):
    from tests.builders.review import make_world

    make_world()
    editor = User.objects.create_superuser("path-editor", password="x")
    before = draws_generation()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        agent_update(agent=Agent.objects.get(slug="acme-agent"), by=editor, changes={"name": "Acme Two"})
        assert draws_generation() == before  # nothing retired inside the transaction
    for callback in callbacks:
        callback()
    assert draws_generation() == before + 1


@pytest.mark.django_db
def test_votes_alone_leave_the_vote_pool_alone(django_capture_on_commit_callbacks):
    from tests.builders.review import make_world

    make_world()
    before = draws_generation()
    with django_capture_on_commit_callbacks(execute=True):
        snapshots_mark_stale(rating_task_ids=list(Task.objects.values_list("id", flat=True)))
    assert draws_generation() == before
    with django_capture_on_commit_callbacks(execute=True):
        snapshots_mark_stale(round_ids=list(Round.objects.values_list("id", flat=True)), boards=False)
    assert draws_generation() == before + 1
