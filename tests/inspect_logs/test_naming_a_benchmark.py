"""From an Inspect log to a board a team would show: the new benchmark is named by `import_inspect --title
--description` (and the command says how when it was not), the board shows that name and line, and a command
run with no configuration prints only what it has to say (no broker warning on every command)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.inspect_logs.conftest import publish

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _import(*args: str) -> str:
    out = io.StringIO()
    call_command("import_inspect", *args, "--benchmark", "quiz", "--round", "r1", stdout=out)
    return out.getvalue()


def test_a_new_benchmark_is_named_on_the_command_line_and_its_board_shows_the_name(quiz_logs, client):
    out = _import(
        str(quiz_logs["steady"]),
        "--title",
        "Capitals and sums",
        "--description",
        "Three short questions, two epochs each, scored by whether the answer holds the target.",
    )
    assert "Name it" not in out  # named already: no advice
    publish("quiz", "r1")
    page = client.get("/b/quiz/").content.decode()
    assert re.search(r"<h1>\s*Capitals and sums\s*</h1>", page)
    assert '<p class="lede">Three short questions, two epochs each' in page
    assert "<title>Capitals and sums" in page


def test_an_unnamed_new_benchmark_is_named_by_running_the_command_again(quiz_logs, client):
    out = _import(str(quiz_logs["steady"]))
    # The command says what the board will be titled, and how to name it.
    assert "The new benchmark is titled 'quiz', its slug, with no description." in out
    assert '--title "..." --description "..."' in out
    again = _import(str(quiz_logs["steady"]), "--title", "Quiz of three", "--description", "A smoke test.")
    assert "updated 1 benchmarks" in again and "runs" not in again.split("updated")[1]  # only the name moved
    assert "Name it" not in again  # not a new benchmark any more
    publish("quiz", "r1")
    page = client.get("/b/quiz/").content.decode()
    assert re.search(r"<h1>\s*Quiz of three\s*</h1>", page) and '<p class="lede">A smoke test.</p>' in page


def test_a_command_with_no_configuration_prints_no_broker_warning(tmp_path):
    """`make serve`'s setting (SQLite, eager Celery): an import sends board recomputes as tasks; the in-memory
    broker once lacked a host, and kombu printed "No hostname was supplied. Reverting to default 'localhost'"
    on every command that sent one."""
    clear = ("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG", "PRODUCTION", "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in clear and not k.startswith("TEST_")}
    env.update({"VAR_DIR": str(tmp_path), "MEDIA_ROOT": str(tmp_path / "media")})

    def manage(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )

    assert manage("migrate", "--noinput", "-v0").returncode == 0
    done = manage("import_inspect", "fixtures/inspect-quiz.eval", "--benchmark", "quiz", "--round", "r1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "created 1 agents, 1 benchmarks" in done.stdout  # it sent its recomputes (a board was made)
    assert "hostname" not in done.stdout + done.stderr, done.stderr
