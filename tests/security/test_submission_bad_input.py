"""What no τ² submission can hold, sent from outside with an organization's submission key: numbers JSON has not
(NaN, Infinity, 1e999), text the database cannot store (a NUL, a lone surrogate), nesting 200,000 deep, fields
of the wrong kind (`max_steps: "999"`, `seed: {...}`, `agent_info.llm: ["x"]`), a start time no clock can hold.
Each is answered 422 naming the file and the field, and nothing is stored. A zip that inflates to a large
document of tiny values is refused before it is held in memory."""

from __future__ import annotations

import io
import json
import logging
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from runs.models import Run
from submissions.models import Submission
from tests.builders import tau2 as t

pytestmark = pytest.mark.django_db
URL = "/api/benchmarks/mini-tau/submissions"
MARK = "__MARK__"


@pytest.fixture(autouse=True)
def _quiet_errors():
    """A 500 would be logged with its traceback: the tests check the answer instead."""
    logging.getLogger("django.request").setLevel(logging.CRITICAL)
    yield
    logging.getLogger("django.request").setLevel(logging.NOTSET)


def _post(key: str, zipped: bytes):
    client = Client(raise_request_exception=False)
    upload = SimpleUploadedFile("submission.zip", zipped, content_type="application/zip")
    return client.post(URL, {"archive": upload, "agent": "a-agent"}, HTTP_AUTHORIZATION=f"Bearer {key}")


def _trajectory(place, raw: str) -> bytes:
    """The baseline's trajectory file with `raw` (JSON text, not necessarily valid) written where `place` puts
    the marker."""
    doc = t.results(t.baseline_sims())
    place(doc)
    return json.dumps(doc).replace(f'"{MARK}"', raw).encode()


def _set(*path):
    def place(doc):
        at = doc
        for part in path[:-1]:
            at = at[part]
        at[path[-1]] = MARK

    return place


DEEP = "[" * 200_000 + "]" * 200_000
CASES = [
    ("nan", _set("simulations", 0, "agent_cost"), "NaN", "simulations[0].agent_cost"),
    ("infinity", _set("simulations", 0, "agent_cost"), "-Infinity", "simulations[0].agent_cost"),
    ("1e999", _set("simulations", 1, "reward_info", "reward"), "1e999", "simulations[1].reward_info.reward"),
    ("nul", _set("simulations", 0, "messages", 0, "content"), '"a\\u0000b"', "simulations[0].messages[0].content"),
    ("surrogate", _set("simulations", 2, "messages", 0, "content"), '"\\ud800"', "simulations[2].messages[0].content"),
    ("deep", _set("simulations", 0, "messages", 1, "tool_calls", 0, "arguments"), DEEP, "simulations[0].messages[1]"),
    ("max_steps text", _set("info", "max_steps"), '"999"', "info.max_steps"),
    ("max_steps list", _set("info", "max_steps"), "[1]", "info.max_steps"),
    ("seed object", _set("simulations", 0, "seed"), '{"a": 1}', "simulations[0].seed"),
    ("llm list", _set("info", "agent_info", "llm"), '["x"]', "info.agent_info.llm"),
    ("year 1", _set("simulations", 0, "start_time"), '"0001-01-01T00:00:00+05:00"', "simulations[0].start_time"),
]


@pytest.mark.parametrize(("case", "place", "raw", "field"), CASES, ids=[c[0] for c in CASES])
def test_a_trajectory_file_no_field_can_hold_is_refused_naming_the_file_and_the_field(case, place, raw, field):
    w = t.mini_world()
    files = t.files()
    files["trajectories/mini.json"] = _trajectory(place, raw)
    answer = _post(w.key_a, t.zipped(files))
    assert answer.status_code == 422, (case, answer.status_code, answer.content[:300])
    (problem,) = answer.json()["problems"]
    assert problem.startswith(f"trajectories/mini.json: {field}"), (case, problem)
    assert not Submission.objects.exists() and not Run.objects.exists()


def test_a_claim_json_has_no_number_for_is_refused_naming_submission_json_and_the_field():
    w = t.mini_world()
    files = t.files()
    files["submission.json"] = json.dumps(t.claim(66.7)).replace("66.7", "NaN").encode()
    answer = _post(w.key_a, t.zipped(files))
    assert answer.status_code == 422
    assert answer.json()["problems"] == [
        "submission.json: results.mini.pass_1: not valid JSON (NaN is not a JSON number)"
    ]


def _bomb() -> bytes:
    """A zip of about 90 KB whose trajectory file inflates to about 90 MB of `[[],[],...]`."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("submission.json", json.dumps(t.DECLARED))
        z.writestr("trajectories/mini.json", b"[" + b"[]," * 30_000_000 + b"[]]")
    return out.getvalue()


def test_a_zip_inflating_to_90_mb_of_tiny_values_is_refused_within_100_mb():
    w = t.mini_world()
    bomb = _bomb()
    assert len(bomb) < 100_000
    tracemalloc.start()
    try:
        answer = _post(w.key_a, bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 422, answer.content[:300]
    (problem,) = answer.json()["problems"]
    assert problem.startswith("trajectories/mini.json: more than ") and "values" in problem
    assert peak < 100 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"
    assert not Submission.objects.exists()


def test_an_inspect_log_of_tiny_values_is_refused_before_inspect_reads_it(settings):
    # 15 MB of `[[],[],…]` as a .json log (the API takes 50 MB): counted, and refused, before it is parsed.
    w = t.mini_world()
    w.track.formats = ["tau2", "bundle", "inspect"]
    w.track.save()
    log = SimpleUploadedFile("run.json", b"[" + b"[]," * 5_000_000 + b"[]]", content_type="application/json")
    tracemalloc.start()
    try:
        answer = Client().post(URL, {"logs": [log], "agent": "a-agent"}, HTTP_AUTHORIZATION=f"Bearer {w.key_a}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code == 422, answer.content[:300]
    assert answer.json()["problems"] == ["run.json: more than 1,500,000 values in the upload: too large to read"]
    assert peak < 100 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"
