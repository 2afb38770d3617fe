"""The admin reviewers work in: runs, verdicts, evidence, disputes and the reviewers' queue.

Blind second review (seed 000 §5): every page a tester or reviewer can reach asks runs.selectors which
verdicts they may see. Concretely, for anyone who is not an editor:

- the run change list has no outcome column, no outcome filter, and refuses `?outcome=` / `?verdicts__...`
  lookups typed into the address bar; its "review" column says "reviewed by you", never how it went, and to
  anyone blind to a run only "awaiting review", never which verdict it waits for (selectors.review_label; a
  round's "publication" field names its runs in review the same way);
- the run change form leaves out the run's outcome and lists only the verdicts the person may see;
- the verdict change list, change form and history only reach the verdicts the person may see;
- the run history shows who changed what and when, without change messages (they could name a verdict);
- admin log entries of verdicts are written without the outcome in their text;
- autocomplete (admin/autocomplete/) answers with run keys only.

Verdicts are entered through the verdict add form (linked from the queue and the run page) and written by
runs.services.verdict_record; only editors change a verdict afterwards (runs.services.verdict_change).

Importing this package registers every model admin of its modules: `runs` (runs, evidence, the queue
page), `verdicts`, `disputes`, `app_builds` (an editor's zip upload of a run's app) and `queue` (its filter and
the admin index's counts).
"""

from . import app_builds, disputes, queue, runs, verdicts
from ._common import (
    DeletesThroughService,
    ask_reason,
    change_reason,
    formset_changes,
    reason_field,
    refused_as_denied,
    related_changed,
)

__all__ = [
    "DeletesThroughService",
    "app_builds",
    "ask_reason",
    "change_reason",
    "disputes",
    "formset_changes",
    "queue",
    "reason_field",
    "refused_as_denied",
    "related_changed",
    "runs",
    "verdicts",
]
