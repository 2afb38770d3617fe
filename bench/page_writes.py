"""Writes during the page benchmark: a steady stream of blind votes over HTTP, and a real Celery worker.

bench/bench_pages.py measures its page list a second time with these running, so the figures include what
writes cost the readers: a counted vote turns the benchmark's ratings stale (its cached pages are retired and
show "updating"), the worker refits them, and the refit retires the pages again.

- `VoteWriter`: voter accounts three days old (past the new-account delay), each with a session created in the
  database (as `voter_cookie` does), vote at a steady rate as a browser does (bench/bench_votes.py's `Voter`
  keeps the cookies): GET /vote/?scope=<benchmark> (the matchup's key is in the form), then POST
  /vote/m/<key>/ with a random winner and the CSRF token. As in a browser with JavaScript, the first screen is a
  whole page and then htmx swaps the stage: the POST answers with the reveal and "Next pair" GETs the next stage
  (`HX-Request`), so the vote screen's scope list is built once per voter, not once per vote. Every voter has
  its own thread; a shared schedule hands out one slot every 1/rate seconds, and a slot more than a second late
  is skipped rather than made up in a burst, so the rate is steady and a slow server shows as a lower achieved
  rate.
- `CeleryWorker`: `celery -A config worker` in the environment of the server, so refits happen during the
  run, as in production.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench.bench_pages import ROOT, django_eval, voter_sessions
from bench.bench_votes import KEY_RE, Voter, message_of

CELERY = str(ROOT / ".venv" / "bin" / "celery")
LATE_SLOT_SECONDS = 1.0


class CeleryWorker:
    """A Celery worker process (prefork, `concurrency` children) with the given environment, stopped on exit."""

    def __init__(self, env: dict[str, str], concurrency: int = 1) -> None:
        self.env, self.concurrency = env, concurrency
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> CeleryWorker:
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".celery.log", delete=False)
        args = [CELERY, "-A", "config", "worker", "--loglevel", "INFO", "--concurrency", str(self.concurrency)]
        args += ["--without-gossip", "--without-mingle", "--without-heartbeat", "--hostname", "bench-pages@%h"]
        self.proc = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            if " ready." in self.output():
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.3)
        self.__exit__()
        raise SystemExit(f"the Celery worker did not start; log: {self.log.name}")

    def output(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def refit_seconds(self) -> list[float]:
        """How long each recompute the worker finished took (its INFO log names each one)."""
        found = re.findall(r"recompute_snapshot\[[^\]]+\] succeeded in ([\d.]+)s", self.output())
        return [float(s) for s in found]

    def cpu_seconds(self) -> float:
        """CPU time (user + system) of the worker and its pool processes so far, from /proc."""
        assert self.proc is not None
        pids = [self.proc.pid]
        try:
            pids += [int(p) for p in Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()]
        except OSError:
            return 0.0
        total = 0
        for i, pid in enumerate(pids):
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # utime, stime; for the worker itself also cutime, cstime (pool processes that have exited)
            total += int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if i == 0 else 0)
        return total / os.sysconf("SC_CLK_TCK")

    def problems(self) -> str:
        lines = [line for line in self.output().splitlines() if "ERROR" in line or "Traceback" in line]
        return "\n".join(lines[-20:])

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # warm shutdown: the task in hand finishes
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class VoteWriter:
    """Voters casting `rate` votes a second on `scope` (a benchmark's slug) until stopped."""

    def __init__(self, base: str, sessions: list[str], *, rate: float, scope: str) -> None:
        self.rate, self.scope = rate, scope
        self.voters = []
        for i, session in enumerate(sessions):
            voter = Voter(base, f"writer-{i}")
            voter.cookies["sessionid"] = session
            self.voters.append(voter)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.next_at = 0.0
        self.accepted: list[float] = []  # time.monotonic() of each 302
        self.refused: Counter[str] = Counter()
        self.threads: list[threading.Thread] = []

    def __enter__(self) -> VoteWriter:
        self.next_at = time.monotonic()
        for i, voter in enumerate(self.voters):
            thread = threading.Thread(target=self._loop, args=(voter, random.Random(i)), daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()
        deadline = time.monotonic() + 15  # a voter waiting on a slow answer is a daemon thread: left behind
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def _slot(self) -> float:
        with self.lock:
            at = max(self.next_at, time.monotonic() - LATE_SLOT_SECONDS)
            self.next_at = at + 1.0 / self.rate
            return at

    def _loop(self, voter, rng: random.Random) -> None:
        htmx: dict[str, str] = {}  # the first screen is a whole page; from then on htmx swaps the stage
        while not self.stopping.is_set():
            if self.stopping.wait(max(0.0, self._slot() - time.monotonic())):
                return
            try:
                status, page = voter.request(f"/vote/?scope={self.scope}", headers=htmx)
                key = KEY_RE.search(page) if status == 200 else None
                if key is None:
                    self._refuse(f"GET {status}: {message_of(page)}")
                    continue
                htmx = {"HX-Request": "true", "X-CSRFToken": voter.csrf()}
                data = {"winner": rng.choice(["a", "b", "tie"]), "csrfmiddlewaretoken": voter.csrf()}
                status, page = voter.request(f"/vote/m/{key.group(1)}/", data, headers=htmx)
            except OSError as exc:  # a timeout under load: counted, and the loop goes on
                self._refuse(f"{type(exc).__name__}: {exc}"[:90])
                continue
            if status == 200 and "You voted" in page:  # htmx answers a counted vote with the reveal
                with self.lock:
                    self.accepted.append(time.monotonic())
            else:
                self._refuse(f"POST {status}: {message_of(page)}")

    def _refuse(self, what: str) -> None:
        with self.lock:
            self.refused[what] += 1

    def accepted_between(self, start: float, end: float) -> int:
        with self.lock:
            return sum(1 for t in self.accepted if start <= t < end)


def writer_sessions(env: dict[str, str], n: int) -> list[str]:
    """Sessions of `n` voter accounts three days old (created once, reused by later runs)."""
    return voter_sessions(env, [f"bench-page-writer-{i:03d}" for i in range(n)])


def write_state(env: dict[str, str], slugs: list[str]) -> dict:
    """Per benchmark: its ratings snapshot's version and stale flag, and the version of its cached pages (how
    many times they were retired); "*" is the pages outside any benchmark (the home page). Also the counted
    votes of the writer accounts."""
    code = (
        "import json\n"
        "from django.core.cache import cache\n"
        "from leaderboard.caching import OUTSIDE_SCOPE, _scope_key\n"
        "from snapshots.models import BoardSnapshot, SnapshotKind\n"
        "from voting.models import Vote\n"
        "out = {}\n"
        f"for slug in {slugs!r} + [OUTSIDE_SCOPE]:\n"
        "    snap = (BoardSnapshot.objects.filter(benchmark__slug=slug, kind=SnapshotKind.RATINGS)\n"
        "            .values('version', 'stale').first() or {})\n"
        "    out[slug] = {'pages': cache.get(_scope_key(slug), 1), **snap}\n"
        "out['counted'] = Vote.objects.filter(voter__username__startswith='bench-page-writer-', counts=True).count()\n"
        "out['held'] = Vote.objects.filter(voter__username__startswith='bench-page-writer-', counts=False).count()\n"
        "print(json.dumps(out))\n"
    )
    return json.loads(django_eval(env, code).splitlines()[-1])
