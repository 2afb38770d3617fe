"""The servers a test run needs, then the run: `make test` calls
`test_services.py --database URL --redis URL --broker URL -- pytest ARGS...`.

- `DATABASE_URL`, `REDIS_URL`, `CELERY_BROKER_URL` set in the environment are used as given; one whose server does
  not answer ends the run with a line naming it (config/reachable.py), before pytest starts.
- Unset, the defaults (--database, --redis, --broker: PostgreSQL on 127.0.0.1:5432, Redis on 6379) are used when
  they answer. When they do not, the run gets throwaway servers of its own under var/test-services/<pid>/:
  PostgreSQL (initdb, then pg_ctl on a free loopback port; as an unprivileged account when run as root, which
  PostgreSQL refuses) and Redis (redis-server on a free loopback port, nothing saved to disk). They are stopped
  and their folder removed when the run ends, fails, or is stopped with Ctrl-C or SIGTERM; the folder of a run
  that was killed outright is cleaned up by the next run.
- Missing server programs are installed with apt (Debian's `postgresql`, `redis-server`) when run as root
  where apt-get exists; otherwise the run stops with a line naming what is missing and how to install it.

Only servers this script started are ever stopped.
"""

from __future__ import annotations

import argparse
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from config.reachable import address, answers, unreachable  # noqa: E402

SERVICES_DIR = ROOT / "var" / "test-services"
PG_PROGRAMS = ("initdb", "pg_ctl", "createdb")
# Debian's packages for the programs, as `make chromium` installs Chromium.
PACKAGES = {"postgresql": "postgresql", "redis": "redis-server"}
PG_SUPERUSER = "postgres"
# Settings of a server that lives for one run: nothing of it needs to survive a crash.
PG_OPTIONS = ("fsync=off", "full_page_writes=off", "synchronous_commit=off", "unix_socket_directories=''")


def say(message: str) -> None:
    print(f"make test: {message}", file=sys.stderr, flush=True)


class Stop(Exception):
    """Ends the script with a message (and no traceback)."""


# --- what the run needs -----------------------------------------------------------------------------------------


@dataclass
class Plan:
    env: dict[str, str] = field(default_factory=dict)  # the settings decided already
    postgres: bool = False  # a throwaway PostgreSQL is needed
    redis: bool = False  # a throwaway Redis is needed
    problems: list[str] = field(default_factory=list)  # explicit settings whose server does not answer


def with_server(url: str, host: str, port: int) -> str:
    """`url` pointed at host:port, its user, password, path and query kept."""
    parts = urlsplit(url)
    credentials = parts.netloc.rpartition("@")[0]
    netloc = (credentials + "@" if credentials else "") + f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def plan(
    environ: Mapping[str, str],
    database: str,
    redis: str,
    broker: str,
    is_up: Callable[[str, int], bool] = answers,
) -> Plan:
    """Which settings the run uses and which servers it must start. `database`, `redis` and `broker` are the
    defaults for settings the environment leaves unset."""
    result = Plan()

    def default_up(url: str) -> bool:
        where = address(url)
        return where is not None and is_up(*where)

    def explicit(name: str) -> bool:
        url = environ.get(name, "")
        if not url:
            return False
        where = address(url)
        if where is not None and not is_up(*where):
            result.problems.append(unreachable(name, url, timeout=0) or name)
        result.env[name] = url
        return True

    if not explicit("DATABASE_URL"):
        if default_up(database):
            result.env["DATABASE_URL"] = database
        else:
            result.postgres = True
    if not explicit("REDIS_URL"):
        if default_up(redis):
            result.env["REDIS_URL"] = redis
        else:
            result.redis = True
    if not explicit("CELERY_BROKER_URL") and not result.redis:
        # The broker lives on the Redis the run uses, in the default broker's database.
        server = address(result.env["REDIS_URL"])
        result.env["CELERY_BROKER_URL"] = with_server(broker, *server) if server else broker
    return result


# --- ports, programs, accounts ----------------------------------------------------------------------------------


def free_port() -> int:
    """A loopback TCP port nothing listens on at the moment (the kernel's pick)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _version(path: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", path.parent.name))


def postgres_bin(debian_root: Path = Path("/usr/lib/postgresql")) -> Path | None:
    """The folder of PostgreSQL's server programs: Debian's newest /usr/lib/postgresql/<version>/bin, else the
    one on PATH that holds initdb."""
    for folder in sorted(debian_root.glob("*/bin"), key=_version, reverse=True):
        if all((folder / name).is_file() for name in PG_PROGRAMS):
            return folder
    found = shutil.which("initdb")
    if found and all((Path(found).parent / name).is_file() for name in PG_PROGRAMS):
        return Path(found).parent
    return None


def redis_bin() -> Path | None:
    found = shutil.which("redis-server")
    return Path(found) if found else None


def can_apt() -> bool:
    return os.geteuid() == 0 and shutil.which("apt-get") is not None


def missing_line(missing: Sequence[str]) -> str:
    """The line that ends a run missing server programs: what is missing and the command that installs it."""
    what = " and ".join(
        {"postgresql": "PostgreSQL (initdb, pg_ctl)", "redis": "Redis (redis-server)"}[m] for m in missing
    )
    packages = " ".join(PACKAGES[m] for m in missing)
    return (
        f"{what} not running on the default port and not installed; "
        f"install with `sudo apt-get install {packages}` (or set DATABASE_URL / REDIS_URL to running servers)"
    )


def ensure_programs(plan_: Plan, apt: Callable[[], bool] = can_apt) -> tuple[Path | None, Path | None]:
    """The PostgreSQL bin folder and redis-server the plan needs, installed with apt when missing and possible."""
    pg = postgres_bin() if plan_.postgres else None
    rd = redis_bin() if plan_.redis else None
    missing = [
        name
        for name, need, have in (("postgresql", plan_.postgres, pg), ("redis", plan_.redis, rd))
        if need and not have
    ]
    if not missing:
        return pg, rd
    if not apt():
        raise Stop(missing_line(missing))
    packages = [PACKAGES[m] for m in missing]
    say(f"installing {' '.join(packages)} with apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *packages]):
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    pg = postgres_bin() if plan_.postgres else None
    rd = redis_bin() if plan_.redis else None
    if (plan_.postgres and not pg) or (plan_.redis and not rd):
        raise Stop(missing_line(missing))
    return pg, rd


def server_account() -> str | None:
    """The account PostgreSQL runs as when this script runs as root (PostgreSQL refuses root): Debian's
    `postgres` account when the package made one, else `nobody`. None when not root (runs as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise Stop("running as root, and neither a `postgres` nor a `nobody` account exists to run PostgreSQL as")


def as_account(account: str | None, command: Sequence[str]) -> list[str]:
    return ["runuser", "-u", account, "--", *command] if account else list(command)


# --- the servers ------------------------------------------------------------------------------------------------


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Throwaway:
    """The servers of one run and the folder they keep their files in."""

    folder: Path
    account: str | None = None
    pg_bin: Path | None = None
    pg_data: Path | None = None
    redis: subprocess.Popen | None = None
    started: list[str] = field(default_factory=list)
    tidy: list[Path] = field(default_factory=list)  # folders removed afterwards when empty (var/ if this run made it)

    def start_postgres(self, pg_bin: Path, database_url: str) -> str:
        """initdb a cluster into the folder and start it on a free port; returns DATABASE_URL for it."""
        self.pg_bin = pg_bin
        self.pg_data = self.folder / "pg"
        self.pg_data.mkdir()
        if self.account:
            shutil.chown(self.pg_data, self.account, self.account)
        self._run(
            [str(pg_bin / "initdb"), "-D", str(self.pg_data), "-U", PG_SUPERUSER, "--auth=trust", "-E", "UTF8"]
            + ["--no-locale", "--no-sync"]
        )
        log = self.pg_data / "server.log"
        pg_ctl = [str(pg_bin / "pg_ctl"), "-D", str(self.pg_data), "-l", str(log), "-w", "-t", "60"]
        for _attempt in range(3):  # another program may take the free port before the server does
            port = free_port()
            options = " ".join(f"-c {o}" for o in (f"port={port}", "listen_addresses=127.0.0.1", *PG_OPTIONS))
            if self._run([*pg_ctl, "-o", options, "start"], check=False):
                break
        else:
            lines = log.read_text(errors="replace").strip().splitlines() if log.exists() else []
            raise Stop("PostgreSQL did not start: " + (lines[-1] if lines else "no log"))
        self.started.append("PostgreSQL")
        url = with_server(database_url, "127.0.0.1", port)
        name = urlsplit(url).path.lstrip("/")
        if name and name != "postgres":
            self._run([str(pg_bin / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", PG_SUPERUSER, name])
        return url

    def start_redis(self, redis_server: Path, redis_url: str) -> str:
        """redis-server on a free port, nothing persisted; returns REDIS_URL for it."""
        for _attempt in range(3):
            port = free_port()
            self.redis = subprocess.Popen(
                [str(redis_server), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
                + ["--dir", str(self.folder), "--logfile", str(self.folder / "redis.log"), "--daemonize", "no"],
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C reaches the tests, not the server: it is stopped afterwards
            )
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and self.redis.poll() is None and not answers("127.0.0.1", port, 0.5):
                time.sleep(0.05)
            if self.redis.poll() is None and answers("127.0.0.1", port, 0.5):
                (self.folder / "redis.pid").write_text(str(self.redis.pid))
                self.started.append("Redis")
                return with_server(redis_url, "127.0.0.1", port)
            self._stop_redis()
        log = self.folder / "redis.log"
        raise Stop("Redis did not start: " + (log.read_text().strip().splitlines() or ["no log"])[-1])

    def _run(self, command: list[str], check: bool = True) -> bool:
        done = subprocess.run(as_account(self.account, command), capture_output=True, text=True, cwd=self.folder)
        if done.returncode and check:
            lines = (done.stderr or done.stdout).strip().splitlines() or [f"exit status {done.returncode}"]
            raise Stop(f"{Path(command[0]).name} failed: {lines[-1]}")
        return done.returncode == 0

    def _stop_redis(self) -> None:
        if self.redis is None:
            return
        if self.redis.poll() is None:
            self.redis.terminate()
            try:
                self.redis.wait(10)
            except subprocess.TimeoutExpired:
                self.redis.kill()
                self.redis.wait()
        self.redis = None

    def stop(self) -> None:
        """Stop what was started and remove the folder (everything in it, the database's files included)."""
        self._stop_redis()
        if self.pg_bin and self.pg_data and (self.pg_data / "postmaster.pid").exists():
            pg_ctl = [str(self.pg_bin / "pg_ctl"), "-D", str(self.pg_data), "-w", "-t", "30", "stop"]
            if not self._run([*pg_ctl, "-m", "fast"], check=False):
                self._run([*pg_ctl, "-m", "immediate"], check=False)
        shutil.rmtree(self.folder, ignore_errors=True)
        for folder in self.tidy:
            try:
                folder.rmdir()  # only when empty: another run's folder keeps var/test-services/
            except OSError:
                break


def make_folder(account: str | None, base: Path = SERVICES_DIR) -> Path:
    """This run's folder, var/test-services/<pid>/; when the server account cannot reach it (a checkout in a
    home folder closed to others), a folder under the system's temporary folder."""
    folder = base / str(os.getpid())
    folder.mkdir(parents=True, exist_ok=True)
    if account is None:
        return folder
    if _chown(folder, account) and subprocess.run(as_account(account, ["test", "-w", str(folder)])).returncode == 0:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix="leaderboard-test-services-"))
    folder.chmod(0o755)
    _chown(folder, account)
    return folder


def _chown(folder: Path, account: str) -> bool:
    try:
        shutil.chown(folder, account, account)
        return True
    except (LookupError, OSError):
        return False


def clean_stale(base: Path = SERVICES_DIR, alive: Callable[[int], bool] = pid_alive) -> list[Path]:
    """Stop the servers of earlier runs that were killed before they could (their script's pid is gone) and
    remove their folders. A server is stopped only when it is recognisably theirs: PostgreSQL by its data folder
    there, Redis by its pid file there with its working folder there."""
    removed: list[Path] = []
    if not base.is_dir():
        return removed
    for folder in sorted(base.iterdir()):
        if not folder.name.isdigit() or alive(int(folder.name)):
            continue
        data = folder / "pg"
        pg = postgres_bin()
        if pg and (data / "postmaster.pid").exists():
            owner = data.stat().st_uid
            account = pwd.getpwuid(owner).pw_name if os.geteuid() == 0 and owner != 0 else None
            command = [str(pg / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
            subprocess.run(as_account(account, command), capture_output=True)
        pidfile = folder / "redis.pid"
        if pidfile.exists():
            try:
                pid = int(pidfile.read_text())
                if Path(f"/proc/{pid}/cwd").resolve() == folder.resolve():
                    os.kill(pid, signal.SIGTERM)
            except (ValueError, OSError):
                pass
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


# --- the run ----------------------------------------------------------------------------------------------------


class Interrupted(Exception):
    def __init__(self, signum: int):
        self.signum = signum


def run_tests(command: Sequence[str], env: Mapping[str, str]) -> int:
    """Run the tests; SIGTERM and SIGHUP are passed on to them (Ctrl-C reaches them from the terminal itself)."""
    child = subprocess.Popen(list(command), env=dict(env))

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    previous = {s: signal.signal(s, forward) for s in (signal.SIGTERM, signal.SIGHUP)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        code = child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return code if code >= 0 else 128 - code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, help="DATABASE_URL when unset and its server answers")
    parser.add_argument("--redis", required=True, help="REDIS_URL when unset and its server answers")
    parser.add_argument("--broker", required=True, help="CELERY_BROKER_URL when unset (on the Redis used)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the test command")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no test command after --")

    def interrupted(signum: int, _frame: object) -> None:
        raise Interrupted(signum)

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)

    servers: Throwaway | None = None
    try:
        wanted = plan(os.environ, args.database, args.redis, args.broker)
        if wanted.problems:
            raise Stop("\n".join(wanted.problems))
        env = {**os.environ, **wanted.env}
        if wanted.postgres or wanted.redis:
            clean_stale()
            pg_bin, redis_server = ensure_programs(wanted)
            account = server_account() if wanted.postgres else None
            tidy = [SERVICES_DIR] + ([] if SERVICES_DIR.parent.exists() else [SERVICES_DIR.parent])
            servers = Throwaway(make_folder(account), account, tidy=tidy)
            # Where this run's servers keep their files: var/test-services/<pid>/, or a temporary folder when the
            # server account cannot reach the checkout (tools/tests read it from here, never guess it).
            env["TEST_SERVICES_FOLDER"] = str(servers.folder)
            if pg_bin:
                env["DATABASE_URL"] = servers.start_postgres(pg_bin, args.database)
                say(f"no PostgreSQL on {_where(args.database)}: a throwaway one, {_where(env['DATABASE_URL'])}")
            if redis_server:
                env["REDIS_URL"] = servers.start_redis(redis_server, args.redis)
                say(f"no Redis on {_where(args.redis)}: a throwaway one, {_where(env['REDIS_URL'])}")
                if not os.environ.get("CELERY_BROKER_URL"):
                    env["CELERY_BROKER_URL"] = with_server(args.broker, "127.0.0.1", _port(env["REDIS_URL"]))
        return run_tests(command, env)
    except Stop as stop:
        for line in str(stop).splitlines():
            say(line)
        return 2
    except (Interrupted, KeyboardInterrupt) as stopped:
        return 128 + (stopped.signum if isinstance(stopped, Interrupted) else int(signal.SIGINT))
    finally:
        if servers is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up runs to its end
            servers.stop()
            say(f"stopped and removed the throwaway {' and '.join(servers.started) or 'folder'}")


def _where(url: str) -> str:
    where = address(url)
    return f"{where[0]}:{where[1]}" if where else url


def _port(url: str) -> int:
    where = address(url)
    assert where is not None
    return where[1]


if __name__ == "__main__":
    sys.exit(main())
