"""Votes under load: 200 signed-in voters cast 20,000 votes through the real HTTP endpoints.

    .venv/bin/python bench/bench_votes.py                       # 200 voters, 20,000 votes
    .venv/bin/python bench/bench_votes.py --voters 50 --votes 2000
    .venv/bin/python bench/bench_votes.py --keep-rate-limit     # the default limits: count the 429s

Set-up (not timed): a fresh database `leaderboard_bench_votes` with the demo data (`load_demo`; appbench is
the votable benchmark), `recompute_boards`, and `--voters` accounts three days old (older than the new-account
delay) sharing one password. gunicorn serves the site as in bench/bench_pages.py (production settings,
PostgreSQL, the Redis cache on Redis database 9, broker 10). Every voter signs in through /signin/ (GET for the
CSRF cookie, POST the form) and keeps its cookies. Then every voter, in its own thread, loops: GET /vote/
(the matchup: its key is in the vote form), POST /vote/m/<key>/ with `winner` and the CSRF token, until the
total number of POSTs reaches `--votes`.

Voters all come from 127.0.0.1, so the per-address limits would reject nearly every vote: by default the run
raises VOTE_RATE_LIMIT and VOTE_DRAW_RATE_LIMIT (environment of the server) so the limits do not dominate,
and leaves VOTE_DAILY_CAP at 200 (a voter casts 100 here). `--keep-rate-limit` keeps the defaults and counts
the 429s as rejections.

Afterwards it checks: every POST answered 302 (accepted) has exactly one row in voting_vote with that
matchup; no other row exists; every other answer is a 4xx with a message; no 5xx.

No Celery worker runs: a counted vote marks the ratings stale and enqueues one refit (debounced by the stale
flag), which waits in the broker (flushed afterwards).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_pages import (  # noqa: E402
    Server,
    bench_env,
    django_eval,
    drop_database,
    ensure_database,
    flush_redis,
    machine,
    prepare_site,
    workers,
)

PASSWORD = "bench-voter-pass-2026"
KEY_RE = re.compile(r'action="/vote/m/([^/"]+)/"')
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
            resp = self.opener.open(req, timeout=60)
        except urllib.error.HTTPError as e:
            resp = e
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
    rng = random.Random(voter.username)
    while tally.take():
        started = time.perf_counter()
        status, page = voter.request("/vote/")
        elapsed = (time.perf_counter() - started) * 1000
        key = KEY_RE.search(page) if status == 200 else None
        with tally.lock:
            tally.get_ms.append(elapsed)
            tally.get_status[status] += 1
        if key is None:
            with tally.lock:
                tally.rejections[(status, "GET /vote/: " + message_of(page))] += 1
                if status >= 500 or not message_of(page):
                    tally.silent.append((status, page[:200]))
            if status == 429:
                time.sleep(0.5)
            continue
        winner = rng.choice(["a", "b", "tie"])
        started = time.perf_counter()
        status, page = voter.request(
            f"/vote/m/{key.group(1)}/", {"winner": winner, "csrfmiddlewaretoken": voter.csrf()}
        )
        elapsed = (time.perf_counter() - started) * 1000
        with tally.lock:
            tally.post_ms.append(elapsed)
            tally.post_status[status] += 1
            if status == 302:
                tally.accepted.append(key.group(1))
            else:
                tally.rejections[(status, "POST: " + message_of(page))] += 1
                if status >= 500 or not (400 <= status < 500) or not message_of(page):
                    tally.silent.append((status, page[:200]))


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else (values[0] if values else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--voters", type=int, default=200)
    parser.add_argument("--votes", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=workers())
    parser.add_argument("--port", type=int, default=8141)
    parser.add_argument("--keep-rate-limit", action="store_true", help="keep the default vote rate limits")
    parser.add_argument("--database", default="leaderboard_bench_votes")
    args = parser.parse_args()

    extra = {} if args.keep_rate_limit else {"VOTE_RATE_LIMIT": "1000000", "VOTE_DRAW_RATE_LIMIT": "1000000"}
    env = bench_env(database=args.database, redis_db=9, extra=extra)
    drop_database(args.database)  # a fresh database each run, so the row count check is exact
    ensure_database(args.database)
    flush_redis(9, 10)
    prepare_site(env, large=False)
    names = create_voters(env, args.voters)
    before = int(django_eval(env, "from voting.models import Vote; print(Vote.objects.count())"))
    print(machine(env))
    limits = "default vote rate limits" if args.keep_rate_limit else "VOTE_RATE_LIMIT and VOTE_DRAW_RATE_LIMIT 1000000"
    print(f"gunicorn {args.workers} sync workers; {args.voters} voters, {args.votes} votes; {limits}")
    with Server(env, args.port, args.workers) as server:
        voters = [Voter(server.url, name) for name in names]
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=min(args.voters, 50)) as pool:
            list(pool.map(lambda v: v.sign_in(), voters))
        print(f"signed in {len(voters)} voters over HTTP in {time.perf_counter() - started:.1f} s (not timed below)")
        tally = Tally(args.votes)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.voters) as pool:
            for future in [pool.submit(vote_loop, v, tally) for v in voters]:
                future.result()
        wall = time.perf_counter() - started
        errors = server.errors()

    import json
    import tempfile

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
    result = json.loads(check.splitlines()[-1])
    posts = sum(tally.post_status.values())
    print(
        f"\nwall {wall:.1f} s; POSTs {posts}; accepted {len(tally.accepted)} "
        f"({len(tally.accepted) / wall:.1f} accepted votes/s, {posts / wall:.1f} POSTs/s)"
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


if __name__ == "__main__":
    main()
