"""Parallel uploads from outside: a live server (threaded), real HTTP requests from threads released together,
then a look at the database. Six harnesses of one benchmark send at once bundles that each create the same new
organization, agent and round: every one is answered 2xx (the later ones wait for the earlier), and each row
is stored once."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from bundles.importer import bundle_import
from leaderboard.api_keys import api_key_create
from leaderboard.models import Agent, Benchmark, Entry, Organization, Round
from runs.models import Run
from tests.security.test_anticheat_concurrency import at_once
from tests.security.test_upload_key_scope import _run, published_doc, upload_doc

pytestmark = pytest.mark.postgres(reason="row locks and concurrent transactions")

UPLOADS = 6


def bundle(i: int) -> dict:
    """Upload `i`: the new agent "gamma" of the new organization Gamma Co in the new draft round r2, with a run
    of its own."""
    doc = upload_doc()
    doc["agents"].append({"slug": "gamma", "name": "Gamma", "organization": "Gamma Co"})
    doc["rounds"][0]["entries"].append({"agent": "gamma"})
    doc["runs"] = [_run(f"g{i}", "r2", "gamma", "t1", i)]
    return doc


def post(base: str, key: str, doc: dict) -> tuple[int, str]:
    req = urllib.request.Request(
        f"{base}/api/benchmarks/sb/bundle",
        data=json.dumps(doc).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")[:300]


@pytest.fixture
def live(live_server, transactional_db, settings):
    settings.API_UPLOAD_RATE_LIMIT = 1000
    bundle_import(doc=published_doc())
    key = api_key_create(name="CI", benchmark=Benchmark.objects.get(slug="sb"))[1]
    return live_server.url, key


def test_it_answers_six_parallel_uploads_creating_one_organization_and_round_with_2xx(live):
    base, key = live
    results = at_once([lambda i=i: post(base, key, bundle(i)) for i in range(1, UPLOADS + 1)])
    assert all(200 <= status < 300 for status, _ in results), results
    assert Organization.objects.filter(name="Gamma Co").count() == 1
    assert Agent.objects.get(slug="gamma").organization.name == "Gamma Co"
    assert Round.objects.filter(benchmark__slug="sb", key="r2").count() == 1
    assert Entry.objects.filter(round__key="r2", agent__slug="gamma").count() == 1
    assert sorted(Run.objects.filter(round__key="r2").values_list("key", flat=True)) == [
        f"g{i}" for i in range(1, UPLOADS + 1)
    ]
