"""Board pages under load: gunicorn with production settings on PostgreSQL and Redis, wrk on loopback.

    .venv/bin/python bench/bench_pages.py            # 50 connections, 30 s per page
    .venv/bin/python bench/bench_pages.py --quick    # 5 s per page
    .venv/bin/python bench/bench_pages.py --only floor,board-large --duration 10

Set-up (not timed; skipped when already done): a database `leaderboard_bench_pages` (created, migrated), the
demo data (`load_demo`), a generated large board (100 agents x 30 tasks x 3 trials, `checks` methodology,
imported as a bundle), `recompute_boards`, `collectstatic` into a temporary STATIC_ROOT, and one voter account
with a session. Then gunicorn serves `bench.bench_settings` (the site's settings plus a trivial /_floor/ view)
with PRODUCTION=true (DEBUG off, secure cookies, HSTS) except SECURE_SSL_REDIRECT=false, the Redis cache on
Redis database 7, and each page gets a wrk run. The floor is measured in the same run, between the pages, so a
ratio compares like with like on a shared machine.

bench/bench_votes.py reuses the helpers here (database, server, machine line).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PG = "postgres://postgres@127.0.0.1:5432"
SECRET = "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ"
LARGE = {"slug": "bench-large", "agents": 100, "tasks": 30, "trials": 3}


def bench_env(*, database: str, redis_db: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every process of a run: production-like, loopback, its own database and Redis."""
    env = dict(os.environ)
    for name in ("DEBUG", "TESTING", "CI", "CELERY_TASK_ALWAYS_EAGER"):
        env.pop(name, None)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bench.bench_settings",
            "PRODUCTION": "true",
            "SECRET_KEY": SECRET,
            "SECURE_SSL_REDIRECT": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": f"{PG}/{database}",
            "REDIS_URL": f"redis://127.0.0.1:6379/{redis_db}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:6379/{redis_db + 1}",
            "CACHE_KEY_PREFIX": "bench",
            "STATIC_ROOT": str(Path(tempfile.gettempdir()) / "leaderboard-bench-static"),
            "LOG_LEVEL": "ERROR",
            "OPENBLAS_NUM_THREADS": "1",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update(extra or {})
    return env


def manage(env: dict[str, str], *args: str, quiet: bool = True) -> str:
    out = subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
    if not quiet:
        print(out.stdout.strip())
    return out.stdout


def django_eval(env: dict[str, str], code: str) -> str:
    """Run Python inside the bench settings (a separate process, so this script never holds connections)."""
    return manage(env, "shell", "--no-imports", "-c", code).strip()


def ensure_database(name: str) -> bool:
    """Create the database when missing; True when it was created."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return False
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return True


def drop_database(name: str) -> None:
    import psycopg
    from psycopg import sql

    assert name.startswith("leaderboard_bench_")
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def flush_redis(*dbs: int) -> None:
    for db in dbs:
        assert 7 <= db <= 10, "benchmarks use Redis databases 7-10 only (pages 7-8, votes 9-10)"
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "-n", str(db), "FLUSHDB"], capture_output=True)


def prepare_site(env: dict[str, str], *, large: bool = True) -> None:
    """Migrate, load the demo, import the large board, recompute every snapshot, collect static files."""
    manage(env, "migrate", "--noinput")
    exists = "from leaderboard.models import Benchmark; print(Benchmark.objects.filter(slug={!r}).exists())"
    if django_eval(env, exists.format("artb")) != "True":
        started = time.perf_counter()
        manage(env, "load_demo")
        print(f"  load_demo in {time.perf_counter() - started:.0f} s")
    if large:
        if django_eval(env, exists.format(LARGE["slug"])) != "True":
            import json

            from bench.bench_recompute import make_round

            doc = make_round(
                slug=LARGE["slug"],
                methodology="checks",
                agents=LARGE["agents"],
                tasks=LARGE["tasks"],
                trials=LARGE["trials"],
            )
            doc["benchmark"]["params"] = {"votes": False}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
                json.dump(doc, fh)
            started = time.perf_counter()
            manage(env, "import_bundle", fh.name)
            os.unlink(fh.name)
            print(f"  imported the large board ({len(doc['runs'])} runs) in {time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    print("  " + manage(env, "recompute_boards").strip(), f"({time.perf_counter() - started:.0f} s)")
    Path(env["STATIC_ROOT"]).mkdir(parents=True, exist_ok=True)
    manage(env, "collectstatic", "--noinput")


def workers() -> int:
    return max(4, 2 * (os.cpu_count() or 1))


class Server:
    """gunicorn on 127.0.0.1:port (sync workers), stopped on exit of the `with` block."""

    def __init__(self, env: dict[str, str], port: int, n_workers: int | None = None, threads: int = 1) -> None:
        assert 8100 <= port <= 8199
        self.env, self.port, self.n_workers, self.threads = env, port, n_workers or workers(), threads
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        args = [
            GUNICORN,
            "leaderboard.wsgi",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(self.n_workers),
            "--threads",
            str(self.threads),
            "--backlog",
            "2048",
            "--log-level",
            "warning",
            "--access-logfile",
            "/dev/null",
            "--error-logfile",
            "-",
            "--timeout",
            "60",
        ]
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".gunicorn.log", delete=False)
        self.proc = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120  # a loaded 2-core machine can take a minute to import four workers
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/_floor/", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        sys.exit(f"gunicorn did not start; log: {self.log.name}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def drain(self, limit: float = 180.0) -> None:
        """Wait until the requests a load run left queued in the backlog are served (a slow page at 50
        connections leaves up to 50 behind when wrk stops), so the next run starts on an idle server."""
        deadline = time.time() + limit
        while time.time() < deadline:
            started = time.time()
            try:
                urllib.request.urlopen(f"{self.url}/_floor/", timeout=limit).read()
            except OSError:
                pass
            if time.time() - started < 0.2:
                return
        print("  (server still busy after the drain limit)")

    def errors(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def machine(env: dict[str, str]) -> str:
    def run(cmd: str) -> str:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()

    pg = run(f"psql {PG}/postgres -Atc 'SHOW server_version'")
    redis = run("redis-cli -h 127.0.0.1 INFO server | sed -n 's/^redis_version://p'").strip()
    py = run(f"{PY} -c 'import platform, django; print(platform.python_version(), django.get_version())'").split()
    return (
        f"nproc {os.cpu_count()}, CPU {run('lscpu | sed -n s/^Model\\ name:\\ *//p')!r}, memory "
        f"{run('free -h | awk "/^Mem:/ {print \\$2}"')}, Python {py[0]}, Django {py[1]}, PostgreSQL {pg}, "
        f"Redis {redis}, wrk {run('wrk -v 2>&1 | head -1 | cut -d" " -f2')}, "
        f"load average before {run('cut -d" " -f1-3 /proc/loadavg')}"
    )


# --- wrk ------------------------------------------------------------------------------------------------------


@dataclass
class WrkResult:
    name: str
    url: str
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    non_2xx: int
    errors: str

    def row(self, floor_rps: float | None) -> str:
        ratio = f"{self.rps / floor_rps:.0%}" if floor_rps else "–"
        return (
            f"| {self.name} | `{self.url}` | {self.rps:,.0f} | {self.p50_ms:.1f} | {self.p99_ms:.1f} | {ratio} "
            f"| {self.requests:,} | {self.non_2xx} | {self.errors or '–'} |"
        )


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[unit]


def wrk(
    name: str, url: str, *, duration: int, connections: int, headers: dict[str, str] | None = None, threads: int = 2
) -> WrkResult:
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration}s", "--latency", "--timeout", "10s"]
    for key, value in (headers or {}).items():
        cmd += ["-H", f"{key}: {value}"]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, timeout=duration + 60).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return WrkResult(
        name,
        "/" + url.split("/", 3)[3],
        rps,
        p50,
        p99,
        requests,
        int(non2xx.group(1)) if non2xx else 0,
        errors.group(1).strip() if errors else "",
    )


def targets(env: dict[str, str]) -> dict[str, tuple[str, str]]:
    """name -> (path, what it sends: "" nothing special, "cookie" the voter's session, "htmx" HX-Request)."""
    code = (
        "from runs.models import Run\n"
        "from django.urls import reverse\n"
        "r = (Run.objects.published().filter(round__benchmark__slug='artb')\n"
        "     .select_related('round__benchmark').order_by('id').first())\n"
        "print(reverse('run', args=[r.round.benchmark.slug, r.round.key, r.key]))\n"
    )
    run_path = django_eval(env, code)
    return {
        "floor": ("/_floor/", ""),
        "home": ("/", ""),
        "board-demo": ("/b/artb/", ""),
        "board-demo-tab-htmx": ("/b/artb/?tab=safety", "htmx"),
        "board-appbench": ("/b/appbench/", ""),
        "board-large": (f"/b/{LARGE['slug']}/", ""),
        "board-large-tasks": (f"/b/{LARGE['slug']}/?tab=tasks", ""),
        "run": (run_path, ""),
        "vote": ("/vote/", "cookie"),
        "floor-after": ("/_floor/", ""),
    }


def voter_cookie(env: dict[str, str], username: str = "bench-page-voter") -> str:
    """A session for a three-day-old account with no organization, created in the database directly."""
    code = (
        "from datetime import timedelta\n"
        "from django.contrib.auth import get_user_model, SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
        "from django.contrib.sessions.backends.db import SessionStore\n"
        "from django.utils import timezone\n"
        f"u, _ = get_user_model().objects.get_or_create(username={username!r},\n"
        f"                                              defaults={{'email': '{username}@example.org'}})\n"
        "u.date_joined = timezone.now() - timedelta(days=3); u.set_unusable_password(); u.save()\n"
        "s = SessionStore(); s[SESSION_KEY] = str(u.pk)\n"
        "s[BACKEND_SESSION_KEY] = 'django.contrib.auth.backends.ModelBackend'\n"
        "s[HASH_SESSION_KEY] = u.get_session_auth_hash(); s.create(); print(s.session_key)\n"
    )
    return f"sessionid={django_eval(env, code)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 s per page instead of 30 s")
    parser.add_argument("--duration", type=int, help="seconds per page (overrides --quick)")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=workers())
    parser.add_argument("--port", type=int, default=8131)
    parser.add_argument("--only", help="comma-separated page names (default: all)")
    parser.add_argument("--database", default="leaderboard_bench_pages")
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the bench database first")
    args = parser.parse_args()
    duration = args.duration or (5 if args.quick else 30)

    env = bench_env(database=args.database, redis_db=7)
    if args.fresh:
        drop_database(args.database)
    flush_redis(7, 8)
    print(f"database {args.database}: {'created' if ensure_database(args.database) else 'exists'}")
    prepare_site(env)
    pages = targets(env)
    if args.only:
        pages = {k: v for k, v in pages.items() if k in args.only.split(",")}
    cookie = voter_cookie(env)
    print(machine(env))
    print(f"gunicorn {args.workers} sync workers; wrk 2 threads, {args.connections} connections, {duration} s each")
    results: list[WrkResult] = []
    with Server(env, args.port, args.workers) as server:
        for name, (path, sends) in pages.items():
            headers = {"": {}, "cookie": {"Cookie": cookie}, "htmx": {"HX-Request": "true"}}[sends]
            for _ in range(2 * args.workers):  # warm up: each worker has its imports and connections
                urllib.request.urlopen(urllib.request.Request(server.url + path, headers=headers), timeout=120).read()
            result = wrk(name, server.url + path, duration=duration, connections=args.connections, headers=headers)
            results.append(result)
            server.drain()
            print(
                f"  {name:18} {result.rps:8.0f} req/s  p50 {result.p50_ms:7.1f} ms  p99 {result.p99_ms:7.1f} ms"
                f"  non-2xx {result.non_2xx}",
                flush=True,
            )
        errors = server.errors()
    floors = [r.rps for r in results if r.name.startswith("floor")]
    floor = sum(floors) / len(floors) if floors else None
    print("\n| page | path | req/s | p50 ms | p99 ms | of floor | requests | non-2xx | socket errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(r.row(floor))
    print(f"\nfloor = mean of the floor runs: {floor:,.0f} req/s" if floor else "")
    if errors.strip():
        print("gunicorn log:\n" + errors[-3000:])
    flush_redis(7, 8)


if __name__ == "__main__":
    shutil.which("wrk") or sys.exit("wrk is missing: apt-get install -y wrk")
    main()
