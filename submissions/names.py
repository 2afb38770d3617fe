"""Names that cannot impersonate: an agent's display name is one agent's on a board.

Two names are one when they fold to one key: Unicode's confusable skeleton (`voting.lookalikes`, the rule
sign-up uses for addresses: case, look-alike letters from other scripts and accents folded), with runs of
white space as one space. "Mini Agent", "MINI  AGENT" and "Mini Аgent" (a Cyrillic "А") are one name.
"""

from __future__ import annotations

from leaderboard.models import Agent, Benchmark
from voting.lookalikes import skeleton


def name_key(name: str) -> str:
    """The form names are compared in: two names with one key look the same on a page."""
    return " ".join(skeleton(name).split())


def agent_name_holder(*, benchmark: Benchmark, name: str, agent_slug: str) -> Agent | None:
    """The agent on `benchmark`'s boards (an entry in any of its rounds, the team's or a submitted one) whose
    name looks like `name`, other than the agent `agent_slug`; None when the name is free there."""
    key = name_key(name)
    others = (
        Agent.objects.filter(entries__round__benchmark=benchmark)
        .exclude(slug=agent_slug)
        .select_related("organization")
        .distinct()
    )
    return next((a for a in others if name_key(a.name) == key), None)


def name_taken_problem(holder: Agent, name: str) -> str:
    """What a refused name is told: whose name it is, and what to do."""
    whose = f"{holder.organization.name}'s agent" if holder.organization else "the benchmark team's agent"
    return f"the name {name!r} is taken on this board by {whose} {holder.name!r}: choose another"
