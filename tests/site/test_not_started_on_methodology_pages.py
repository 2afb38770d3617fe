"""Each methodology page tells a reader what its board does with a run that never started, quoting its seed
(docs/methodology-choices.md, "A run that never started"; the boards themselves: tests/scoring/test_not_started.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "methodology,words",
    [
        (
            "outcomes",
            ["A run that never started tested nothing", "Untested tasks are left out rather than counted as 0"],
        ),
        ("scored", ["A run that never started</strong> has no score and is not a trial", "never 0"]),
        ("checks", ["A run that never started, like an app that never started, counts as a 0 run", "the score is 0"]),
        ("weekly", ["The job was not done", "never started"]),
    ],
)
def test_the_methodology_page_says_what_a_run_that_never_started_counts_for(load, client, methodology, words):
    load({"benchmark": {"slug": f"ns-{methodology}", "name": f"NS {methodology}", "methodology": methodology}})
    response = client.get(f"/b/ns-{methodology}/methodology/")
    assert response.status_code == 200
    html = response.content.decode().replace("&#x27;", "'")
    for word in words:
        assert word in html
