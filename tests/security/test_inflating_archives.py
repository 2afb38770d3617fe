"""Archives that inflate far past their size, sent from outside: an Inspect `.eval` log (a zip) through the
upload API, `manage.py import_inspect` and the admin's import page, and an app build's zip in the admin. Each is
refused before it is read whole (413 from the API, a clear error elsewhere), by the bytes it actually inflates
to, whatever its headers declare, and nothing is stored. The limits are lowered here so that the test's zips
stay small; memory is not measured."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from html import unescape
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

import bundles.inspect_logs  # noqa: F401  (Inspect's import teaches zipfile zstandard, the method .eval logs use)
from leaderboard.api_keys import api_key_create
from leaderboard.models import Benchmark, Round, Task
from runs.models import AppBuild, Run
from tests.builders.review import make_user
from tests.builders.voting import build_world

pytestmark = pytest.mark.django_db

QUIZ = Path(__file__).resolve().parents[2] / "fixtures" / "inspect-quiz.eval"
ZSTANDARD = 93
LIMITS = {"INSPECT_LOG_MAX_ENTRY_BYTES": 100_000, "INSPECT_LOG_MAX_BYTES": 400_000}
PADDING = 2_000_000  # spaces after a sample's JSON: still the same JSON, 20 times the entry limit


def _log(pad: dict[str, int], *, declare_small: bool = False) -> bytes:
    """The fixture quiz log, rewritten with `pad[name]` spaces after the JSON of each entry named (compressed as
    Inspect compresses, to a few kilobytes); with `declare_small`, the headers of every padded entry declare its
    original size, as a hostile zip tool would leave them."""
    out = io.BytesIO()
    with zipfile.ZipFile(QUIZ) as src, zipfile.ZipFile(out, "w", compression=ZSTANDARD) as dst:
        sizes = {}
        for info in src.infolist():
            data = src.read(info)
            sizes[info.filename] = len(data)
            dst.writestr(info.filename, data + b" " * pad.get(info.filename, 0))
    raw = bytearray(out.getvalue())
    if declare_small:
        for name in pad:
            encoded = name.encode()
            for sig, at_size, at_name in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
                at = raw.find(sig)
                while at >= 0:
                    if raw[at + at_name : at + at_name + len(encoded)] == encoded:
                        struct.pack_into("<I", raw, at + at_size, sizes[name])
                    at = raw.find(sig, at + 1)
    return bytes(raw)


def _samples() -> list[str]:
    with zipfile.ZipFile(QUIZ) as z:
        return [n for n in z.namelist() if n.startswith("samples/")]


def _padded_to(total: int) -> dict[str, int]:
    """Padding that makes every sample `total` bytes inflated."""
    with zipfile.ZipFile(QUIZ) as z:
        return {n: total - z.getinfo(n).file_size for n in _samples()}


BOMBS = {
    "one sample inflates past the entry limit": lambda: _log({_samples()[0]: PADDING}),
    "its headers declare the size it had": lambda: _log({_samples()[0]: PADDING}, declare_small=True),
    # Six samples of 90,000 bytes: each under the entry limit, together over the whole log's.
    "every sample just under, together over": lambda: _log(_padded_to(90_000), declare_small=True),
}


@pytest.fixture
def key() -> str:
    bench = Benchmark.objects.create(slug="sbench", name="S", methodology="scored")
    return api_key_create(name="CI", benchmark=bench)[1]


def _upload(data: bytes, key: str):
    log = SimpleUploadedFile("quiz.eval", data, content_type="application/octet-stream")
    return Client().post(
        "/api/benchmarks/sbench/inspect", {"logs": [log], "round": "r1"}, HTTP_AUTHORIZATION=f"Bearer {key}"
    )


def _nothing_stored() -> None:
    assert Round.objects.count() == 0 and Run.objects.count() == 0 and Task.objects.count() == 0


@pytest.mark.parametrize("case", list(BOMBS))
def test_it_answers_413_to_an_uploaded_log_that_inflates_past_the_limit_and_stores_nothing(key, case):
    bomb = BOMBS[case]()
    assert len(bomb) < 60_000  # the body is small: only what it inflates to is over
    with override_settings(**LIMITS):
        response = _upload(bomb, key)
    assert response.status_code == 413, response.content
    detail = response.json()["detail"]
    assert detail.startswith("quiz.eval: ") and "it was not read" in detail
    setting = "INSPECT_LOG_MAX_BYTES" if case.startswith("every") else "INSPECT_LOG_MAX_ENTRY_BYTES"
    assert setting in detail
    _nothing_stored()


def test_it_still_imports_a_log_within_the_limits(key):
    # The same padding, under limits that allow it: the log is counted, then read by Inspect as before.
    with override_settings(INSPECT_LOG_MAX_ENTRY_BYTES=3_000_000, INSPECT_LOG_MAX_BYTES=10_000_000):
        response = _upload(_log({_samples()[0]: PADDING}), key)
    assert response.status_code == 200, response.content
    assert response.json()["created"]["runs"] == 6


def test_it_refuses_the_import_command_a_log_that_inflates_past_the_limit(tmp_path, capsys):
    path = tmp_path / "quiz.eval"
    path.write_bytes(BOMBS["its headers declare the size it had"]())
    with override_settings(**LIMITS), pytest.raises(CommandError, match="nothing was written"):
        call_command("import_inspect", str(path), "--benchmark", "sbench", "--round", "r1")
    err = capsys.readouterr().err
    assert "quiz.eval: " in err and "INSPECT_LOG_MAX_ENTRY_BYTES" in err
    _nothing_stored()
    assert not Benchmark.objects.exists()


def test_it_shows_the_editor_why_a_log_that_inflates_past_the_limit_is_refused_on_the_import_page():
    bench = Benchmark.objects.create(slug="sbench", name="S", methodology="scored")
    client = Client()
    client.force_login(make_user("edna", "Editors"))
    log = SimpleUploadedFile("quiz.eval", BOMBS["one sample inflates past the entry limit"]())
    with override_settings(**LIMITS):
        response = client.post(
            f"/admin/leaderboard/benchmark/{bench.pk}/import/",
            {"kind": "inspect", "files": [log], "round": "r1"},
            follow=True,
        )
    shown = [str(m) for m in response.context["messages"]]
    assert "1 problem(s); nothing was written." in shown
    assert any(m.startswith("quiz.eval: ") and "INSPECT_LOG_MAX_ENTRY_BYTES" in m for m in shown), shown
    _nothing_stored()


def _build_zip(asset: bytes, method: int, declared: int | None = None) -> io.BytesIO:
    """A build of index.html and app.js (`asset`, compressed with `method`); `declared`: the size both of
    app.js's headers give instead of its own."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        z.writestr("index.html", b"<!doctype html><p>app</p>", compress_type=zipfile.ZIP_STORED)
        z.writestr("app.js", asset)
    raw = bytearray(buf.getvalue())
    if declared is not None:
        for sig, at_size, at_name in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
            at = raw.find(sig)
            while at >= 0:
                if raw[at + at_name : at + at_name + 6] == b"app.js":
                    struct.pack_into("<I", raw, at + at_size, declared)
                at = raw.find(sig, at + 1)
    upload = io.BytesIO(bytes(raw))
    upload.name = "build.zip"
    return upload


@pytest.mark.parametrize(
    "case, upload, message",
    [
        (
            # Read no further than the headers say, the data does not match its checksum.
            "deflate, headers declaring 10 bytes",
            lambda: _build_zip(b"0" * 3_000_000, zipfile.ZIP_DEFLATED, declared=10),
            "'app.js': damaged (Bad CRC-32",
        ),
        (
            "bzip2 (inflated a whole read at once)",
            lambda: _build_zip(b"0" * 3_000_000, zipfile.ZIP_BZIP2, declared=10),
            "'app.js': compressed in a way that cannot be read (bzip2); use deflate or none",
        ),
        (
            "zstandard (inflated a whole read at once)",
            lambda: _build_zip(b"0" * 3_000_000, ZSTANDARD, declared=10),
            "'app.js': compressed in a way that cannot be read (zstandard); use deflate or none",
        ),
    ],
)
def test_it_refuses_an_app_build_zip_by_what_it_inflates_to_or_its_method_and_stores_nothing(case, upload, message):
    world = build_world(tasks=("todo-app",), trials=1)
    client = Client()
    client.force_login(make_user("edna", "Editors"))
    with override_settings(APP_BUILD_MAX_BYTES=100_000):
        response = client.post(reverse("admin:runs_appbuild_add"), {"run": world.runs[0].pk, "upload": upload()})
    assert response.status_code == 200
    errors = re.search(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)
    assert errors and message in unescape(errors.group(1)), errors and errors.group(1)
    assert not AppBuild.objects.exists()
