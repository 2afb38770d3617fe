"""Writes of reviewing and publication: verdicts, disputes, re-runs, round status, task versions.

Every rule of seed 000 §5-§9 that a person could break from the admin or the site is checked here, so the
admin forms and the vendor pages are thin: they call a service and show its `ValidationError`.

Every write that changes a board's inputs marks the round's snapshots stale in the same transaction
(`snapshots.stale.snapshots_mark_stale`), which enqueues the recompute after commit. After a round is
published, a change to a verdict or a run also writes a `ChangelogEntry` (what, why, who, when): the
round's public changelog.

By workflow: `review` (verdicts and the outcome they give), `corrections` (editors' changes to runs,
verdicts, the catalogue and rounds), `versions` (task versions, the task set's version), `publication`
(disputes, re-runs, preview, publish) and `preview` (the vendors' window). Callers import from here.
"""

from .corrections import (
    agent_update,
    benchmark_update,
    catalogue_create,
    changelog_note_add,
    round_details_changed,
    round_parameter_delete,
    round_parameter_save,
    round_update,
    run_create,
    run_delete,
    run_related_changed,
    run_update,
    task_delete,
    task_update,
    verdict_change,
    verdict_delete,
)
from .preview import pending_reruns, preview_ends_at
from .publication import (
    dispute_decide,
    dispute_file,
    rerun_create,
    round_enter_preview,
    round_publish,
    round_publish_problems,
)
from .review import lowest_outcome, run_final_outcome, verdict_record
from .versions import (
    FROZEN_VERSION_FIELDS,
    TASK_FIELDS,
    next_version,
    task_create,
    task_version_create,
    task_version_delete,
    task_version_publish,
    task_version_update,
)

__all__ = [
    "FROZEN_VERSION_FIELDS",
    "TASK_FIELDS",
    "agent_update",
    "catalogue_create",
    "changelog_note_add",
    "benchmark_update",
    "dispute_decide",
    "dispute_file",
    "lowest_outcome",
    "next_version",
    "pending_reruns",
    "preview_ends_at",
    "rerun_create",
    "round_details_changed",
    "round_enter_preview",
    "round_parameter_delete",
    "round_parameter_save",
    "round_publish",
    "round_publish_problems",
    "round_update",
    "run_create",
    "run_delete",
    "run_final_outcome",
    "run_related_changed",
    "run_update",
    "task_create",
    "task_delete",
    "task_update",
    "task_version_create",
    "task_version_delete",
    "task_version_publish",
    "task_version_update",
    "verdict_change",
    "verdict_delete",
    "verdict_record",
]
