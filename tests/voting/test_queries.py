"""The vote path's one-statement reads (voting/queries.py) read what the screen shows."""

from __future__ import annotations

import pytest

from tests.builders.voting import matchup_for
from voting import queries, selectors
from voting.models import Held, Vote

pytestmark = pytest.mark.django_db


def _two_runs(world):
    """Two runs of one task by two different agents."""
    run_a = world.runs[0]
    run_b = next(r for r in world.runs if r.task_id == run_a.task_id and r.entry.agent_id != run_a.entry.agent_id)
    return run_a, run_b


def test_the_reveal_reads_both_sides_makers_and_the_vote(voter, world):
    run_a, run_b = _two_runs(world)
    matchup = matchup_for(voter, run_a, run_b)
    assert selectors.matchup_reveal(key="no-such-key") is None
    reveal = selectors.matchup_reveal(key=matchup.key)
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
    reveal = selectors.matchup_reveal(key=matchup.key)
    assert reveal.side_b.organization_name == ""  # an agent without an organization
    assert (reveal.vote_winner, reveal.vote_held, reveal.vote_counts_from) == ("b", "flagged", None)


def test_a_vote_whose_run_has_left_the_vote_pool_reads_what_its_reveal_shows(voter, world):
    # The reveal after a vote comes from the vote pool (each side's run, round, agent, organization and model);
    # a side whose run has left the pool since the pair was drawn (its status changed by a write the pool did
    # not hear of, the pool then worked out again) is read from the database, and reads the same.
    from runs.models import Run
    from voting.pool import vote_pool, vote_pool_retire
    from voting.services.counting import vote_cast

    run_a, run_b = _two_runs(world)
    matchup = matchup_for(voter, run_a, run_b)
    expected = [
        queries.RevealedRun(
            r.pk, r.key, r.round.key, r.entry.agent.name, r.entry.agent.organization.name, r.entry.model
        )
        for r in (run_a, run_b)
    ]
    assert vote_pool().run(run_b.pk) is not None
    Run.objects.filter(pk=run_b.pk).update(status="infra_error")
    vote_pool_retire()
    assert vote_pool().run(run_b.pk) is None
    cast = vote_cast(key=matchup.key, voter=voter, winner="a")
    assert [cast.reveal.side_a, cast.reveal.side_b] == expected
    assert cast.reveal.benchmark_slug == world.benchmark.slug and cast.vote.counts
