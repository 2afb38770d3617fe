"""`make test` on a machine where nothing answers on the default ports (scripts/test_services.py): it starts a
PostgreSQL and a Redis of its own for the run, points the run at them, and afterwards nothing of them is left,
running or on disk, whether the run passed, failed, or was stopped with Ctrl-C or SIGTERM."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from config.reachable import address, answers
from scripts import test_services as ts

ROOT = Path(__file__).resolve().parents[2]


def _bare_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}


# --- the plan: what is used as given, what is started -----------------------------------------------------------

DEFAULTS = ("postgres://postgres@127.0.0.1:5432/leaderboard", "redis://127.0.0.1:6379/1", "redis://127.0.0.1:6379/2")


def test_defaults_that_answer_are_used_and_nothing_is_started():
    plan = ts.plan({}, *DEFAULTS, is_up=lambda host, port: True)
    assert (plan.postgres, plan.redis, plan.problems) == (False, False, [])
    assert plan.env == dict(zip(("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"), DEFAULTS, strict=True))


def test_defaults_that_do_not_answer_ask_for_throwaway_servers():
    plan = ts.plan({}, *DEFAULTS, is_up=lambda host, port: False)
    assert (plan.postgres, plan.redis, plan.problems, plan.env) == (True, True, [], {})


def test_only_the_missing_server_is_started():
    plan = ts.plan({}, *DEFAULTS, is_up=lambda host, port: port == 6379)
    assert (plan.postgres, plan.redis) == (True, False)
    assert plan.env == {"REDIS_URL": DEFAULTS[1], "CELERY_BROKER_URL": DEFAULTS[2]}


def test_explicit_settings_are_used_as_given_and_never_replaced():
    env = {"DATABASE_URL": "postgres://u:pw@db:6000/x", "REDIS_URL": "redis://cache:6001/5"}
    plan = ts.plan(env, *DEFAULTS, is_up=lambda host, port: host in ("db", "cache"))
    assert (plan.postgres, plan.redis, plan.problems) == (False, False, [])
    # the broker goes to the Redis the run uses (the default broker's database), not to 127.0.0.1:6379
    assert plan.env == {**env, "CELERY_BROKER_URL": "redis://cache:6001/2"}

    down = ts.plan(env, *DEFAULTS, is_up=lambda host, port: host == "cache")
    assert down.postgres is False  # no throwaway in place of a server that was asked for
    assert down.problems == [
        "DATABASE_URL=postgres://u:***@db:6000/x: nothing answers on db:6000 "
        "(start that server, or unset DATABASE_URL and `make test` starts a throwaway one)"
    ]


# --- ports, programs --------------------------------------------------------------------------------------------


def test_a_free_port_can_be_listened_on_and_nothing_answers_there():
    port = ts.free_port()
    assert 1024 < port < 65536
    assert not answers("127.0.0.1", port, 0.5)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_debians_newest_postgresql_is_found(tmp_path):
    for version in ("13", "16", "9.6"):
        folder = tmp_path / version / "bin"
        folder.mkdir(parents=True)
        for name in ts.PG_PROGRAMS:
            (folder / name).write_text("")
    (tmp_path / "17" / "bin").mkdir(parents=True)  # a client-only install: no initdb
    assert ts.postgres_bin(tmp_path) == tmp_path / "16" / "bin"


def test_missing_programs_without_apt_stop_with_one_line_naming_them_and_the_install(monkeypatch):
    monkeypatch.setattr(ts, "postgres_bin", lambda: None)
    monkeypatch.setattr(ts, "redis_bin", lambda: None)
    with pytest.raises(ts.Stop) as stop:
        ts.ensure_programs(ts.Plan(postgres=True, redis=True), apt=lambda: False)
    assert str(stop.value) == (
        "PostgreSQL (initdb, pg_ctl) and Redis (redis-server) not running on the default port and not installed; "
        "install with `sudo apt-get install postgresql redis-server` (or set DATABASE_URL / REDIS_URL to running "
        "servers)"
    )
    with pytest.raises(ts.Stop, match=r"^Redis \(redis-server\) not .* `sudo apt-get install redis-server`"):
        ts.ensure_programs(ts.Plan(postgres=False, redis=True), apt=lambda: False)


# --- clean-up ---------------------------------------------------------------------------------------------------


def test_the_folders_of_killed_runs_are_removed_and_live_runs_left_alone(tmp_path):
    dead, live = tmp_path / "4000001", tmp_path / "4000002"
    for folder in (dead, live):
        folder.mkdir()
        (folder / "redis.log").write_text("x")
    (tmp_path / "notes").mkdir()  # not a run's folder
    removed = ts.clean_stale(tmp_path, alive=lambda pid: pid == 4000002)
    assert removed == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["4000002", "notes"]


def test_stopping_removes_the_runs_folder_and_var_when_the_run_made_it(tmp_path):
    var = tmp_path / "var"
    services = var / "test-services"
    mine, other = services / "4000004", services / "4000005"
    for folder in (mine, other):
        (folder / "pg").mkdir(parents=True)
    ts.Throwaway(mine, tidy=[services, var]).stop()
    assert sorted(p.name for p in services.iterdir()) == ["4000005"]  # another run's folder stays, and so its parents
    ts.Throwaway(other, tidy=[services, var]).stop()
    assert list(tmp_path.iterdir()) == []


def _programs() -> tuple[Path, Path]:
    pg, redis = ts.postgres_bin(), ts.redis_bin()
    if pg is None or redis is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs PostgreSQL's server programs and redis-server installed")
        pytest.skip("PostgreSQL's server programs or redis-server not installed (`make test` installs them)")
    return pg, redis


def _processes_in(folder: Path) -> list[str]:
    """Command lines of running processes that mention `folder` or work in it."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            cwd = str((proc / "cwd").resolve())
        except OSError:
            continue
        if str(folder) in cmdline or cwd.startswith(str(folder)):
            found.append(cmdline)
    return found


@pytest.mark.slow
def test_a_stale_runs_redis_is_stopped_by_the_next_run(tmp_path):
    _pg, redis = _programs()
    folder = tmp_path / "4000003"
    folder.mkdir()
    port = ts.free_port()
    server = subprocess.Popen(
        [str(redis), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if answers("127.0.0.1", port, 0.2):
                break
            time.sleep(0.05)
        (folder / "redis.pid").write_text(str(server.pid))
        ts.clean_stale(tmp_path, alive=lambda pid: False)
        assert server.wait(10) == 0
        assert not folder.exists()
    finally:
        server.kill()


# --- the real thing ---------------------------------------------------------------------------------------------

# What the test command does with the servers it was given: a table in PostgreSQL, a key in Redis, and where
# the script keeps its folder (var/test-services/<the script's pid>/).
PROBE = """
import json, os, sys
import psycopg, redis
with psycopg.connect(os.environ["DATABASE_URL"].replace("postgres://", "postgresql://"), autocommit=True) as c:
    c.execute("CREATE TABLE probe (n int)")
    c.execute("INSERT INTO probe VALUES (42)")
    n = c.execute("SELECT n FROM probe").fetchone()[0]
    c.execute("DROP TABLE probe")
r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.set("probe", "ok")
broker = redis.Redis.from_url(os.environ["CELERY_BROKER_URL"])
print(json.dumps({
    "urls": [os.environ[k] for k in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")],
    "n": n, "key": r.get("probe").decode(), "broker": broker.ping(), "script": os.getppid(),
    "folder": os.environ["TEST_SERVICES_FOLDER"],
    "files": sorted(os.listdir(os.environ["TEST_SERVICES_FOLDER"])),
}), flush=True)
"""


def _script(*command: str, closed_port: int) -> list[str]:
    return [
        sys.executable,
        "scripts/test_services.py",
        "--database",
        f"postgres://postgres@127.0.0.1:{closed_port}/leaderboard",
        "--redis",
        f"redis://127.0.0.1:{closed_port}/1",
        "--broker",
        f"redis://127.0.0.1:{closed_port}/2",
        "--",
        *command,
    ]


def _nothing_left(folder_name: str, urls: list[str]) -> None:
    # The run's folder: var/test-services/<pid>/, or a temporary folder where the server account cannot reach the
    # checkout (as on a checkout in a home folder closed to others).
    folder = Path(folder_name)
    assert not folder.exists()
    assert _processes_in(folder) == []
    for url in urls:
        where = address(url)
        assert where is not None and not answers(*where, 0.5), f"{url} still answers"


@pytest.mark.slow
def test_a_run_gets_its_own_postgresql_and_redis_and_nothing_is_left_afterwards():
    """The defaults named closed ports, as on a machine where nothing runs: the test command got a working
    PostgreSQL (with the database the default named) and Redis (cache and broker databases) on other ports;
    its exit status is the run's; afterwards neither server answers, no process of theirs runs, and their
    folder is gone."""
    _programs()
    done = subprocess.run(
        _script(sys.executable, "-c", PROBE + "sys.exit(3)", str(ts.SERVICES_DIR), closed_port=ts.free_port()),
        cwd=ROOT,
        env=_bare_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 3, done.stderr  # a failing run fails `make test`, and is still cleaned up
    seen = json.loads(done.stdout)
    database, cache, broker = seen["urls"]
    assert database.startswith("postgres://postgres@127.0.0.1:") and database.endswith("/leaderboard")
    assert cache.rsplit("/", 1) == [broker.rsplit("/", 1)[0], "1"] and broker.endswith("/2")
    assert (seen["n"], seen["key"], seen["broker"]) == (42, "ok", True)
    assert {"pg", "redis.pid"} <= set(seen["files"])
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("make test: no PostgreSQL on 127.0.0.1:") and "a throwaway one" in lines[0]
    assert lines[-1] == "make test: stopped and removed the throwaway PostgreSQL and Redis"
    _nothing_left(seen["folder"], seen["urls"])


@pytest.mark.slow
@pytest.mark.parametrize("how", ["sigterm", "ctrl-c"])
def test_an_interrupted_run_stops_and_removes_its_servers(how):
    """SIGTERM to `make test`'s script, or Ctrl-C in the terminal (SIGINT to the whole process group): the
    tests are stopped, then the servers, and nothing of them is left."""
    _programs()
    wait = PROBE + "import time; time.sleep(120)"
    proc = subprocess.Popen(
        _script(sys.executable, "-c", wait, str(ts.SERVICES_DIR), closed_port=ts.free_port()),
        cwd=ROOT,
        env=_bare_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        assert proc.stdout is not None
        seen = json.loads(proc.stdout.readline())
        if how == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert code != 0
    assert proc.stderr is not None
    assert (
        proc.stderr.read().strip().splitlines()[-1]
        == "make test: stopped and removed the throwaway PostgreSQL and Redis"
    )
    _nothing_left(seen["folder"], seen["urls"])
