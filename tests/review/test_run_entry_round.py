"""A run's round is its entry's round (runs migration 0002 guards it in PostgreSQL): an editor who moves a run to
an entry of another round in the admin is told so on the form, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.builders.admin import admin_form
from tests.builders.review import make_user

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(settings, tmp_path):
    from bundles.importer import bundle_import
    from runs.models import Run

    settings.MEDIA_ROOT = tmp_path / "media"
    doc = json.loads((ROOT / "fixtures" / "appbench.json").read_text())
    doc["votes"] = []
    bundle_import(doc=doc, folder=ROOT / "fixtures")
    return Run.objects.select_related("entry").order_by("key").first()


def test_an_editor_moving_a_run_to_another_rounds_entry_is_told_and_nothing_is_written(client, run):
    from leaderboard.models import Entry, Round
    from runs.models import Run

    other_round = Round.objects.create(benchmark=run.round.benchmark, key="later", name="Later")
    elsewhere = Entry.objects.create(
        round=other_round, agent=run.entry.agent, product_version=run.entry.product_version
    )
    client.force_login(make_user("edna", "Editors"))
    data = admin_form(client, f"/admin/runs/run/{run.pk}/change/")
    data["entry"] = str(elsewhere.pk)
    data["change_reason"] = "Filed under the wrong round."
    response = client.post(f"/admin/runs/run/{run.pk}/change/", data)
    assert response.status_code == 200
    assert f"Run {run.key}: its entry is in another round than the run." in response.content.decode()
    assert Run.objects.get(pk=run.pk).entry_id == run.entry_id
