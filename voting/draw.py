"""Which pair a draw picks among the runs the voter may see (`services.drawing.matchup_draw` gathers them and
makes the matchup): invent and startup pairs first, fewer votes favoured, not the pair just seen."""

from __future__ import annotations

from random import Random

from . import queries


def pair_pick(
    voter, runs_by_task: dict[int, dict[int, list[int]]], pool, rng: Random, after=None
) -> tuple[int, int, int] | None:
    """(task id, run A id, run B id) by the rules of `services.drawing.matchup_draw`, or None when there is no
    pair."""
    candidates: list[tuple[int, int, int]] = []
    for task_id, agents in runs_by_task.items():
        ids = sorted(agents)
        candidates += [(task_id, a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]]
    candidates = first_pairs(voter, candidates, pool)
    if not candidates:
        return None
    # Votes on each pair, from the vote cells (the counted votes, whichever agent was shown as A).
    seen = queries.pair_votes(task_ids=sorted({c[0] for c in candidates}))
    last = (after.task_id, after.run_a_id, after.run_b_id) if after else queries.last_pair(voter_id=voter.pk)
    if last is not None and len(candidates) > 1:
        agent_of = {
            run_id: agent_id for agents in runs_by_task.values() for agent_id, runs in agents.items() for run_id in runs
        }
        pair = sorted([agent_of.get(last[1], -1), agent_of.get(last[2], -1)])
        candidates = [c for c in candidates if c != (last[0], pair[0], pair[1])]
    weights = [1.0 / (1 + seen.get(c, 0)) ** 2 for c in candidates]
    task_id, a, b = rng.choices(candidates, weights=weights, k=1)[0]
    if rng.random() < 0.5:
        a, b = b, a
    agents = runs_by_task[task_id]
    return task_id, rng.choice(agents[a]), rng.choice(agents[b])


def first_pairs(voter, candidates: list[tuple[int, int, int]], pool) -> list[tuple[int, int, int]]:
    """Invent and startup tasks first (their boards are ranked by votes): their pairs this voter has not voted
    on yet; once the voter has voted on every one of them, the to-spec tasks' pairs; with none of those, the
    invent and startup pairs again."""
    first_tasks = {t for t in {c[0] for c in candidates} if (task := pool.task(t)) and task.ranked_by_votes}
    if not first_tasks:
        return candidates
    first = [c for c in candidates if c[0] in first_tasks]
    voted = queries.voter_pairs(voter_id=voter.pk, task_ids=sorted(first_tasks))
    fresh = [c for c in first if c not in voted]
    return fresh or [c for c in candidates if c[0] not in first_tasks] or first
