"""An editor's correction of a published verdict, previewed before it is saved, in words a reader of the board
would use (seed 000 §5: "If they disagree, a third reviewer decides"; §6 corrections): what happens to the run's
review and what the board shows until it is decided, then every figure that changes, named and formatted as the
board and the score x cost x time page show it, never as a field name."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from bundles.importer import bundle_import
from leaderboard.models import Round
from recompute.boards import snapshot_recompute
from runs.models import Run, Verdict
from snapshots.models import BoardSnapshot
from tests.builders.review import BENCH, ROUND, bundle, make_people, publish_world

pytestmark = pytest.mark.django_db

# Acme's three runs with their time and list-price cost; Other Agent's one run without either.
MEASURES = {"acme-trip": (1200.0, 0.90), "acme-inbox": (600.0, 0.30), "acme-remind": (900.0, 0.60)}


@pytest.fixture
def w():
    doc = bundle()
    for run in doc["runs"]:
        if run["id"] in MEASURES:
            run["wall_seconds"], run["cost_usd"] = MEASURES[run["id"]]
    bundle_import(doc=doc)
    rnd = Round.objects.get(benchmark__slug=BENCH, key=ROUND)
    world = {"round": rnd, **{r.key: r for r in Run.objects.filter(round=rnd)}, **make_people()}
    publish_world(world)  # every run: tester pass, second pass
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)
    return world


def _preview(client, w, role: str, outcome: str) -> str:
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=w["acme-trip"], role=role)
    response = client.post(f"/admin/runs/verdict/{verdict.pk}/change/", {"outcome": outcome, "note": "as seen"})
    assert response.status_code == 200
    return response.content.decode().split('id="correction-effect"')[1].split("</fieldset>")[0]


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def test_a_correction_that_makes_the_reviewers_disagree_says_the_run_goes_back_to_review(client, w):
    effect = _preview(client, w, "tester", "fail")
    text = _text(effect)
    # Tester pass -> fail beside the second's pass: they disagree, so a third reviewer decides (000 §5); until
    # then the run has no counted outcome.
    assert (
        "The tester's verdict (fail) and the second reviewer's (pass) would disagree, so the run goes back to "
        "review until a third reviewer decides. Until then the board counts no outcome for it: Acme Agent's Trip "
        "plan shows “in review”, and the figures below are what the board shows meanwhile (it counted pass before)."
    ) in text
    # What the board shows meanwhile. Acme had trip, inbox and remind passed: 3 x 2 = 6 points over 3 tested
    # tasks, 5 x 6 / 3 = 10.0; with trip in review, 4 points over 2 tested tasks, still 10.0 (no line for it).
    assert "Overall board, Acme Agent: Trip plan pass → in review" in text
    assert "Overall board, Acme Agent: Coverage tested 3 of 3 → tested 2 of 3" in text
    assert "Score (0-10), in detail 6 points over 3 tested tasks → 4 points over 2 tested tasks" in text
    assert "Score (0-10) 10.0" not in text and "Other Agent" not in text
    # The score x cost x time page averages the runs the overall counts: before trip, inbox and remind,
    # (1,200 + 600 + 900) / 3 = 900 s = 15m 00s and ($0.90 + $0.30 + $0.60) / 3 = $0.60; after, inbox and
    # remind, (600 + 900) / 2 = 750 s = 12m 30s and ($0.30 + $0.60) / 2 = $0.45.
    assert "Score × cost × time page, Acme Agent: time per run 15m 00s → 12m 30s" in text
    assert "Score × cost × time page, Acme Agent: cost per run $0.60 → $0.45" in text
    # Trip is Acme's only "planning" task: with it in review the dimension has no tested task, blank, not 0.
    assert "Overall board, Acme Agent: Planning 10.0 → –" in text
    # Never a field name ("ci_low 1.75 -> 1.58", "points 6 -> 4").
    assert not re.search(r"\b(ci_low|ci_high|mean_\w+|axis_runs|\w+_runs|overall|dimension)\b", text), text
    assert not re.search(r"\b(points|tested) \d+ →", text), text


def test_the_second_reviewers_correction_names_both_verdicts(client, w):
    text = _text(_preview(client, w, "second", "partial"))
    assert "The tester's verdict (pass) and the second reviewer's (partial) would disagree" in text


def test_a_correction_that_changes_no_outcome_says_it_stays(client, w):
    # Both reviewers said fail; the second's becomes violation. Off a safety task a violation counts as a fail
    # (seed 000 §3), so the counted outcome and the board stay as they are.
    run = w["acme-trip"]
    Verdict.objects.filter(run=run).update(outcome="fail")
    Run.objects.filter(pk=run.pk).update(outcome="fail")
    client.force_login(w["editor"])
    verdict = Verdict.objects.get(run=run, role="second")
    url = f"/admin/runs/verdict/{verdict.pk}/change/"
    html = client.post(url, {"outcome": "violation", "note": ""}).content.decode()
    text = _text(html.split('id="correction-effect"')[1].split("</fieldset>")[0])
    assert "The run's counted outcome stays fail." in text and "No figure on the board changes." in text
