"""The vote path's statements written without the ORM (voting/queries.py) store and read what the ORM would."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.builders.voting import matchup_for
from voting import queries
from voting.models import Held, Matchup, Vote

pytestmark = pytest.mark.django_db


def _two_runs(world):
    """Two runs of one task by two different agents."""
    run_a = world.runs[0]
    run_b = next(r for r in world.runs if r.task_id == run_a.task_id and r.entry.agent_id != run_a.entry.agent_id)
    return run_a, run_b


def _row(model, pk) -> dict:
    return {
        f.attname: v
        for f, v in zip(
            model._meta.concrete_fields,
            model.objects.filter(pk=pk).values_list(*[f.attname for f in model._meta.concrete_fields]).get(),
            strict=True,
        )
    }


def test_a_plain_insert_stores_every_field_as_the_orm_would(voter, world):
    run_a, run_b = _two_runs(world)
    now = timezone.now().replace(microsecond=123456)
    fields = {
        "key": "k-plain",
        "alias_a": "a-plain",
        "alias_b": "b-plain",
        "voter": voter,
        "task": run_a.task,
        "run_a": run_a,
        "run_b": run_b,
        "scope": "appbench-t/todo-app",
        "created_at": now,
        "expires_at": now + timedelta(minutes=30),
    }
    plain = queries.insert(Matchup(**fields))
    orm = Matchup.objects.create(**{**fields, "key": "k-orm", "alias_a": "a-orm", "alias_b": "b-orm"})
    assert plain.pk is not None and plain.pk != orm.pk and not plain._state.adding
    stored, expected = _row(Matchup, plain.pk), _row(Matchup, orm.pk)
    for name in ("id", "key", "alias_a", "alias_b"):
        stored.pop(name), expected.pop(name)
    assert stored == expected
    assert stored["used_at"] is None and stored["created_at"] == now


def test_a_plain_insert_fills_the_model_s_defaults(voter, world):
    run_a, run_b = _two_runs(world)
    matchup = matchup_for(voter, run_a, run_b)
    vote = queries.insert(
        Vote(
            task_id=run_a.task_id,
            agent_a_id=run_a.entry.agent_id,
            agent_b_id=run_b.entry.agent_id,
            run_a_id=run_a.pk,
            run_b_id=run_b.pk,
            winner="tie",
            voter=voter,
            counts=False,
            held=Held.NEW_ACCOUNT,
            counts_from=timezone.now() + timedelta(hours=3),
            matchup_id=matchup.pk,
        )
    )
    stored = Vote.objects.get(pk=vote.pk)
    # The key is the model's default (a random "v-" token), the cast time its default (now), the label blank.
    assert stored.key == vote.key and stored.key.startswith("v-") and len(stored.key) == 18
    assert abs((stored.cast_at - timezone.now()).total_seconds()) < 60
    assert (stored.winner, stored.counts, stored.held, stored.voter_label) == ("tie", False, "new-account", "")
    assert stored.counts_from == vote.counts_from and stored.matchup_id == matchup.pk
    # Held votes are not in the cells: nothing to apply (the suite's check after each test compares them).


def test_the_reveal_reads_both_sides_makers_and_the_vote(voter, world):
    run_a, run_b = _two_runs(world)
    matchup = matchup_for(voter, run_a, run_b)
    assert queries.matchup_reveal(key="no-such-key") is None
    reveal = queries.matchup_reveal(key=matchup.key)
    assert reveal.matchup.pk == matchup.pk and reveal.vote_winner is None
    assert reveal.benchmark_slug == world.benchmark.slug
    for side, run in ((reveal.side_a, run_a), (reveal.side_b, run_b)):
        agent = run.entry.agent
        assert side == queries.RevealedRun(
            run.pk, run.key, run.round.key, agent.name, agent.organization.name, run.entry.model
        )
    agent = run_b.entry.agent
    agent.organization = None
    agent.save()
    Vote.objects.create(
        task=run_a.task,
        agent_a=run_a.entry.agent,
        agent_b=agent,
        winner="b",
        voter=voter,
        matchup=matchup,
        counts=False,
        held=Held.FLAGGED,
    )
    reveal = queries.matchup_reveal(key=matchup.key)
    assert reveal.side_b.organization_name == ""  # an agent without an organization
    assert (reveal.vote_winner, reveal.vote_held, reveal.vote_counts_from) == ("b", "flagged", None)
