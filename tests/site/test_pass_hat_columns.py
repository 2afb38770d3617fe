"""pass^k beside any-of-k on a scored board whose tasks have several trials, as a reader sees the columns (the
unbiased at-least-one-of-k figure is not called pass@k: that name is 002's share of passing trials)."""

from __future__ import annotations

import re

import pytest

from tests.builders.site import scored_bundle

pytestmark = pytest.mark.django_db


def _several_trials() -> dict:
    """One family "fam" of three tasks A, B, C, scored as given (a reward: 1 passes, 0 fails). Agent Rel ran A
    four times, all passing, and B four times, two passing and two failing; it never ran C."""
    doc = scored_bundle("pk")
    doc["agents"] = [{"slug": "rel", "name": "Rel", "primary_language": "en", "languages": ["en"]}]
    doc["tasks"] = [{**doc["tasks"][0], "key": k, "title": k, "family": "fam"} for k in ("a", "b", "c")]
    doc["rounds"][0]["entries"] = [{"agent": "rel"}]
    doc["rounds"][0]["tasks"] = ["a", "b", "c"]  # the round's task set: C is in it, though no one ran it
    passes = {"a": [1.0, 1.0, 1.0, 1.0], "b": [1.0, 0.0, 1.0, 0.0]}
    doc["runs"] = [
        {
            "id": f"rel-{task}-{trial}",
            "round": "r1",
            "agent": "rel",
            "task": task,
            "task_version": "1.0",
            "trial": trial,
            "status": "completed",
            "score": passed,
        }
        for task, results in passes.items()
        for trial, passed in enumerate(results, start=1)
    ]
    return doc


def _cells(html: str) -> dict[str, str]:
    row = html[html.index('<tr data-agent="rel"') :]
    row = row[: row.index("</tr>")]
    return {
        label: text.strip() for label, text in re.findall(r'data-label="([^"]+)"[^>]*>\s*(?:<a [^>]*>)?([^<]*)<', row)
    }


def test_pass_hat_and_unbiased_pass_at_k_per_family_over_its_own_tasks(load, client):
    load(_several_trials())
    cells = _cells(client.get("/b/pk/").content.decode())
    # Per task (n trials, c passing): A (4, 4), B (4, 2), C no runs (counts 0); the mean is over A, B and C.
    # pass^1 = (4/4 + 2/4 + 0) / 3 = 1/2 = 50.0%.
    assert cells["fam pass^1"] == "50.0%"
    # pass^2 = (C(4,2)/C(4,2) + C(2,2)/C(4,2) + 0) / 3 = (1 + 1/6) / 3 = 7/18 = 38.9%.
    assert cells["fam pass^2"] == "38.9%"
    # pass^3 = (1 + C(2,3)/C(4,3) + 0) / 3 = (1 + 0) / 3 = 33.3%; pass^4 likewise 33.3%.
    assert cells["fam pass^3"] == "33.3%" and cells["fam pass^4"] == "33.3%"
    # any-of-2 = (1 + (1 - C(2,2)/C(4,2)) + 0) / 3 = (1 + 5/6) / 3 = 11/18 = 61.1%; any-of-4 = (1 + 1 + 0) / 3 =
    # 66.7%.
    assert cells["fam any-of-2"] == "61.1%" and cells["fam any-of-4"] == "66.7%"
    assert "fam any-of-1" not in cells  # any-of-1 is pass^1
    assert not any("pass@" in label for label in cells if label.startswith("fam "))


def test_a_board_with_one_trial_per_task_has_no_pass_hat_columns(load, client):
    doc = _several_trials()
    doc["benchmark"]["slug"] = "one"
    doc["runs"] = [r for r in doc["runs"] if r["trial"] == 1]
    load(doc)
    html = client.get("/b/one/").content.decode()
    assert "pass^" not in html and "any-of-2" not in html


def test_runs_scored_by_their_tests_have_pass_hat_too(load, client):
    """Seed 002, auto evaluation: "Score = tests_passed / tests_total"; a run passes at score >= 0.80. The same
    trials as above, but each run carries test counts and no stored score: 10/10 tests (score 1.0, passes) or
    7/10 (0.7, under 0.80, fails). The figures are the hand-worked ones above."""
    doc = _several_trials()
    doc["benchmark"]["slug"] = "tests"
    for run in doc["runs"]:
        passed = run.pop("score") == 1.0
        run["tests_passed"], run["tests_total"] = (10 if passed else 7), 10
    load(doc)
    cells = _cells(client.get("/b/tests/").content.decode())
    # A (4 trials, 4 pass), B (4, 2), C none: pass^1 = (1 + 1/2 + 0) / 3 = 50.0%; pass^2 = (1 + 1/6) / 3 = 38.9%.
    assert cells["fam pass^1"] == "50.0%"
    assert cells["fam pass^2"] == "38.9%"
    # any-of-2 = (1 + 5/6 + 0) / 3 = 61.1%.
    assert cells["fam any-of-2"] == "61.1%"
