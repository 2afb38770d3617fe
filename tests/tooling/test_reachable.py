"""A service setting whose server is not there is named in one line (config/reachable.py), by the test run
itself and by `make test`, instead of a driver's traceback in the first test that touches it."""

import os
import socket
import subprocess
import sys
from pathlib import Path

from config.reachable import address, unreachable, unreachable_settings
from scripts.test_services import free_port

ROOT = Path(__file__).resolve().parents[2]


def _bare_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CI")}
    return {**env, **settings}


def test_a_closed_port_is_named_with_what_to_do_and_no_password():
    port = free_port()
    message = unreachable("DATABASE_URL", f"postgres://app:s3cret@127.0.0.1:{port}/leaderboard")
    assert message == (
        f"DATABASE_URL=postgres://app:***@127.0.0.1:{port}/leaderboard: nothing answers on 127.0.0.1:{port} "
        "(start that server, or unset DATABASE_URL and `make test` starts a throwaway one)"
    )
    assert "s3cret" not in message


def test_an_open_port_is_ok():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert unreachable("REDIS_URL", f"redis://127.0.0.1:{port}/1") is None
        assert unreachable_settings({"REDIS_URL": f"redis://127.0.0.1:{port}/1"}) == []


def test_default_ports_and_urls_that_name_no_server():
    assert address("postgres://postgres@db.internal/leaderboard") == ("db.internal", 5432)
    assert address("redis://127.0.0.1/2") == ("127.0.0.1", 6379)
    assert address("sqlite:///var/db.sqlite3") is None
    assert address("memory://") is None
    assert unreachable_settings({"DATABASE_URL": "sqlite:///var/db.sqlite3", "CELERY_BROKER_URL": "memory://"}) == []


def test_the_test_run_stops_with_one_line_per_server_that_is_not_there():
    """pytest itself, with settings naming servers that are down: exit status 4 (usage error) and one line each,
    before any test runs; no traceback."""
    down = free_port()
    env = _bare_env(
        DATABASE_URL=f"postgres://postgres@127.0.0.1:{down}/leaderboard", REDIS_URL=f"redis://127.0.0.1:{down}/1"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/scoring/test_noise.py", "-p", "no:cacheprovider", "-q"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"ERROR: DATABASE_URL=postgres://postgres@127.0.0.1:{down}/leaderboard: nothing answers on 127.0.0.1:{down} "
        "(start that server, or unset DATABASE_URL and `make test` starts a throwaway one)",
        f"REDIS_URL=redis://127.0.0.1:{down}/1: nothing answers on 127.0.0.1:{down} "
        "(start that server, or unset REDIS_URL and `make test` starts a throwaway one)",
    ]
    assert "Traceback" not in done.stdout + done.stderr
    assert "passed" not in done.stdout


def test_make_tests_script_refuses_an_explicit_setting_that_does_not_answer_and_runs_nothing(tmp_path):
    down = free_port()
    ran = tmp_path / "ran"
    done = subprocess.run(
        [sys.executable, "scripts/test_services.py", "--database", "postgres://postgres@127.0.0.1:5432/leaderboard"]
        + ["--redis", "redis://127.0.0.1:6379/1", "--broker", "redis://127.0.0.1:6379/2", "--", "touch", str(ran)],
        cwd=ROOT,
        env=_bare_env(REDIS_URL=f"redis://127.0.0.1:{down}/1", DATABASE_URL="sqlite:///var/x.sqlite3"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"make test: REDIS_URL=redis://127.0.0.1:{down}/1: nothing answers on 127.0.0.1:{down} "
        "(start that server, or unset REDIS_URL and `make test` starts a throwaway one)\n"
    )
    assert not ran.exists()
    assert not (ROOT / "var" / "test-services").exists() or not any((ROOT / "var" / "test-services").iterdir())
