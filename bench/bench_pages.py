"""Board pages under load: gunicorn with production settings on PostgreSQL and Redis, wrk on loopback.

    .venv/bin/python bench/bench_pages.py                        # the recorded run: 3 repeats, 20 s per page
    .venv/bin/python bench/bench_pages.py --quick --repeats 1    # a smoke run: 5 s per page, once
    .venv/bin/python bench/bench_pages.py --no-writes            # the no-write pass only

Set-up (not timed; skipped when already done): a database `leaderboard_bench_pages` (created, migrated), the
demo data (`load_demo`), a generated large board (100 agents x 30 tasks x 3 trials, `checks` methodology,
imported as a bundle), `recompute_boards`, `collectstatic` into a temporary STATIC_ROOT, one voter account with a
session (the vote screen's reader) and the writer accounts. Then gunicorn serves `bench.bench_settings` (the
site's settings plus a trivial /_floor/ view) with PRODUCTION=true (DEBUG off, secure cookies, HSTS) except
SECURE_SSL_REDIRECT=false, the Redis cache on Redis database 7 (broker 8).

Every run measures every page of `targets()` (or the ones `--pages` names): the floor first, the pages, the
floor again; the floor's mean is what ratios are taken against, so a ratio compares like with like on a shared
machine. The whole list is
measured `--repeats` times and each page reports the median req/s, p50 and p99 with their min-max.

Then (unless --no-writes) the same list is measured `--repeats` times again while writes happen: a steady
`--vote-rate` accepted votes a second on the votable demo benchmark (appbench) over HTTP, and a Celery worker
refitting its ratings (bench/page_writes.py). The write table gives each page's ratio to the floor measured
under the same writes, its no-write ratio beside it, and the votes a second achieved during its runs; the last
line reads off the target: the other benchmarks' boards keep their no-write ratio, the voted board stays at 50%
of the floor or better.

The output ends with the section to paste into bench/README.md (date, command, machine line, both tables and the
target line).

bench/bench_votes.py reuses the helpers here (database, server, machine line).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
PG = "postgres://postgres@127.0.0.1:5432"
SECRET = "bench-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ"
LARGE = {"slug": "bench-large", "agents": 100, "tasks": 30, "trials": 3}


def project_package(root: Path) -> str:
    """The package holding the project's settings, wsgi and Celery app in the code at `root`: `config` (older
    commits, compared against with --compare, kept them in `leaderboard`)."""
    return "config" if (root / "config" / "settings.py").exists() else "leaderboard"


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
            doc["benchmark"]["params"]["votes"] = False
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
            f"{project_package(ROOT)}.wsgi",
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

    def drain(self, limit: float = 180.0, idle: float = 0.2) -> None:
        """Wait until the requests a load run left queued in the backlog are served (a slow page at 50
        connections leaves up to 50 behind when wrk stops), so the next run starts on an idle server: one that
        answers the floor within `idle` seconds."""
        deadline = time.time() + limit
        while time.time() < deadline:
            started = time.time()
            try:
                urllib.request.urlopen(f"{self.url}/_floor/", timeout=limit).read()
            except OSError:
                pass
            if time.time() - started < idle:
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


def ensure_wrk() -> None:
    """Install wrk (Debian's package) when it is missing: every machine that runs this gets it the same way."""
    if shutil.which("wrk"):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = [*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends", "wrk"]
    print("wrk is missing: installing it with apt-get", flush=True)
    if subprocess.run(install, env=env, capture_output=True).returncode:
        subprocess.run([*sudo, "apt-get", "update", "-q"], env=env, capture_output=True)  # no package lists yet
        subprocess.run(install, env=env, capture_output=True)
    shutil.which("wrk") or sys.exit("wrk is missing and `apt-get install -y wrk` did not install it")


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
    votes_per_s: float | None = None  # accepted votes a second during the run, when writes were happening


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


VOTED = "appbench"  # the demo's votable benchmark: the writes go there
BROWSER = {"Accept-Encoding": "gzip, deflate, br"}  # what a browser sends with every request
OTHER_BOARDS = ["board-demo", "board-demo-tab-htmx", "board-large", "board-large-tasks"]  # boards of artb, bench-large
VOTED_BOARD = "board-appbench"
# "Keep their no-write ratio": under writes, at least this share of it (a shared machine moves figures by a few %).
OTHER_BOARD_KEEP = 0.9


def targets(env: dict[str, str]) -> dict[str, tuple[str, str]]:
    """name -> (path, what it sends: "" nothing special, "cookie" the voter's session, "htmx" HX-Request,
    "plain" no Accept-Encoding). Every request but a "plain" one says it accepts gzip, as every browser does
    (`BROWSER`). The floor is first and last."""
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
        VOTED_BOARD: (f"/b/{VOTED}/", ""),
        "board-large": (f"/b/{LARGE['slug']}/", ""),
        "board-large-plain": (f"/b/{LARGE['slug']}/", "plain"),
        "board-large-tasks": (f"/b/{LARGE['slug']}/?tab=tasks", ""),
        "run": (run_path, ""),
        "vote": ("/vote/", "cookie"),
        "floor-signed-in": ("/_floor/signed-in/", "cookie"),
        "floor-after": ("/_floor/", ""),
    }


def voter_sessions(env: dict[str, str], usernames: list[str]) -> list[str]:
    """Session keys for accounts three days old (past the new-account delay) with no organization, created in
    the database directly (created when missing, one process for all)."""
    code = (
        "from datetime import timedelta\n"
        "from django.conf import settings\n"
        "from django.contrib.auth import get_user_model, SESSION_KEY, BACKEND_SESSION_KEY, HASH_SESSION_KEY\n"
        "from django.contrib.sessions.backends.db import SessionStore\n"
        "from django.utils import timezone\n"
        f"for name in {usernames!r}:\n"
        "    u, _ = get_user_model().objects.get_or_create(username=name, defaults={'email': name + '@example.org'})\n"
        "    u.date_joined = timezone.now() - timedelta(days=3); u.set_unusable_password(); u.save()\n"
        "    s = SessionStore(); s[SESSION_KEY] = str(u.pk)\n"
        "    s[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]\n"
        "    s[HASH_SESSION_KEY] = u.get_session_auth_hash(); s.create(); print(s.session_key)\n"
    )
    keys = django_eval(env, code).split()
    assert len(keys) == len(usernames)
    return keys


def voter_cookie(env: dict[str, str], username: str = "bench-page-voter") -> str:
    """The session cookie of one account three days old (the vote screen's reader)."""
    return f"sessionid={voter_sessions(env, [username])[0]}"


# --- one pass over the page list, and the figures -------------------------------------------------------------


def measure_pass(server: Server, pages: dict, *, label: str, args: argparse.Namespace, cookie: str, writer=None):
    """Every page once, in order (floor first and last); with `writer`, the votes it got accepted per second
    during each page's wrk run."""
    results: list[WrkResult] = []
    for name, (path, sends) in pages.items():
        headers = {"": {}, "cookie": {"Cookie": cookie}, "htmx": {"HX-Request": "true"}, "plain": {}}[sends]
        if sends != "plain":
            headers = {**BROWSER, **headers}
        for _ in range(2 * args.workers):  # warm up: each worker has its imports and connections
            urllib.request.urlopen(urllib.request.Request(server.url + path, headers=headers), timeout=120).read()
        started = time.monotonic()
        result = wrk(name, server.url + path, duration=args.duration, connections=args.connections, headers=headers)
        if writer is not None:
            result.votes_per_s = writer.accepted_between(started, time.monotonic()) / (time.monotonic() - started)
        results.append(result)
        if writer is None:
            server.drain()
        else:  # the writers' own requests queue too: a floor answered within a second is as idle as it gets
            server.drain(limit=60, idle=1.0)
        votes = f"  votes/s {result.votes_per_s:5.1f}" if result.votes_per_s is not None else ""
        print(
            f"  [{label}] {name:20} {result.rps:8.0f} req/s  p50 {result.p50_ms:7.1f} ms  p99 {result.p99_ms:7.1f} ms"
            f"  non-2xx {result.non_2xx}{votes}",
            flush=True,
        )
    return results


@dataclass
class Figure:
    """One page's runs of one phase (every repeat)."""

    name: str
    url: str
    runs: list[WrkResult]

    @property
    def rps(self) -> float:
        return statistics.median(r.rps for r in self.runs)

    def cell(self, attr: str, digits: int) -> str:
        values = [getattr(r, attr) for r in self.runs]
        median = f"{statistics.median(values):,.{digits}f}"
        if len(values) == 1:
            return median
        return f"{median} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"

    @property
    def non_2xx(self) -> int:
        return sum(r.non_2xx for r in self.runs)

    @property
    def errors(self) -> str:
        return "; ".join(sorted({r.errors for r in self.runs if r.errors})) or "–"


def figures(passes: list[list[WrkResult]]) -> dict[str, Figure]:
    found: dict[str, Figure] = {}
    for results in passes:
        for r in results:
            found.setdefault(r.name, Figure(r.name, r.url, [])).runs.append(r)
    return found


def floor_mean(found: dict[str, Figure]) -> float:
    """The mean of every floor run of the phase (first and last of each pass)."""
    runs = [r.rps for name in ("floor", "floor-after") for r in found[name].runs]
    return sum(runs) / len(runs)


PATH_NOTES = {
    "board-demo-tab-htmx": " (HX-Request)",
    "board-large-plain": " (no Accept-Encoding)",
    "vote": " (signed in, one account on 50 connections)",
    "floor-signed-in": " (signed in: a view that reads the session and the account, nothing more)",
}


def table(found: dict[str, Figure], floor: float, calm: dict[str, Figure] | None = None) -> list[str]:
    """The markdown table of one phase; with `calm` (the no-write figures) the write table's extra columns."""
    head = "| page | path | req/s | p50 ms | p99 ms | of floor |"
    rule = "|---|---|---|---|---|---|"
    if calm is not None:
        head += " of floor, no writes | votes/s |"
        rule += "---|---|"
    lines = [head + " non-2xx | socket errors |", rule + "---|---|"]
    calm_floor = floor_mean(calm) if calm else 0.0
    for f in found.values():
        row = (
            f"| {f.name} | `{f.url}`{PATH_NOTES.get(f.name, '')} | {f.cell('rps', 0)} | {f.cell('p50_ms', 1)} "
            f"| {f.cell('p99_ms', 1)} | {f.rps / floor:.0%} |"
        )
        if calm is not None:
            row += f" {calm[f.name].rps / calm_floor:.0%} | {f.cell('votes_per_s', 1)} |"
        lines.append(row + f" {f.non_2xx} | {f.errors} |")
    return lines


def target_lines(calm: dict[str, Figure], busy: dict[str, Figure], rate: float) -> list[str]:
    """The issue's target read off the two tables: under writes on appbench, every other benchmark's board keeps
    its no-write ratio of the floor (within OTHER_BOARD_KEEP of it), and appbench's board reaches 50% of the
    floor measured under the same writes."""
    calm_floor, busy_floor = floor_mean(calm), floor_mean(busy)
    kept = []
    for name in OTHER_BOARDS:
        before, after = calm[name].rps / calm_floor, busy[name].rps / busy_floor
        kept.append((name, before, after, after >= OTHER_BOARD_KEEP * before))
    voted = busy[VOTED_BOARD].rps / busy_floor
    votes = [r.votes_per_s for f in busy.values() for r in f.runs if r.votes_per_s is not None]
    reached = statistics.median(votes) >= 0.9 * rate

    def verdict(ok: bool) -> str:
        return ("met" if ok else "not met") if reached else "not shown (the vote rate was not reached)"

    others = ", ".join(f"{n} {a:.0%} (no writes {b:.0%})" for n, b, a, _ in kept)
    return [
        f"Target under {rate:g} votes/s on {VOTED} (achieved: median {statistics.median(votes):.1f} votes/s over the "
        f"page runs, {min(votes):.1f}-{max(votes):.1f}{'' if reached else '; **below the rate asked**'}):",
        f"- other benchmarks' boards keep their no-write ratio (at least {OTHER_BOARD_KEEP:.0%} of it): "
        f"**{verdict(all(k[3] for k in kept))}**: {others}.",
        f"- the voted board ({VOTED_BOARD}) at 50% of the floor or better under writes: "
        f"**{verdict(voted >= 0.5)}**: {voted:.0%} of the floor under writes "
        f"({busy[VOTED_BOARD].rps:,.0f} / {busy_floor:,.0f} req/s; {busy[VOTED_BOARD].rps / calm_floor:.0%} of the "
        f"no-write floor; no writes {calm[VOTED_BOARD].rps / calm_floor:.0%}).",
    ]


def write_lines(before: dict, after: dict, writer, worker, seconds: float, cpu: float) -> list[str]:
    """What the writes did: votes stored and counted, refits, and how often each benchmark's pages were retired."""
    refits = worker.refit_seconds()
    scopes = [slug for slug in after if isinstance(after[slug], dict)]
    names = {"*": "the pages outside any benchmark (home)"}
    retired = ", ".join(f"{names.get(s, s)} {after[s]['pages'] - before[s]['pages']}" for s in scopes)
    mean_refit = f", {statistics.mean(refits):.2f} s each on average" if refits else ""
    lines = [
        f"Writes over {seconds:.0f} s: {len(writer.accepted)} votes stored (the reveal answered), "
        f"{after['counted'] - before['counted']} counted and {after['held'] - before['held']} held in the database; "
        f"{len(refits)} recomputes by the worker{mean_refit}, {cpu:.0f} s of CPU in all ({cpu / seconds:.0%} of one "
        f"core); {VOTED} ratings snapshot version "
        f"{before[VOTED].get('version')} -> {after[VOTED].get('version')}, "
        f"stale at the end: {after[VOTED].get('stale')}.",
        f"Cached pages retired (content version bumps) during the writes: {retired}.",
    ]
    if writer.refused:
        lines.append("Votes refused: " + "; ".join(f"{n} x {what}" for what, n in writer.refused.most_common(5)) + ".")
    return lines


# --- the run --------------------------------------------------------------------------------------------------

# Every vote comes from 127.0.0.1 and the writers vote for the whole run: the per-address limits and the daily cap
# would otherwise hold or refuse most of them (bench/bench_votes.py raises the same limits).
WRITE_LIMITS = {"VOTE_RATE_LIMIT": "1000000", "VOTE_DRAW_RATE_LIMIT": "1000000", "VOTE_DAILY_CAP": "1000000"}


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 s per page instead of 20 s")
    parser.add_argument("--duration", type=int, help="seconds per page (overrides --quick)")
    parser.add_argument("--repeats", type=int, default=3, help="passes over the page list per phase (default 3)")
    parser.add_argument(
        "--writes", action=argparse.BooleanOptionalAction, default=True, help="the pass under writes (default on)"
    )
    parser.add_argument("--vote-rate", type=float, default=10.0, help="accepted votes a second on appbench")
    parser.add_argument("--writers", type=int, default=20, help="voter accounts sharing the vote rate")
    parser.add_argument("--celery-concurrency", type=int, default=1)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=workers())
    parser.add_argument("--port", type=int, default=8131)
    parser.add_argument("--database", default="leaderboard_bench_pages")
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the bench database first")
    parser.add_argument(
        "--pages", default="", help="only these pages, by name, comma-separated (e.g. vote); the floor always"
    )
    args = parser.parse_args()
    assert args.database.startswith("leaderboard_bench_pages")
    args.duration = args.duration or (5 if args.quick else 20)
    return args


def run_writes(env: dict[str, str], server: Server, pages: dict, args: argparse.Namespace, cookie: str):
    """The passes under writes: the Celery worker and the voters start first and stop after the last pass."""
    from bench.page_writes import CeleryWorker, VoteWriter, write_state, writer_sessions

    sessions = writer_sessions(env, args.writers)
    slugs = [VOTED, "artb", LARGE["slug"]]
    before = write_state(env, slugs)
    started = time.monotonic()
    with CeleryWorker(env, args.celery_concurrency) as worker:
        with VoteWriter(server.url, sessions, rate=args.vote_rate, scope=VOTED) as writer:
            time.sleep(5)  # the stream is steady and the first refit is under way before the first page
            passes = [
                measure_pass(
                    server, pages, label=f"writes {i + 1}/{args.repeats}", args=args, cookie=cookie, writer=writer
                )
                for i in range(args.repeats)
            ]
        seconds, cpu = time.monotonic() - started, worker.cpu_seconds()
        after = write_state(env, slugs)
        notes = write_lines(before, after, writer, worker, seconds, cpu)
        if worker.problems():
            notes.append("Celery worker errors:\n" + worker.problems())
    return figures(passes), notes


def report(args: argparse.Namespace, header: list[str], calm: dict[str, Figure], busy, notes: list[str]) -> None:
    lines = [*header, ""]
    calm_floor = floor_mean(calm)
    passes = f"{args.repeats} pass{'es' if args.repeats > 1 else ''}"
    lines += [
        f"No writes: median of {passes} (min-max), floor = {calm_floor:,.0f} req/s "
        f"(mean of the {2 * args.repeats} floor runs).",
        "",
        *table(calm, calm_floor),
        "",
    ]
    if busy is not None:
        busy_floor = floor_mean(busy)
        lines += [
            f"Under writes ({args.vote_rate:g} votes/s on {VOTED}, Celery worker refitting): median of {passes}, "
            f"floor under writes = {busy_floor:,.0f} req/s; *of floor* is against that floor, *of floor, no writes* "
            "is the same page's ratio in the table above.",
            "",
            *table(busy, busy_floor, calm),
            "",
            *target_lines(calm, busy, args.vote_rate),
            "",
            *notes,
        ]
    print("\n--- for bench/README.md ---------------------------------------------------------------------\n")
    print("\n".join(lines))


def main() -> None:
    args = arguments()
    # A run stopped with SIGTERM (or SIGINT, which a background shell job ignores) still stops its server,
    # worker and voters on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped (SIGTERM)"))
    ensure_wrk()
    env = bench_env(database=args.database, redis_db=7, extra=WRITE_LIMITS)
    if args.fresh:
        drop_database(args.database)
    flush_redis(7, 8)
    print(f"database {args.database}: {'created' if ensure_database(args.database) else 'exists'}")
    prepare_site(env)
    pages = targets(env)
    if args.pages:  # a subset, in the list's order, always with the floor first and last (the ratios' base)
        asked = set(args.pages.split(",")) | {"floor", "floor-after"}
        if unknown := asked - set(pages):
            sys.exit(f"no such page: {', '.join(sorted(unknown))} (pages: {', '.join(pages)})")
        pages = {name: page for name, page in pages.items() if name in asked}
    cookie = voter_cookie(env)
    began = datetime.now(UTC)
    line = machine(env)
    print(line)
    settings = (
        f"gunicorn {args.workers} sync workers; wrk 2 threads, {args.connections} connections, {args.duration} s per "
        f"page; {args.repeats} pass{'es' if args.repeats > 1 else ''} per phase"
    )
    print(settings)
    with Server(env, args.port, args.workers) as server:
        calm = figures(
            [
                measure_pass(server, pages, label=f"no writes {i + 1}/{args.repeats}", args=args, cookie=cookie)
                for i in range(args.repeats)
            ]
        )
        busy, notes = run_writes(env, server, pages, args, cookie) if args.writes else (None, [])
        errors = server.errors()
    ended = datetime.now(UTC)
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    header = [
        f"### Current figures ({began:%Y-%m-%d})",
        "",
        f"`.venv/bin/python bench/bench_pages.py {' '.join(sys.argv[1:])}`".replace(" `", "`"),
        f"run {began:%Y-%m-%d %H:%M}-{ended:%H:%M} UTC; {settings}.",
        f"Machine: {line}, after {' '.join(load_after)}.",
    ]
    report(args, header, calm, busy, notes)
    if errors.strip():
        print("\ngunicorn log:\n" + errors[-3000:])
    flush_redis(7, 8)


if __name__ == "__main__":
    main()
