"""What a run page says beyond its score (issue #29): the AgentBench-Live judge's criteria by name, its narrative
and the heuristic fallback; numbers as numbers; and a bundle's marks on the recording, as links that open it at
that second. None of it feeds a board."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Benchmark
from runs.models import Run
from scoring.bundle import BundleError
from tests.builders.site import outcomes_bundle
from tests.site.conftest import compute_all

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "agentbench-live.json"


@pytest.fixture
def load():
    def _load(doc: dict) -> None:
        bundle_import(doc=doc)
        compute_all()

    return _load


@pytest.fixture
def abl(load):
    load(json.loads(FIXTURE.read_text()))


def test_an_agentbench_live_run_shows_each_criterion_the_narrative_and_no_float_noise(abl, client):
    # The published row of claude-code on data-002 in the 2026-03-19 files carries three criteria.
    run = next(r for r in Run.objects.filter(judge__isnull=False) if (r.judge or {}).get("criteria"))
    html = client.get(f"/b/agentbench-live/r/{run.round.key}/runs/{run.key}/").content.decode()
    table = re.search(r'<table id="judge-criteria">(.*?)</table>', html, re.S).group(1)
    for c in run.judge["criteria"]:
        assert f'<th scope="row" class="plain">{c["name"]}</th><td class="num">{c["score"]:g}</td>' in table
    assert "judge-narrative" in html


def test_a_fallback_row_says_the_judge_was_unavailable(abl, client):
    run = next(r for r in Run.objects.filter(judge__isnull=False) if r.judge.get("fallback"))
    html = client.get(f"/b/agentbench-live/r/{run.round.key}/runs/{run.key}/").content.decode()
    assert "The LLM judge was unavailable" in html
    assert "LLM judge unavailable; scored by output presence" in html or run.judge["narrative"] in html


def test_no_agentbench_live_page_shows_float_noise(abl, client):
    # 0.1 + 0.2 style noise ("0.30000000000000004") on any run page of the benchmark.
    noise = re.compile(r"\d\.\d*0000000\d|\d\.\d*9999999\d")
    for run in Run.objects.all():
        html = client.get(f"/b/agentbench-live/r/{run.round.key}/runs/{run.key}/").content.decode()
        assert not noise.search(html), (run.key, noise.search(html).group(0))


def _with_marks(marks) -> dict:
    doc = outcomes_bundle(slug="mbench")
    doc["runs"][0]["marks"] = marks
    return doc


def test_marks_link_to_the_recording_at_their_second(load, client):
    # ayla-flights has a recording at https://media.example.org/ayla-flights.mp4; 754 s is 12m 34s.
    load(
        _with_marks(
            [{"at_seconds": 754, "label": "intervention: cleared a login"}, {"at_seconds": 5, "label": "start"}]
        )
    )
    html = client.get("/b/mbench/r/r1/runs/ayla-flights/").content.decode()
    marks = re.search(r'<ol class="marks">(.*?)</ol>', html, re.S).group(1)
    assert re.findall(r'<a href="([^"]+)">([^<]+)</a> ([^<]+)</li>', marks) == [
        ("https://media.example.org/ayla-flights.mp4#t=5", "5s", "start"),
        ("https://media.example.org/ayla-flights.mp4#t=754", "12m 34s", "intervention: cleared a login"),
    ]


def test_marks_round_trip_through_the_public_download_and_change_no_board(load):
    load(_with_marks([{"at_seconds": 754, "label": "intervention: cleared a login"}]))
    bench = Benchmark.objects.get(slug="mbench")
    doc = bundle_export(benchmark=bench)
    run = next(r for r in doc["runs"] if r["id"] == "ayla-flights")
    assert run["marks"] == [{"at_seconds": 754, "label": "intervention: cleared a login"}]
    plain = copy.deepcopy(doc)
    for r in plain["runs"]:
        r.pop("marks", None)
    out_with, out_without = io.StringIO(), io.StringIO()
    for d, out in ((doc, out_with), (plain, out_without)):
        path = Path(f"/tmp/marks-{id(d)}.json")
        path.write_text(json.dumps(d))
        call_command("recount", str(path), stdout=out)
    assert out_with.getvalue() == out_without.getvalue()


@pytest.mark.parametrize(
    "marks, where",
    [
        ([{"at_seconds": -1, "label": "x"}], "marks[0].at_seconds"),
        ([{"at_seconds": "soon", "label": "x"}], "marks[0].at_seconds"),
        ([{"at_seconds": 3, "label": ""}], "marks[0].label"),
        ({"at_seconds": 3}, "marks"),
    ],
)
def test_bad_marks_are_refused_and_nothing_is_written(marks, where):
    with pytest.raises(BundleError) as refused:
        bundle_import(doc=_with_marks(marks))
    assert any(where in p for p in refused.value.problems), refused.value.problems
    assert not Run.objects.exists()


def test_the_demo_weekly_and_artb_runs_have_marks():
    for name in ("weekly.json", "artb.json"):
        doc = json.loads((FIXTURE.parent / name).read_text())
        assert any(r.get("marks") for r in doc["runs"]), name
