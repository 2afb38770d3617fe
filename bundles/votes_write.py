"""A bundle's votes, written by the import (`bundles.importer`): matched by their identity, never their content."""

from __future__ import annotations

from django.utils import timezone

from leaderboard.models import Agent, Benchmark, Task
from scoring.bundle import BundleError, vote_ids
from voting.cells import cells_apply, votes_add
from voting.models import Vote

from .fields import parse_time
from .report import ImportReport


def write_votes(
    doc: dict, benchmark: Benchmark, tasks: dict[str, Task], agents: dict[str, Agent], report: ImportReport
) -> None:
    """Votes are matched by their identity (`votes[].id`, or `vote_ids`' position-derived one), never by
    their content: identical anonymous votes are separate votes, and importing a file again adds nothing.
    An id already stored for a different vote (task, agents or winner) is refused; only `counts` may change."""
    votes = doc.get("votes") or []
    if not votes:
        return
    existing = {
        v.key: v for v in Vote.objects.filter(task__benchmark=benchmark).select_related("task", "agent_a", "agent_b")
    }
    new = []
    conflicts = []
    for i, (v, key) in enumerate(zip(votes, vote_ids(doc), strict=True)):
        task, a, b = tasks[v["task"]], agents[v["a"]], agents[v["b"]]
        counts = v.get("counts", True) is not False
        found = existing.get(key)
        if found is None:
            cast_at = parse_time(v.get("cast_at"))
            vote = Vote(
                key=key,
                task=task,
                agent_a=a,
                agent_b=b,
                winner=v["winner"],
                voter_label=v.get("voter") or "",
                cast_at=cast_at or timezone.now(),
                counts=counts,
            )
            new.append(vote)
            report.rating_tasks.add(task.id)
        elif (found.task_id, found.agent_a_id, found.agent_b_id, found.winner) != (task.id, a.id, b.id, v["winner"]):
            conflicts.append(
                f"votes[{i}].id: {key!r} is already stored as another vote ({found.task.key}: "
                f"{found.agent_a.slug} vs {found.agent_b.slug}, winner {found.winner})"
            )
        elif found.counts != counts and found.voter_id is None:  # a site vote's counting is the site's rules
            # Conditional on the stored value, so a concurrent import cannot count the same change twice.
            if Vote.objects.filter(pk=found.pk, counts=not counts).update(counts=counts):
                key_of = (found.task_id, found.agent_a_id, found.agent_b_id, found.winner)
                cells_apply(added=[key_of] if counts else [], removed=[] if counts else [key_of])
            report.count("votes", created=False)
            report.rating_tasks.add(task.id)
    if conflicts:
        raise BundleError(conflicts)
    votes_add(new)
    if new:
        report.created["votes"] = report.created.get("votes", 0) + len(new)
