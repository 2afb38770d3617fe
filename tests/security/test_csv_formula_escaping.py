"""Text from a bundle that a spreadsheet would run, downloaded as CSV by anyone: an agent named
`=HYPERLINK("http://x","y")`, a CLI starting with `+`, a model with `@`, a product version with `-`, a plan with
a tab. Every CSV download writes such a cell with a leading `'` (text, not a formula); numbers stay numbers, a
negative one included; and the JSON bundle, which `recount` reads, keeps the names as they are, so a recount of
the download still equals the site."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client

from bundles.importer import bundle_import
from recompute.boards import snapshot_recompute, snapshots_sweep
from scoring.recount import recount
from snapshots.models import BoardSnapshot
from tests.security.test_upload_key_scope import _run, published_doc

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://x","y")'
ENTRY = {"cli": "+cmd|' /C calc'!A0", "model": "@SUM(1+1)", "product_version": "-2+3"}


def hostile_doc() -> dict:
    """Benchmark "sb" with its published round r1, where the agent "alpha" is named with a formula and entered
    with formula-like conditions; its run a1 has a plan starting with a tab."""
    doc = published_doc()
    doc["agents"][0]["name"] = FORMULA
    doc["rounds"][0]["entries"] = [{"agent": "alpha", **ENTRY}]
    doc["runs"][0].update(plan_label="\t=1+1")
    doc["runs"].append(_run("a3", "r1", "alpha", "t1", 5))
    return doc


@pytest.fixture
def world():
    bundle_import(doc=hostile_doc())
    snapshots_sweep(older_than_seconds=0)
    for snapshot_id in BoardSnapshot.objects.values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)


def download(url: str) -> list[dict[str, str]]:
    response = Client().get(url)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))


def test_runs_csv_writes_formula_like_text_as_text(world):
    rows = download("/b/sb/download/runs.csv")
    assert rows and {r["agent_name"] for r in rows} == {"'" + FORMULA}
    for row in rows:
        assert (row["cli"], row["model"], row["product_version"]) == tuple("'" + v for v in ENTRY.values())
    by_run = {r["run"]: r for r in rows}
    assert by_run["a1"]["plan_label"] == "'\t=1+1"
    assert by_run["a2"]["plan_label"] == ""


def test_a_negative_number_stays_a_number():
    # No public column holds a negative number today (outcome points are floored at 0), so the rule is shown on
    # the one writer every download goes through: numbers, and text that is a number (a Decimal written out),
    # are left as they are; text that only starts like one is escaped.
    from decimal import Decimal

    from pages.downloads import csv_response

    cells = [-0.5, "-0.5", Decimal("-0.5"), "-2", "+1e-3", -2, "-", "-1+1", "-0.5x", "@", "=1", "\r1", "plain"]
    (row,) = csv.reader(io.StringIO(csv_response("x", [cells]).content.decode(), newline=""))
    assert row == ["-0.5", "-0.5", "-0.5", "-2", "+1e-3", "-2", "'-", "'-1+1", "'-0.5x", "'@", "'=1", "'\r1", "plain"]
    assert [float(v) for v in row[:6]] == [-0.5, -0.5, -0.5, -2, 0.001, -2]


def test_a_carriage_return_in_a_name_stays_inside_its_cell(world):
    doc = hostile_doc()
    doc["agents"][0]["name"] = "Alpha\r=1+1"
    bundle_import(doc=doc, update_shared=True)
    rows = download("/b/sb/download/runs.csv")
    assert {r["agent_name"] for r in rows} == {"Alpha\r=1+1"}
    assert {r["run"] for r in rows} == {"a1", "a2", "a3"}


def test_board_csv_writes_the_agents_name_as_text(world):
    rows = download("/b/sb/r/r1/board.csv")
    assert [r["agent_name"] for r in rows] == ["'" + FORMULA]
    assert rows[0]["agent"] == "alpha"
    assert (rows[0]["cli"], rows[0]["model"]) == ("'" + ENTRY["cli"], "'" + ENTRY["model"])


def test_the_bundle_keeps_the_name_and_its_recount_equals_the_site(world):
    doc = json.loads(Client().get("/b/sb/download/bundle.json").content)
    assert doc["agents"][0]["name"] == FORMULA  # JSON carries the text as it is: nothing to unescape
    counted = recount(doc)
    published = {s.round.key: s.data for s in BoardSnapshot.objects.filter(kind="boards", round__status="published")}
    assert {r["round"]: r["boards"] for r in counted["rounds"]} == published
