"""Rules written once (#28, "Each rule once"): where the site and the boards each need a rule, they call the
same function, and these tests catch the two drifting apart again."""

from __future__ import annotations

import pytest

from bundles.export import run_doc
from bundles.importer import bundle_import
from leaderboard.models import Task, TaskVersion, task_input
from runs.inputs import run_input
from runs.models import Run, Verdict
from scoring.bundle import run_input as board_run_input
from scoring.common import is_stale, major
from scoring.types import RunInput
from tests.builders.review import bundle


@pytest.mark.parametrize(
    ("recorded", "current", "stale"),
    [("1.0", "2.1", True), ("2.0", "2.1.4", False), ("v1", "2.0", True), (" 2", "2.0", True), ("-1", "1.0", True)],
)
def test_the_run_page_and_the_board_mark_the_same_runs_stale(recorded, current, stale):
    """Seed 000 §9: a run under an older major version is stale. The run page (runs.models.Run.is_stale,
    leaderboard.models.TaskVersion.major) and the board (scoring.common.is_stale) read the major number
    through one `major`: "v1", " 2" and "-1" are unreadable (0) on both, so both call those runs stale."""
    task = Task(key="t", version=current)
    run = Run(task=task, task_version=recorded)
    assert (
        run.is_stale
        == is_stale(
            RunInput(id="r", round="", agent="", task="t", task_version=recorded, status="completed"), task_input(task)
        )
        == stale
    )
    assert TaskVersion(version=recorded).major == major(recorded)


@pytest.mark.django_db
def test_a_run_reads_the_same_to_the_site_as_to_the_boards():
    """The site's conversion (runs.inputs.run_input) and the boards' (scoring.bundle.run_input, fed by the
    export) give the same input, blank strings and numbers included: a blank language is "unknown" on both
    (a "" would read as "not the agent's primary language" on the run page only)."""
    doc = bundle()
    doc["runs"][0].update(language=None, outcome=None, cost_usd=0.125, wall_seconds=61.5, tokens_input=1000)
    # A complete review (tester and second agree on partial): the public document carries its verdicts.
    doc["runs"][0]["verdicts"] = [
        {"role": "tester", "outcome": "pass", "matched": ["partial"], "note": "ok"},
        {"role": "second", "outcome": "partial"},
    ]
    bundle_import(doc=doc)
    run = Run.objects.get(key="acme-trip")
    Run.objects.filter(pk=run.pk).update(language="")
    run = Run.objects.prefetch_related("verdicts").get(pk=run.pk)

    site = run_input(run, with_verdicts=True)
    exported = run_doc(run)
    boards = board_run_input({**exported, "round": "", "agent": "", "rerun_of": None})
    assert site.language is None and boards.language is None
    assert site == boards


@pytest.mark.django_db
def test_an_imported_verdict_stores_the_lowest_of_its_outcome_and_its_matched_rows():
    """Seed 000 §3: "If a run matches more than one row, the lowest outcome applies". A bundle verdict saying
    pass while matching a fail row is stored as fail, the outcome the board counts for it (one rule:
    runs.services.review.lowest_outcome, itself scoring.common.verdict_outcome)."""
    doc = bundle()
    doc["runs"][0]["verdicts"] = [{"role": "tester", "outcome": "pass", "matched": ["fail"], "note": "n"}]
    doc["runs"][1]["verdicts"] = [{"role": "tester", "matched": ["partial", "pass"], "note": "n"}]
    bundle_import(doc=doc)
    assert Verdict.objects.get(run__key="acme-trip").outcome == "fail"
    assert Verdict.objects.get(run__key="acme-inbox").outcome == "partial"
