"""One rule fills a prompt's {placeholders} with a published round's values: the run page and the API agree."""

import pytest

from bundles.importer import bundle_import
from leaderboard.models import fill_prompt


def test_it_fills_names_with_hyphens_in_one_pass_and_leaves_unknown_ones():
    values = {"city-name": "Porto {date}", "date": "May 3"}
    # One pass: the value "Porto {date}" is not filled again; {unknown} has no value and stays as written.
    assert (
        fill_prompt("Go to {city-name} on {date}, ask {unknown}.", values)
        == "Go to Porto {date} on May 3, ask {unknown}."
    )


@pytest.mark.django_db
def test_the_run_page_and_the_api_fill_the_same_prompt(client):
    bundle_import(
        doc={
            "benchmark": {
                "slug": "pf",
                "name": "Prompt fill",
                "methodology": "outcomes",
                "params": {"preview_hours": 0},
            },
            "agents": [{"slug": "ag", "name": "Ag"}],
            "tasks": [
                {
                    "key": "trip",
                    "title": "Trip",
                    "version": "1.0",
                    "kind": "core",
                    "prompt": "Plan a weekend in {city-name}.",
                    "parameters": ["city-name"],
                }
            ],
            "rounds": [
                {
                    "key": "r1",
                    "status": "published",
                    "published_at": "2026-09-01T00:00:00Z",
                    "entries": [{"agent": "ag"}],
                    "parameters": {"trip": {"city-name": "Porto"}},
                }
            ],
            "runs": [
                {"id": "run1", "round": "r1", "agent": "ag", "task": "trip", "status": "completed", "outcome": "pass"}
            ],
        }
    )
    page = client.get("/b/pf/r/r1/runs/run1/").content.decode()
    api = client.get("/api/benchmarks/pf/runs/r1/run1").json()
    assert "Plan a weekend in Porto." in page and "{city-name}" not in page
    assert api["prompt"] == "Plan a weekend in Porto."
