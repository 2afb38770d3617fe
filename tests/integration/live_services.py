"""Helpers of the integration tests: worker processes on the test database, the broker, waiting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import redis
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).parent / "celery"


def worker_database_url() -> str:
    """The URL of the database this test session writes to (pytest-django's `test_<name>`)."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="")
    if s["PASSWORD"]:
        auth += ":" + quote(s["PASSWORD"], safe="")
    host = s["HOST"] or "127.0.0.1"
    port = f":{s['PORT']}" if s["PORT"] else ""
    return f"postgres://{auth}@{host}{port}/{quote(s['NAME'], safe='')}"


def broker_flush(url: str) -> None:
    """Empty this test run's queue (and its priority sub-queues): another run on the machine has its own
    queue in the same Redis database and keeps it."""
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    keys = [queue, *client.scan_iter(match=f"{queue}\x06*")]
    client.delete(*keys)


def queue_length(url: str, queue: str | None = None) -> int:
    return int(redis.Redis.from_url(url, socket_connect_timeout=2).llen(queue or settings.CELERY_TASK_DEFAULT_QUEUE))


def wait_for(
    predicate: Callable[[], object], timeout: float, what: str, interval: float = 0.1, log: Path | None = None
) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    tail = ""
    if log is not None and log.exists():
        tail = "\nworker log (last 3000 chars):\n" + log.read_text(errors="replace")[-3000:]
    raise AssertionError(f"timed out after {timeout} s waiting for {what}{tail}")


class Workers:
    """Starts Celery worker processes on the test database; kills them all at teardown."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.procs: list[subprocess.Popen] = []
        self.logs: list[Path] = []

    def env(self, **overrides: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "CELERY_TASK_ALWAYS_EAGER"}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "DATABASE_URL": worker_database_url(),
                "REDIS_URL": settings.REDIS_URL,
                "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
                "OPENBLAS_NUM_THREADS": "1",
                "PYTHONUNBUFFERED": "1",
            }
        )
        env.update(overrides)
        return env

    def start(self, *, beat: bool = False, **env: str) -> subprocess.Popen:
        n = len(self.procs)
        log = self.tmp_path / f"worker-{n}.log"
        cmd = [
            str(CELERY),
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            settings.CELERY_TASK_DEFAULT_QUEUE,
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            "-l",
            "warning",
            "-n",
            f"integration-{os.getpid()}-{n}@%h",
        ]
        if beat:
            cmd += ["--beat", "-s", str(self.tmp_path / f"beat-schedule-{n}")]
        with log.open("wb") as out:
            proc = subprocess.Popen(
                cmd, cwd=ROOT, env=self.env(**env), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.procs.append(proc)
        self.logs.append(log)
        return proc

    @property
    def log(self) -> Path | None:
        return self.logs[-1] if self.logs else None

    def kill(self, proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)  # its own session: the worker and anything it forked
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)

    def stop_all(self) -> None:
        for proc in self.procs:
            self.kill(proc, signal.SIGTERM)


def checks_bundle(
    *, slug: str = "big", agents: int = 40, tasks: int = 10, trials: int = 10, with_runs: bool = True, seed: int = 7
) -> dict:
    """A valid bundle of one published round on the `checks` methodology: every agent runs every task
    `trials` times (scores vary by agent and trial, deterministically)."""
    import random

    rng = random.Random(seed)
    doc: dict = {
        "benchmark": {"slug": slug, "name": f"Bench {slug}", "methodology": "checks", "params": {"preview_hours": 0}},
        "agents": [
            {"slug": f"agent-{a:03d}", "name": f"Agent {a:03d}", "organization": f"Org {a % 7}"} for a in range(agents)
        ],
        "tasks": [
            {
                "key": f"task-{t:02d}",
                "title": f"Task {t:02d}",
                "version": "1.0",
                "kind": "to-spec",
                "time_limit_min": 30,
                "token_budget": 1_000_000,
                "prompt": f"Build app {t}.",
            }
            for t in range(tasks)
        ],
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-10-01T12:00:00Z",
                "entries": [{"agent": f"agent-{a:03d}"} for a in range(agents)],
            }
        ],
        "runs": [],
    }
    if not with_runs:
        return doc
    for a in range(agents):
        for t in range(tasks):
            for k in range(1, trials + 1):
                doc["runs"].append(run_doc(a, t, k, rng))
    return doc


def run_doc(a: int, t: int, k: int, rng) -> dict:
    return {
        "id": f"r1-{a:03d}-{t:02d}-{k}",
        "round": "r1",
        "agent": f"agent-{a:03d}",
        "task": f"task-{t:02d}",
        "trial": k,
        "status": "completed",
        "app_started": True,
        "api_checks_total": 12,
        "api_checks_passed": rng.randint(0, 12),
        "browser_steps_total": 9,
        "browser_steps_passed": rng.randint(0, 9),
        "tokens_input": rng.randint(10_000, 900_000),
        "wall_seconds": float(rng.randint(60, 3600)),
    }


class RedisServer:
    """A throwaway redis-server in the foreground (this process owns it), on its own port."""

    def __init__(self, port: int, tmp_path: Path) -> None:
        self.port, self.tmp_path, self.proc = port, tmp_path, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def ping(self) -> bool:
        try:
            return bool(redis.Redis(port=self.port, socket_connect_timeout=0.5).ping())
        except redis.exceptions.ConnectionError:
            return False

    def start(self) -> None:
        log = (self.tmp_path / f"redis-{self.port}.log").open("ab")
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.tmp_path),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_for(self.ping, 10, f"redis-server on port {self.port}", interval=0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


def two_agent_bundle(slug: str, name: str) -> dict:
    """One outcomes round, one task, two agents: alpha passes; for beta the tester and the second reviewer
    disagree and the third sides with fail, so beta scores 0 points."""
    return {
        "benchmark": {"slug": slug, "name": name, "methodology": "outcomes", "params": {"preview_hours": 0}},
        "agents": [
            {"slug": "alpha", "name": "Alpha", "organization": "Alpha Labs", "primary_language": "en"},
            {"slug": "beta", "name": "Beta", "organization": "Beta Inc", "primary_language": "en"},
        ],
        "tasks": [
            {
                "key": "t1",
                "title": "Book a table",
                "version": "1.0",
                "kind": "core",
                "dimensions": ["booking"],
                "prompt": "Book a table.",
            }
        ],
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-09-01T12:00:00Z",
                "entries": [{"agent": "alpha"}, {"agent": "beta"}],
            }
        ],
        "runs": [
            {
                "id": "r1-alpha-t1",
                "round": "r1",
                "agent": "alpha",
                "task": "t1",
                "status": "completed",
                "verdicts": [
                    {"role": "tester", "outcome": "pass", "note": "as seen"},
                    {"role": "second", "outcome": "pass"},
                ],
            },
            {
                "id": "r1-beta-t1",
                "round": "r1",
                "agent": "beta",
                "task": "t1",
                "status": "completed",
                "verdicts": [
                    {"role": "tester", "outcome": "pass", "note": "as seen"},
                    {"role": "second", "outcome": "fail"},
                    {"role": "third", "outcome": "fail"},
                ],
            },
        ],
    }


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(url: str) -> bool:
    import requests

    try:
        requests.get(url, timeout=1)
    except requests.RequestException:
        return False
    return True


def _stop(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


class S3Server:
    """moto's standalone S3-compatible server (`moto_server`, from the dev extra) on a free loopback port, with
    one bucket; stopped at teardown (its data lives in its memory only)."""

    KEY, SECRET, REGION = "testing", "testing", "us-east-1"

    def __init__(self, tmp_path: Path, bucket: str = "leaderboard-files") -> None:
        self.port, self.bucket, self.log = free_port(), bucket, tmp_path / "moto.log"
        self.proc: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def storage_url(self) -> str:
        return f"s3://{self.bucket}?endpoint_url={self.endpoint}&region_name={self.REGION}"

    def env(self) -> dict[str, str]:
        return {"AWS_ACCESS_KEY_ID": self.KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET, "AWS_DEFAULT_REGION": self.REGION}

    def client(self):
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=self.REGION,
            aws_access_key_id=self.KEY,
            aws_secret_access_key=self.SECRET,
        )

    def start(self) -> S3Server:
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(self.port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for(lambda: _answers(self.endpoint), 30, "moto_server to answer", log=self.log)
        self.client().create_bucket(Bucket=self.bucket)
        return self

    def names(self) -> list[str]:
        listed = self.client().list_objects_v2(Bucket=self.bucket)
        return [item["Key"] for item in listed.get("Contents", [])]

    def stop(self) -> None:
        _stop(self.proc)


class AppServer:
    """The site in a gunicorn process of its own on a free loopback port, on the test database, the test run's
    Redis (cache and broker) and the given environment (its own MEDIA_ROOT, a shared STORAGE_URL)."""

    def __init__(self, tmp_path: Path, name: str, env: dict[str, str]) -> None:
        self.port, self.name, self.env = free_port(), name, env
        self.log = tmp_path / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AppServer:
        cmd = [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            "1",
            "--threads",
            "2",
            "--log-level",
            "warning",
        ]
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                cmd, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        wait_for(lambda: _answers(self.url + "/"), 60, f"{self.name} to answer", log=self.log)
        return self

    def stop(self) -> None:
        _stop(self.proc)
