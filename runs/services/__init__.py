"""Writes of reviewing and publication: verdicts, disputes, re-runs, round status.

Every rule of seed 000 §5-§9 that a person could break from the admin or the site is checked here, so the
admin forms and the vendor pages are thin: they call a service and show its `ValidationError`.

Every write that changes a board's inputs marks the round's snapshots stale in the same transaction
(`leaderboard.stale.snapshots_mark_stale`), which enqueues the recompute after commit. After a round is
published, a change to a verdict or a run also writes a `ChangelogEntry` (what, why, who, when): the
round's public changelog.

By workflow: `review` (verdicts and the outcome they give), `corrections` (editors' changes to runs and
verdicts), `publication` (disputes, re-runs, preview, publish) and `preview` (the vendors' window). Callers
import from here. The catalogue's own writes (agents, benchmarks, tasks and their versions, rounds and their
parameters) are `leaderboard.services`.
"""

from .corrections import (
    run_create,
    run_delete,
    run_related_changed,
    run_update,
    verdict_change,
    verdict_delete,
)
from .preview import pending_reruns, preview_ends_at
from .publication import (
    dispute_decide,
    dispute_file,
    rerun_create,
    rerun_needs_start,
    rerun_refusal,
    round_enter_preview,
    round_publish,
    round_publish_problems,
)
from .review import lowest_outcome, run_final_outcome, verdict_record

__all__ = [
    "dispute_decide",
    "dispute_file",
    "lowest_outcome",
    "pending_reruns",
    "preview_ends_at",
    "rerun_create",
    "rerun_needs_start",
    "rerun_refusal",
    "round_enter_preview",
    "round_publish",
    "round_publish_problems",
    "run_create",
    "run_delete",
    "run_final_outcome",
    "run_related_changed",
    "run_update",
    "verdict_change",
    "verdict_delete",
    "verdict_record",
]
