"""A checks run's listed checks and the counts its score is read from agree (003: "The run page shows every
check and what it got"): an editor correcting one without the other in the admin is refused, and a bundle
saying two things is refused at import (tests/scoring/test_bundle_checks.py)."""

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
    # A to-spec run whose list has a failed API or page check.
    return next(
        r
        for r in Run.objects.filter(task__kind="to-spec", checks__kind__in=["api", "page"], checks__passed=False)
        .distinct()
        .order_by("key")
    )


def _form(client, run) -> dict[str, str]:
    return admin_form(client, f"/admin/runs/run/{run.pk}/change/")


def test_an_editor_cannot_change_a_count_without_the_check_it_counts(client, run):
    from runs.models import CheckResult, Run

    client.force_login(make_user("edna", "Editors"))
    before = (run.api_checks_passed, run.api_checks_total)
    data = _form(client, run)
    data["api_checks_passed"] = str(run.api_checks_passed + 1)
    data["change_reason"] = "The checker misread the cart check."
    response = client.post(f"/admin/runs/run/{run.pk}/change/", data)
    # Refused, saying what disagrees: the list still shows one fewer passed than the count would.
    assert response.status_code == 200
    page = response.content.decode()
    assert (
        f"lists {before[0]} of {before[1]} API and page checks passed, but api_checks_passed/api_checks_total say "
        f"{before[0] + 1} of {before[1]}" in page
    )
    assert (Run.objects.get(pk=run.pk).api_checks_passed, Run.objects.get(pk=run.pk).api_checks_total) == before

    # The count and the check it counts, changed together: saved.
    failed = run.checks.filter(kind__in=["api", "page"], passed=False).order_by("position", "id").first()
    index = next(i for i in range(len(run.checks.all())) if data.get(f"checks-{i}-id") == str(failed.pk))
    data[f"checks-{index}-passed"] = "on"
    response = client.post(f"/admin/runs/run/{run.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Run.objects.get(pk=run.pk).api_checks_passed == before[0] + 1
    assert CheckResult.objects.get(pk=failed.pk).passed is True
