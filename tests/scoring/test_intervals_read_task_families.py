"""The board's 95% interval resamples a bundle's task families whole (DESIGN.md: "`family` (tasks made together,
resampled together by the bootstrap)"), on the way the boards are really computed: a bundle's tasks with their
`family`, read into the round (`scoring.bundle.round_inputs`), computed by `compute_boards`, and on the site from
the database. Drawing tasks one by one instead gives a detectably narrower interval."""

from __future__ import annotations

import csv
import io

import pytest

from scoring.boards import compute_boards
from scoring.bundle import round_inputs


def _bundle(families: bool) -> dict:
    """One agent on ten auto tasks: x0-x4 (family "x") all passed, 10 of 10 tests (1.0); y0-y4 (family "y") none,
    0 of 10 (0.0). Its score is the mean of its best trials, (5 x 1.0 + 5 x 0.0) / 10 = 0.5."""
    keys = [f"x{i}" for i in range(5)] + [f"y{i}" for i in range(5)]
    tasks = [
        {"key": k, "title": k, "version": "1.0", "kind": "core", "evaluation": "auto", "prompt": "Fix it."}
        | ({"family": k[0]} if families else {})
        for k in keys
    ]
    runs = [
        {
            "id": f"a-{k}",
            "round": "r1",
            "agent": "a",
            "task": k,
            "status": "completed",
            "tests_passed": 10 if k.startswith("x") else 0,
            "tests_total": 10,
        }
        for k in keys
    ]
    return {
        "benchmark": {"slug": "fam", "name": "Families", "methodology": "scored", "params": {"preview_hours": 0}},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": tasks,
        "rounds": [
            {
                "key": "r1",
                "name": "R1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                "entries": [{"agent": "a"}],
            }
        ],
        "runs": runs,
    }


def _interval(doc: dict) -> tuple[float, float, float]:
    (round_input,) = round_inputs(doc)
    (row,) = compute_boards(round_input)["overall"]
    return row["score"], row["ci_low"], row["ci_high"]


def test_a_round_with_families_resamples_them_whole():
    # By family: a resample draws two families with replacement: x x (1/4: every drawn task 1.0, mean 1.0), y y
    # (1/4: mean 0.0) or one of each (1/2: 0.5). P(0.0) = 25% > 2.5%, so the 2.5th percentile is 0.0, and by
    # symmetry the 97.5th is 1.0.
    assert _interval(_bundle(families=True)) == (0.5, 0.0, 1.0)


def test_the_same_round_without_families_draws_task_by_task_and_is_narrower():
    # Flat: ten tasks drawn one by one, the mean is Binomial(10, 1/2) / 10: P(<= 0.1) = 11/1024 = 1.1% and
    # P(<= 0.2) = 56/1024 = 5.5%, so the 2.5th percentile is 0.2 and the 97.5th 0.8 (1,000 seeded resamples:
    # within one step of those). Far from the families' (0.0, 1.0).
    score, low, high = _interval(_bundle(families=False))
    assert score == 0.5
    assert 0.1 <= low <= 0.3 and 0.7 <= high <= 0.9, (low, high)


@pytest.mark.django_db
def test_the_sites_board_resamples_the_stored_families_whole(client):
    from bundles.importer import bundle_import
    from tests.site.conftest import compute_all

    bundle_import(doc=_bundle(families=True))
    compute_all()
    (row,) = csv.DictReader(io.StringIO(client.get("/b/fam/r/r1/board.csv?tab=overall").content.decode()))
    assert (float(row["score"]), float(row["score_ci_low"]), float(row["score_ci_high"])) == (0.5, 0.0, 1.0)
