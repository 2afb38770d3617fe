"""What a reader is told on the demo's pages matches the methodology: a weekly run's verdicts are described without
a second reviewer weekly runs do not have, and each board's "Every run (CSV)" says what that methodology's file
holds, including what its `median_run` column marks there."""

from __future__ import annotations

import csv
import io
import re
from html import unescape

import pytest
from django.core.management import call_command

from runs.models import Run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(transactional_db):
    call_command("load_demo", "--no-users", stdout=io.StringIO())


def _text(html: str, pattern: str) -> str:
    found = re.search(pattern, html, re.S)
    assert found, pattern
    return unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def test_verdicts_on_a_weekly_run_name_only_the_reviewers_it_has_and_artb_keeps_its_three(demo, client):
    weekly = Run.objects.filter(round__benchmark__slug="weekly-shootout", verdicts__role="tester").first()
    assert weekly is not None and set(weekly.verdicts.values_list("role", flat=True)) == {"tester"}
    page = client.get(f"/b/weekly-shootout/r/{weekly.round.key}/runs/{weekly.key}/").content.decode()
    words = _text(page, r'<section aria-labelledby="verdicts-title">.*?<p class="muted">(.*?)</p>')
    assert words.startswith("The tester records the outcome from the run and its evidence")
    assert "second reviewer" not in words.lower() and "without seeing it" not in words

    artb = Run.objects.filter(round__benchmark__slug="artb", round__status="published", verdicts__role="second")
    run = artb.select_related("round").first()
    page = client.get(f"/b/artb/r/{run.round.key}/runs/{run.key}/").content.decode()
    words = _text(page, r'<section aria-labelledby="verdicts-title">.*?<p class="muted">(.*?)</p>')
    assert "a second reviewer judges from the evidence alone" in words


# What each board's runs.csv description must say its median_run column marks, by benchmark.
MEDIAN_RUN = {
    "artb": "median_run is yes on the run that stands for its agent on its task (its counted run",
    "weekly-shootout": "median_run is yes on the run that stands for its agent on the week's task (its counted run)",
    "agentbench-live": "median_run is yes on the trial that stands for its agent on its task (its best trial)",
    "appbench": "median_run is yes on the agent's median run of each task",
}
# A figure each methodology's file holds and the others' do not fill.
HOLDS = {
    "artb": "pass, partial, fail, violation",
    "weekly-shootout": "interventions",
    "agentbench-live": "tests passed of total",
    "appbench": "checks passed of total",
}


def test_each_boards_runs_file_is_described_as_its_methodology_fills_it(demo, client):
    for slug in sorted(MEDIAN_RUN):
        page = client.get(f"/b/{slug}/").content.decode()
        said = _text(page, r'<span class="muted" id="runs-file-holds">(.*?)</span>')
        assert MEDIAN_RUN[slug] in said and HOLDS[slug] in said, said
        assert not any(HOLDS[other] in said for other in HOLDS if other != slug), said
        # The file holds what the description says: the run marked in median_run is one the board counts.
        rows = list(csv.DictReader(io.StringIO(client.get(f"/b/{slug}/download/runs.csv").content.decode())))
        marked = [r for r in rows if r["median_run"] == "yes"]
        assert marked and all(r["counted"] == "yes" for r in marked), slug
