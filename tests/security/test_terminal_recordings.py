"""A terminal recording sent with Terminal-Bench runs, from outside: kept as the run's evidence and served as every
evidence file is (sandboxed, never sniffed, a download), within the evidence file limit; a recording that is no
asciicast is refused naming the file and the line, and nothing is written. Only the run page lets WebAssembly
compile (asciinema's player); no page allows JavaScript's eval."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Organization
from runs.models import Evidence, Run
from submissions.models import Submission
from tests.builders import tbench as tb

pytestmark = pytest.mark.django_db
CAST_PATH = "run-1/alpha/alpha.1-of-1.run-1/sessions/agent.cast"


@pytest.fixture
def key(tmp_path):
    ids = tmp_path / "ids.json"
    ids.write_text(json.dumps(list(tb.TASKS)))
    call_command(
        "import_tbench_tasks", str(ids), benchmark="toy", dataset=tb.DATASET, version=tb.VERSION, stdout=StringIO()
    )
    call_command("open_submission_track", benchmark="toy", stdout=StringIO())
    org = Organization.objects.create(slug="acme", name="Acme")
    return api_key_create(name="Acme", benchmark=Benchmark.objects.get(slug="toy"), organization=org)[1]


def _send(key: str, files: dict[str, bytes]):
    upload = SimpleUploadedFile("runs.zip", tb.zipped(files), content_type="application/zip")
    return Client().post(
        "/api/benchmarks/toy/submissions", {"archive": upload, "agent_name": "Toy"}, HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def test_a_recording_is_served_sandboxed_as_a_download_and_only_the_run_page_compiles_webassembly(key):
    answer = _send(key, {**tb.folder(), CAST_PATH: tb.CAST})
    assert answer.status_code == 201, answer.content
    cast = Evidence.objects.get(kind="recording")
    served = Client().get(cast.href)
    assert served.status_code == 200 and b"".join(served.streaming_content) == tb.CAST
    assert served["Content-Security-Policy"] == "sandbox" and served["X-Content-Type-Options"] == "nosniff"
    assert served["Content-Type"] == "application/octet-stream" and served["Content-Disposition"].startswith(
        "attachment"
    )
    page = Client().get(cast.run.get_absolute_url())
    assert page.status_code == 200 and f'data-cast-src="{cast.href}"' in page.content.decode()
    policy = page["Content-Security-Policy"]
    assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "'unsafe-eval'" not in policy
    board = Client().get("/b/toy/")
    assert "wasm-unsafe-eval" not in board["Content-Security-Policy"]


def test_a_recording_over_the_evidence_limit_is_refused_and_nothing_is_written(key, settings):
    settings.EVIDENCE_FILE_MAX_BYTES = len(tb.CAST) - 1
    answer = _send(key, {**tb.folder(), CAST_PATH: tb.CAST})
    assert answer.status_code == 422
    assert answer.json()["problems"] == [
        f"{CAST_PATH}: the recording is {len(tb.CAST):,} bytes, over {len(tb.CAST) - 1:,}"
    ]
    assert not Submission.objects.exists() and not Run.objects.exists() and not Evidence.objects.exists()


def test_a_recording_that_is_no_asciicast_is_refused_naming_the_file_and_line(key):
    broken = tb.CAST + b'[3.0, "o"]\n'
    answer = _send(key, {**tb.folder(), CAST_PATH: broken})
    assert answer.status_code == 422
    assert answer.json()["problems"] == [f"{CAST_PATH}: line 6: an event is [seconds, code, text]"]
    assert not Submission.objects.exists() and not Evidence.objects.exists()
