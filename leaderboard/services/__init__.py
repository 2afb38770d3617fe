"""The catalogue's writes: benchmarks, tasks and their versions, agents, rounds, their parameters and their
changelog. Each write checks who may make it, asks for a reason once a round it reaches is published, logs
the change in that round's changelog and says "this changed" (`leaderboard.stale.snapshots_mark_stale`).

- `changes`: the rules every write shares (the editor check, the reason, the changelog);
- `catalogue`: organizations, agents, benchmarks, tasks, rounds and round parameters;
- `versions`: task versions (seed 000 §9).

A round's publication is a decision about its runs (open disputes, re-runs, the preview window) and lives
with them, in `runs.services.publication`.
"""

from .catalogue import (
    agent_update,
    benchmark_update,
    catalogue_create,
    catalogue_delete,
    changelog_note_add,
    organization_delete,
    organization_update,
    round_details_changed,
    round_parameter_delete,
    round_parameter_save,
    round_update,
    task_delete,
    task_update,
)
from .versions import (
    FROZEN_VERSION_FIELDS,
    TASK_FIELDS,
    next_version,
    task_create,
    task_set_grown,
    task_version_create,
    task_version_delete,
    task_version_publish,
    task_version_update,
)

__all__ = [
    "FROZEN_VERSION_FIELDS",
    "TASK_FIELDS",
    "agent_update",
    "benchmark_update",
    "catalogue_create",
    "catalogue_delete",
    "changelog_note_add",
    "next_version",
    "organization_delete",
    "organization_update",
    "round_details_changed",
    "round_parameter_delete",
    "round_parameter_save",
    "round_update",
    "task_create",
    "task_set_grown",
    "task_delete",
    "task_update",
    "task_version_create",
    "task_version_delete",
    "task_version_publish",
    "task_version_update",
]
