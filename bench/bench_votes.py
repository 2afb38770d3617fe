"""Votes under load: 200 signed-in voters cast 20,000 votes through the real HTTP endpoints.

    .venv/bin/python bench/bench_votes.py                       # 200 voters, 20,000 votes
    .venv/bin/python bench/bench_votes.py --voters 50 --votes 2000
    .venv/bin/python bench/bench_votes.py --keep-rate-limit     # the default limits: count the 429s

Set-up (not timed): a fresh database `leaderboard_bench_votes` with the demo data (`load_demo`; appbench is
the votable benchmark), `recompute_boards`, and `--voters` accounts three days old (older than the new-account
delay), each with a session made in the database (`--http-sign-in` signs each in through /signin/ instead:
PBKDF2 per voter, minutes for 200 on a loaded machine). gunicorn serves the site as in bench/bench_pages.py
(production settings, PostgreSQL, the Redis cache on Redis database 9, broker 10). Then every voter, in its own
thread, votes as the vote screen's htmx does (`HX-Request: true`), until the total number of POSTs reaches
`--votes`: GET /vote/ for a pair (its key is in the vote form; the first one also sets the CSRF cookie), then
POST /vote/m/<key>/ with `winner` and the CSRF token. The answer to the vote is the revealed pair; when it also
holds the next pair (drawn with the vote, the one-request flow) the voter votes on that at once, otherwise (the
code before that flow) it GETs /vote/ again.

Voters all come from 127.0.0.1, so the per-address limits would reject nearly every vote: the run raises
ACCOUNT_RATE_LIMIT (sign-ins per address) and, by default, VOTE_RATE_LIMIT and VOTE_DRAW_RATE_LIMIT
(environment of the server) so the limits do not dominate, and leaves VOTE_DAILY_CAP at 200 (a voter casts 100
here). `--keep-rate-limit` keeps the vote limits at their defaults and counts the 429s as rejections.

Afterwards it checks: every POST answered with the revealed pair (accepted) has exactly one row in voting_vote
with that matchup; no other row exists; every other answer is a 4xx with a message; no 5xx.

A real Celery worker (one process) runs beside the server, so a counted vote's ratings refit happens during
the run, as in production. The server's CPU per vote is the CPU time (user + system, from /proc) the gunicorn
master and workers used during the voting phase divided by the accepted votes: everything the server does for a
vote, its draw and its reveal included (one POST, or a POST and a GET /vote/). The worker's CPU is reported
beside it.

    .venv/bin/python bench/bench_votes.py --compare <commit>    # the code of <commit> first, then this checkout

`--compare` runs the same benchmark twice in one invocation, first on a worktree of the older commit (in the
temporary directory, with this checkout's virtualenv and its own database), then on this checkout, and prints
both rows and their ratios: before and after figures taken minutes apart on the same machine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_pages  # noqa: E402
from bench.bench_pages import (  # noqa: E402
    ROOT,
    Server,
    bench_env,
    django_eval,
    drop_database,
    ensure_database,
    flush_redis,
    machine,
    prepare_site,
    voter_sessions,
    workers,
)

PASSWORD = "bench-voter-pass-2026"
KEY_RE = re.compile(r'action="/vote/m/([^/"]+)/"')
ACCEPTED = "You voted"  # the revealed pair's line, in the answer to an accepted vote
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Voter:
    """One voter's browser. Cookies are kept by hand: production settings mark them Secure, and a cookie jar
    rightly refuses to send a Secure cookie over the plain-HTTP loopback this benchmark uses."""

    def __init__(self, base: str, username: str) -> None:
        self.base, self.username = base, username
        self.cookies: dict[str, str] = {}
        self.opener = urllib.request.build_opener(NoRedirect)

    def request(self, path: str, data: dict | None = None, headers: dict | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        req = urllib.request.Request(
            self.base + path,
            data=body,
            headers={"Referer": self.base + "/vote/", **({"Cookie": cookie} if cookie else {}), **(headers or {})},
        )
        try:
            resp = self.opener.open(req, timeout=600)
        except urllib.error.HTTPError as e:
            resp = e
        except OSError as e:  # a client-side timeout or reset: counted as a rejection, not a crash
            return 0, f"<p>no answer: {e}</p>"
        with resp:
            for header in resp.headers.get_all("Set-Cookie") or []:
                name, _, value = header.split(";", 1)[0].partition("=")
                self.cookies[name.strip()] = value.strip()
            return resp.status, resp.read().decode(errors="replace")

    def csrf(self) -> str:
        return self.cookies.get("csrftoken", "")

    def sign_in(self) -> None:
        status, page = self.request("/signin/")
        token = CSRF_RE.search(page).group(1)
        status, _ = self.request(
            "/signin/", {"username": self.username, "password": PASSWORD, "csrfmiddlewaretoken": token}
        )
        if status != 302:
            raise RuntimeError(f"sign-in of {self.username} answered {status}")


def create_voters(env: dict[str, str], n: int) -> list[str]:
    code = (
        "from datetime import timedelta\n"
        "from django.contrib.auth import get_user_model\n"
        "from django.contrib.auth.hashers import make_password\n"
        "from django.utils import timezone\n"
        "User = get_user_model()\n"
        f"names = [f'bench-voter-{{i:03d}}@example.org' for i in range({n})]\n"
        "User.objects.filter(username__in=names).delete()\n"
        f"hashed = make_password({PASSWORD!r})\n"
        "joined = timezone.now() - timedelta(days=3)\n"
        "User.objects.bulk_create([User(username=u, email=u, password=hashed, date_joined=joined) for u in names])\n"
        "print(len(names))\n"
    )
    django_eval(env, code)
    return [f"bench-voter-{i:03d}@example.org" for i in range(n)]


class Tally:
    def __init__(self, total: int) -> None:
        self.lock = threading.Lock()
        self.left = total
        self.post_ms: list[float] = []
        self.get_ms: list[float] = []
        self.post_status: Counter[int] = Counter()
        self.get_status: Counter[int] = Counter()
        self.accepted: list[str] = []
        self.rejections: Counter[tuple[int, str]] = Counter()
        self.silent: list[tuple[int, str]] = []

    def take(self) -> bool:
        with self.lock:
            if self.left <= 0:
                return False
            self.left -= 1
            return True


def message_of(page: str) -> str:
    """The human message of a refusal page: its first <p> or <h1>, else the start of the body."""
    found = re.search(r"<(?:p|h1)[^>]*>(.*?)</(?:p|h1)>", page, re.S)
    text = re.sub(r"<[^>]+>|\s+", " ", found.group(1) if found else page).strip()
    return text[:90]


def vote_loop(voter: Voter, tally: Tally) -> None:
    """One voter, as the vote screen's htmx does: POST the vote with `HX-Request`; its answer (the revealed
    pair) holds the next pair's key when the server drew it with the vote, else the voter GETs /vote/ for one
    (the code before one-request votes always does)."""
    rng = random.Random(voter.username)
    key = None
    while tally.take():
        if key is None:
            started = time.perf_counter()
            status, page = voter.request("/vote/", headers={"HX-Request": "true"})
            elapsed = (time.perf_counter() - started) * 1000
            found = KEY_RE.search(page) if status == 200 else None
            with tally.lock:
                tally.get_ms.append(elapsed)
                tally.get_status[status] += 1
            if found is None:
                with tally.lock:
                    tally.rejections[(status, "GET /vote/: " + message_of(page))] += 1
                    if status >= 500 or not message_of(page):
                        tally.silent.append((status, page[:200]))
                if status == 429:
                    time.sleep(0.5)
                continue
            key = found.group(1)
        winner = rng.choice(["a", "b", "tie"])
        started = time.perf_counter()
        status, page = voter.request(
            f"/vote/m/{key}/", {"winner": winner, "csrfmiddlewaretoken": voter.csrf()}, headers={"HX-Request": "true"}
        )
        elapsed = (time.perf_counter() - started) * 1000
        with tally.lock:
            tally.post_ms.append(elapsed)
            tally.post_status[status] += 1
            if status == 200 and ACCEPTED in page:
                tally.accepted.append(key)
            else:
                tally.rejections[(status, "POST: " + message_of(page))] += 1
                if status >= 500 or not (400 <= status < 500) or not message_of(page):
                    tally.silent.append((status, page[:200]))
        following = KEY_RE.search(page) if status == 200 else None
        key = following.group(1) if following else None


def reference_ms() -> tuple[float, float]:
    """The machine's speed just now, in CPU time of two fixed workloads (best of five each): a million
    additions of squares in Python, and 1,000 `SELECT 1` round trips to PostgreSQL over loopback with
    psycopg (the driver's and the kernel's share of a statement; most of a vote's CPU is statements). On a
    shared machine the same code's CPU per vote follows them: compare runs by their CPU per vote beside these
    figures, not by the CPU per vote alone."""
    import psycopg

    best_py = best_sql = float("inf")
    with psycopg.connect(f"{bench_pages.PG}/postgres", autocommit=True) as conn:
        for _ in range(5):
            started = time.process_time()
            sum(i * i for i in range(1_000_000))
            best_py = min(best_py, time.process_time() - started)
            started = time.process_time()
            for _ in range(1000):
                conn.execute("SELECT 1").fetchone()
            best_sql = min(best_sql, time.process_time() - started)
    return 1000 * best_py, 1000 * best_sql


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else (values[0] if values else 0.0)


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc (its own, not its children's)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_pids(root_pid: int) -> list[int]:
    """The process and all its descendants (gunicorn's master and workers; celery's main and pool)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def tree_cpu(root_pid: int) -> dict[int, float]:
    cpu = {}
    for pid in tree_pids(root_pid):
        try:
            cpu[pid] = proc_cpu(pid)
        except OSError:
            pass
    return cpu


def cpu_used(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds used between two readings by the processes of a tree (a process that started meanwhile
    counts from zero; one that ended is lost, so the figure is a lower bound: gunicorn workers do not restart)."""
    return sum(after[pid] - before.get(pid, 0.0) for pid in after)


class Worker:
    """A real Celery worker (`celery -A config worker`, 1 process) with the run's environment: ratings
    refits run during the vote storm, as in production."""

    def __init__(self, env: dict[str, str], root: Path) -> None:
        self.env, self.root = env, root
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Worker:
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".celery.log", delete=False)
        self.proc = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "celery"),
                "-A",
                bench_pages.project_package(self.root),
                "worker",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=self.root,
            env=self.env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline and "ready" not in Path(self.log.name).read_text(errors="replace"):
            time.sleep(0.3)
        return self

    def refits(self) -> int:
        log = Path(self.log.name).read_text(errors="replace").splitlines()
        return sum(1 for line in log if "recompute_snapshot" in line and "succeeded" in line)

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def checkout(rev: str) -> Path:
    """A detached worktree of `rev` beside the repository's temporary files (made once, reused)."""
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True, check=True)
    path = Path(tempfile.gettempdir()) / f"leaderboard-bench-{sha.stdout.strip()}"
    if not path.exists():
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(path), rev], cwd=ROOT, capture_output=True, check=True
        )
    return path


def use_tree(root: Path) -> None:
    """Serve and set up the code in `root` (this checkout, or a worktree of an older commit) with this
    checkout's virtualenv: the helpers of bench_pages read these module globals at call time."""
    bench_pages.ROOT = root
    bench_pages.PY = str(ROOT / ".venv" / "bin" / "python")
    bench_pages.GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")


def run_once(args, label: str, root: Path, database: str) -> dict:
    """Set up a fresh site from the code in `root`, cast the votes, check them; the figures of one run."""
    use_tree(root)
    # Every voter signs in from 127.0.0.1: the per-address sign-in limit would stop the 21st.
    extra = {"ACCOUNT_RATE_LIMIT": "1000000"}
    if not args.keep_rate_limit:
        extra |= {"VOTE_RATE_LIMIT": "1000000", "VOTE_DRAW_RATE_LIMIT": "1000000"}
    env = bench_env(database=database, redis_db=9, extra=extra)
    env["PYTHONPATH"] = str(root)
    drop_database(database)  # a fresh database each run, so the row count check is exact
    ensure_database(database)
    flush_redis(9, 10)
    prepare_site(env, large=False)
    names = create_voters(env, args.voters)
    sessions = [] if args.http_sign_in else voter_sessions(env, names)
    before = int(django_eval(env, "from voting.models import Vote; print(Vote.objects.count())"))
    print(f"\n== {label}: {root}")
    print(machine(env))
    reference = reference_ms()
    print(
        f"machine speed (`reference_ms`): {reference[0]:.1f} ms of CPU for the Python workload, "
        f"{reference[1]:.1f} ms for 1,000 statements"
    )
    limits = "default vote rate limits" if args.keep_rate_limit else "VOTE_RATE_LIMIT and VOTE_DRAW_RATE_LIMIT 1000000"
    print(
        f"gunicorn {args.workers} sync workers, 1 Celery worker process; {args.voters} voters, {args.votes} votes; "
        f"{limits}"
    )
    with Worker(env, root) as worker, Server(env, args.port, args.workers) as server:
        voters = [Voter(server.url, name) for name in names]
        if args.http_sign_in:
            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=min(args.voters, 50)) as pool:
                list(pool.map(lambda v: v.sign_in(), voters))
            print(f"signed in {len(voters)} voters over HTTP in {time.perf_counter() - started:.1f} s (not timed)")
        else:
            for voter, key in zip(voters, sessions, strict=True):
                voter.cookies["sessionid"] = key  # the CSRF cookie comes with the first vote screen
        tally = Tally(args.votes)
        assert server.proc is not None and worker.proc is not None
        server_cpu0, worker_cpu0 = tree_cpu(server.proc.pid), tree_cpu(worker.proc.pid)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.voters) as pool:
            for future in [pool.submit(vote_loop, v, tally) for v in voters]:
                future.result()
        wall = time.perf_counter() - started
        server_cpu = cpu_used(server_cpu0, tree_cpu(server.proc.pid))
        worker_cpu = cpu_used(worker_cpu0, tree_cpu(worker.proc.pid))
        refits = worker.refits()
        errors = server.errors()

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(tally.accepted, fh)
    check = django_eval(
        env,
        (
            "import json\n"
            "from collections import Counter\n"
            "from voting.models import Vote\n"
            f"keys = json.load(open({fh.name!r}))\n"
            f"rows = Vote.objects.filter(voter__username__startswith='bench-voter-')\n"
            "per_key = Counter(rows.values_list('matchup__key', flat=True))\n"
            "accepted = Counter(keys)\n"
            "print(json.dumps({'rows': rows.count(), 'accepted': len(keys), 'accepted_distinct': len(accepted),"
            " 'missing': sum(1 for k in accepted if per_key.get(k, 0) == 0),"
            " 'duplicated': sum(1 for k, n in per_key.items() if n > 1),"
            " 'unexpected': sum(1 for k in per_key if k not in accepted),"
            " 'counting': rows.filter(counts=True).count(),"
            " 'held': dict(Counter(rows.values_list('held', flat=True)))}))\n"
        ),
    )
    os.unlink(fh.name)
    result = json.loads(check.splitlines()[-1])
    posts = sum(tally.post_status.values())
    accepted = len(tally.accepted)
    print(
        f"wall {wall:.1f} s; POSTs {posts}; accepted {accepted} "
        f"({accepted / wall:.1f} accepted votes/s, {posts / wall:.1f} POSTs/s)"
    )
    print(
        f"server CPU (gunicorn master + workers, /proc utime + stime): {server_cpu:.1f} s = "
        f"{1000 * server_cpu / max(accepted, 1):.1f} ms per accepted vote (its draw, record and reveal); "
        f"Celery worker CPU {worker_cpu:.1f} s over {refits} ratings refits"
    )
    print(
        f"POST /vote/m/<key>/: p50 {pct(tally.post_ms, 50):.0f} ms, p99 {pct(tally.post_ms, 99):.0f} ms, "
        f"max {max(tally.post_ms or [0]):.0f} ms; statuses {dict(sorted(tally.post_status.items()))}"
    )
    print(
        f"GET /vote/: p50 {pct(tally.get_ms, 50):.0f} ms, p99 {pct(tally.get_ms, 99):.0f} ms, "
        f"max {max(tally.get_ms or [0]):.0f} ms; statuses {dict(sorted(tally.get_status.items()))}"
    )
    print(f"rows before {before}; check: {result}")
    ok = (
        result["rows"] == result["accepted"] == result["accepted_distinct"]
        and not result["missing"]
        and not result["duplicated"]
        and not result["unexpected"]
    )
    print("every accepted vote stored exactly once:", "YES" if ok else "NO")
    for (status, message), n in tally.rejections.most_common(10):
        print(f"  rejected {n} x {status}: {message}")
    print("rejections without a clear 4xx message (or 5xx):", len(tally.silent))
    for status, text in tally.silent[:5]:
        print(f"  {status}: {text!r}")
    if errors.strip():
        print("gunicorn log (tail):\n" + errors[-2000:])
    flush_redis(9, 10)
    return {
        "label": label,
        "reference_ms": reference,
        "wall": wall,
        "accepted": accepted,
        "rate": accepted / wall,
        "cpu_ms": 1000 * server_cpu / max(accepted, 1),
        "worker_cpu": worker_cpu,
        "refits": refits,
        "post_p50": pct(tally.post_ms, 50),
        "post_p99": pct(tally.post_ms, 99),
        "get_p50": pct(tally.get_ms, 50),
        "get_p99": pct(tally.get_ms, 99),
        "stored_once": ok,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voters", type=int, default=200)
    parser.add_argument("--votes", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=workers())
    parser.add_argument("--port", type=int, default=8141)
    parser.add_argument("--keep-rate-limit", action="store_true", help="keep the default vote rate limits")
    parser.add_argument("--database", default="leaderboard_bench_votes")
    parser.add_argument(
        "--http-sign-in", action="store_true", help="sign every voter in over HTTP (default: sessions made directly)"
    )
    parser.add_argument("--compare", metavar="REV", help="first run the code of commit REV (before), then this one")
    args = parser.parse_args()

    runs = []
    if args.compare:
        runs.append(run_once(args, f"before ({args.compare})", checkout(args.compare), args.database + "_before"))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    runs.append(run_once(args, f"this checkout ({head.stdout.strip()})", ROOT, args.database))
    print(
        "\n| code | accepted votes | wall s | accepted votes/s | server CPU ms per vote "
        "| reference ms: Python / 1,000 statements "
        "| POST p50 / p99 ms | GET /vote/ p50 / p99 ms | refits (worker CPU s) | stored once |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        print(
            f"| {r['label']} | {r['accepted']:,} | {r['wall']:.1f} | {r['rate']:.1f} | {r['cpu_ms']:.1f} "
            f"| {r['reference_ms'][0]:.0f} / {r['reference_ms'][1]:.0f} "
            f"| {r['post_p50']:.0f} / {r['post_p99']:.0f} | {r['get_p50']:.0f} / {r['get_p99']:.0f} "
            f"| {r['refits']} ({r['worker_cpu']:.1f}) | {'yes' if r['stored_once'] else 'NO'} |"
        )
    if len(runs) == 2:
        print(
            f"\nvotes/s after / before: {runs[1]['rate'] / runs[0]['rate']:.1f}x; "
            f"CPU per vote after / before: {runs[1]['cpu_ms'] / runs[0]['cpu_ms']:.2f}"
        )


if __name__ == "__main__":
    main()
