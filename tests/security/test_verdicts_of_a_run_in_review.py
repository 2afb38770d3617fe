"""A run still in review in a published round (added after publication, or a re-run) keeps its review blind
(000 §5: the second reviewer scores "without seeing the first outcome"): no page, API answer, download, search
or changelog line shows a verdict, to the public or to the second reviewer, until the review is complete; then
all of them are published ("All three outcomes are published")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from recompute.boards import snapshot_recompute
from runs.models import Run
from runs.services import run_create, verdict_record
from runs.services.search import notes_index
from snapshots.models import BoardSnapshot
from tests.builders.review import BENCH, ROUND, make_people, make_world, publish_world

pytestmark = pytest.mark.django_db

LATE_NOTE = "Late-note: the booking page never loaded for the tester"


def _recompute():
    for snap_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)


def _everything_public(client, run) -> str:
    """What a visitor can read about the round: the run page and its JSON, the API's run and round, the runs
    CSV and bundle downloads, the changelog and a search for the note."""
    urls = [
        f"/b/{BENCH}/r/{ROUND}/runs/{run.key}/",
        f"/b/{BENCH}/r/{ROUND}/runs/{run.key}.json",
        f"/api/benchmarks/{BENCH}/runs/{ROUND}/{run.key}",
        f"/api/benchmarks/{BENCH}/rounds/{ROUND}",
        f"/b/{BENCH}/download/bundle.json",
        f"/b/{BENCH}/r/{ROUND}/changelog/",
        f"/b/{BENCH}/search/?q=booking+page+never+loaded",
    ]
    bodies = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        bodies.append(response.content.decode())
    return "\n".join(bodies)


def _published_with_a_late_run(key: str, trial: int) -> tuple[dict, Run]:
    """The review world, published, and a run an editor adds to its round afterwards (no verdict yet)."""
    w = {**make_world(), **make_people()}
    publish_world(w)
    model = Run.objects.filter(round=w["round"]).order_by("id").first()
    late = run_create(
        by=w["editor"],
        reason="A run the vendor asked for after publication.",
        key=key,
        round=w["round"],
        entry=model.entry,
        task=model.task,
        task_version=model.task_version,
        trial=trial,
        status="completed",
    )
    return w, late


def test_a_late_runs_first_verdict_stays_hidden_until_the_second_is_in(client, settings):
    settings.API_RATE_LIMIT = 0
    w, late = _published_with_a_late_run("late-run", trial=2)
    now = timezone.now() + timedelta(days=4)
    verdict_record(
        run=late, role="tester", reviewer=w["tester"], outcome="fail", note=LATE_NOTE, now=now, reason="Late run."
    )
    notes_index([late.pk])
    _recompute()

    # The public, and the second reviewer signed in, read no verdict of it: not the note, not the outcome.
    for who in (None, w["second"]):
        if who is not None:
            client.force_login(who)
        seen = _everything_public(client, late)
        assert "Late-note" not in seen
        assert "verdict added (fail)" not in seen and "Tester's verdict" not in seen
        # Nor whether the tester has judged at all: no changelog line for a verdict on a run still in review.
        assert "a verdict was recorded" not in seen and "Late run." not in seen
        if who is not None:
            admin = client.get(f"/admin/runs/run/{late.pk}/change/").content.decode()
            assert "Late-note" not in admin
            assert client.get(f"/api/benchmarks/{BENCH}/runs/{ROUND}/{late.key}").json()["verdicts"] == []
        client.logout()

    # The second reviewer agrees: the review is complete, and every verdict is published.
    verdict_record(run=late, role="second", reviewer=w["second"], outcome="fail", now=now, reason="Late run.")
    _recompute()
    seen = _everything_public(client, late)
    assert "Late-note" in seen
    assert "counted outcome: in review -&gt; fail" in seen or "counted outcome: in review -> fail" in seen
    roles = [v["role"] for v in client.get(f"/api/benchmarks/{BENCH}/runs/{ROUND}/{late.key}").json()["verdicts"]]
    assert roles == ["tester", "second"]


def test_an_imported_runs_label_beside_a_review_under_way_is_not_shown(client, settings):
    # A team's bundle often carries the tester's verdict as the run's `outcome` too. While the second review is
    # still to come, that label is the first outcome: no download, API answer or CSV shows it.
    import csv
    import io

    from bundles.export import bundle_export
    from bundles.importer import bundle_import

    settings.API_RATE_LIMIT = 0
    w = {**make_world(), **make_people()}
    publish_world(w)
    doc = bundle_export(benchmark=w["round"].benchmark, include_unpublished=True)
    model = next(r for r in doc["runs"] if r["agent"] == "acme-agent")
    late = {
        **model,
        "id": "late-imported",
        "trial": 2,
        "outcome": "fail",
        "verdicts": [{"role": "tester", "outcome": "fail", "note": "Late-note: imported"}],
    }
    doc["runs"].append(late)
    bundle_import(doc=doc)
    _recompute()
    api = client.get(f"/api/benchmarks/{BENCH}/runs/{ROUND}/late-imported").json()
    assert (api["outcome"], api["verdicts"]) == ("", [])
    page_json = client.get(f"/b/{BENCH}/r/{ROUND}/runs/late-imported.json").json()
    assert page_json["outcome"] is None and page_json["verdicts"] == []
    rows = csv.DictReader(io.StringIO(client.get(f"/b/{BENCH}/download/runs.csv").content.decode()))
    assert next(r for r in rows if r["run"] == "late-imported")["outcome"] == ""
    exported = client.get(f"/b/{BENCH}/download/bundle.json").json()
    run = next(r for r in exported["runs"] if r["id"] == "late-imported")
    assert (run["outcome"], run["verdicts"]) == (None, [])

    # The second reviewer disagrees: still in review, as it was. The board never counted the label, so the
    # changelog says nothing (a line "counted outcome: fail -> in review" would give the label away).
    stored = Run.objects.get(key="late-imported")
    verdict_record(
        run=stored,
        role="second",
        reviewer=w["second"],
        outcome="pass",
        now=timezone.now() + timedelta(days=4),
        reason="Late.",
    )
    changelog = client.get(f"/b/{BENCH}/r/{ROUND}/changelog/").content.decode()
    assert "a verdict was" not in changelog and "fail -&gt; in review" not in changelog
    assert "verdict added" not in changelog


def test_an_editor_who_reviewed_a_late_run_reads_no_other_verdict_of_it_until_it_is_decided(settings):
    from runs.selectors import visible_verdicts

    w, late = _published_with_a_late_run("late-editor", trial=3)
    now = timezone.now() + timedelta(days=4)
    verdict_record(run=late, role="tester", reviewer=w["tester"], outcome="pass", note="n", now=now, reason="Late.")
    verdict_record(run=late, role="second", reviewer=w["editor"], outcome="fail", now=now, reason="Late.")
    # They disagree and wait for a third: the editor, who gave the second verdict, sees only their own.
    seen = visible_verdicts(w["editor"], late.verdicts.all())
    assert sorted(v.role for v in seen) == ["second"]
