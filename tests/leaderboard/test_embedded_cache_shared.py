"""With no configuration (SQLite, eager Celery) the site and a command run beside it share one cache: a board
page served from the page cache changes as soon as an `import_bundle` in another process changes its data, and
two server processes count one rate-limit window. Measured with real processes: a server (`runserver`, the
page cache on, as in production) and the command, each with its own memory."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.builders.bundles import make_bundle

ROOT = Path(__file__).resolve().parents[2]
CLEAR = ("CI", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "DEBUG", "PRODUCTION", "DJANGO_ALLOW_ASYNC_UNSAFE")


def _env(var_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CLEAR and not k.startswith("TEST_")}
    env.update({"VAR_DIR": str(var_dir), "MEDIA_ROOT": str(var_dir / "media"), **extra})
    return env


def _manage(args: list[str], var_dir: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=_env(var_dir), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`manage.py runserver` with no configuration (DEBUG off: the page cache serves visitors)."""

    def __init__(self, var_dir: Path, **extra: str):
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"],
            cwd=ROOT,
            env=_env(var_dir, **extra),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise AssertionError("the server did not start")

    def get(self, path: str) -> tuple[int, dict[str, str], str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read().decode()
        except urllib.error.HTTPError as refused:
            return refused.code, dict(refused.headers), refused.read().decode()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def _bundle(tmp: Path, name: str, **overrides) -> str:
    path = tmp / name
    path.write_text(json.dumps(make_bundle(**overrides)))
    return str(path)


def _overall(page: str, agent: str) -> str:
    """The agent's overall score on the board page (the first number of its row)."""
    row = re.search(rf'<tr data-agent="{agent}"(.*?)</tr>', page, re.S)
    assert row, f"no row for {agent}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row.group(1)))


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    var = tmp_path_factory.mktemp("migrated")
    _manage(["migrate", "--noinput", "-v0"], var)
    return var / "db.sqlite3"


@pytest.fixture
def site(migrated, tmp_path):
    """A fresh site's VAR_DIR: the migrated database, an empty cache."""
    var = tmp_path / "var"
    var.mkdir()
    shutil.copy(migrated, var / "db.sqlite3")
    return var


def test_a_board_changes_as_soon_as_an_import_beside_the_site_changes_its_data(site, tmp_path):
    # The round: Alpha's core-task run labelled pass (2 points of 2: 10.0) and Beta's labelled fail (0.0).
    runs = [
        {"id": "a1", "round": "r1", "agent": "alpha", "task": "t1", "status": "completed", "outcome": "pass"},
        {"id": "b1", "round": "r1", "agent": "beta", "task": "t1", "status": "completed", "outcome": "fail"},
    ]
    _manage(["import_bundle", _bundle(tmp_path, "one.json", runs=runs, votes=[])], site)
    server = Server(site)
    try:
        first = server.get("/b/tb/")
        again = server.get("/b/tb/")
        assert "0.0" in _overall(first[2], "beta")
        assert again[1].get("X-Page-Cache") == "hit"  # the page is served from the cache
        # Beta's re-run of its disputed run passes: the re-run counts (000 §6), 2 points of 2 tested -> 10.0.
        rerun = {"id": "b1-rerun", "round": "r1", "agent": "beta", "task": "t1", "status": "completed"}
        rerun |= {"outcome": "pass", "rerun_of": "b1"}
        accepted = {"reason": "environment", "note": "The sandbox lost its network.", "status": "accepted"}
        disputed = {**runs[1], "disputes": [accepted]}
        _manage(["import_bundle", _bundle(tmp_path, "two.json", runs=[runs[0], disputed, rerun], votes=[])], site)
        deadline, shown = time.monotonic() + 5, ""  # each process trusts the versions it read for 1 s
        while time.monotonic() < deadline:
            shown = _overall(server.get("/b/tb/")[2], "beta")
            if "10.0" in shown:
                break
            time.sleep(0.25)
        assert "10.0" in shown, f"the board page still shows {shown!r} after the import"
    finally:
        server.stop()


def test_two_server_processes_count_one_rate_limit_window(site, tmp_path):
    _manage(["import_bundle", _bundle(tmp_path, "one.json", votes=[])], site)
    # Three API requests per minute, from one address, shared by both servers: the fourth is refused wherever
    # it lands (with a window in each process's memory both would let it through).
    limits = {"API_RATE_LIMIT": "3", "API_RATE_WINDOW_SECONDS": "60"}
    first, second = Server(site, **limits), Server(site, **limits)
    try:
        answers = [server.get("/api/benchmarks")[0] for server in (first, second, first)]
        assert answers == [200, 200, 200]
        assert second.get("/api/benchmarks")[0] == 429
    finally:
        first.stop()
        second.stop()
