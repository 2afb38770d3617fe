"""Issue 8: faults on the production path (PostgreSQL, Redis, real Celery workers).

- a worker killed (SIGKILL) in the middle of a recompute: the board stays readable, marked "updating", and
  the periodic sweep of the next worker makes it fresh, equal to a direct recompute;
- Redis down: writes still store their rows (the database is the source of truth) without hanging, the
  public pages still serve, and the boards are recomputed once Redis is back;
- a bundle import interrupted half-way writes nothing.
"""

from __future__ import annotations

import copy
import json
import random
import signal
import subprocess
import sys
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.test import override_settings
from live_services import (
    ROOT,
    RedisServer,
    broker_flush,
    checks_bundle,
    queue_length,
    run_doc,
    two_agent_bundle,
    wait_for,
    worker_database_url,
)

from bundles.importer import bundle_import
from leaderboard.models import Agent, Benchmark, Entry, Organization, Round, Task, TaskVersion
from leaderboard.stale import snapshots_mark_stale
from recompute.boards import compute_round_boards, round_document, snapshot_recompute, snapshots_sweep
from runs.models import Run, Verdict
from snapshots.models import BoardSnapshot
from voting.models import Matchup

pytestmark = pytest.mark.services


def _seed_checks_round(*, agents: int, tasks: int, trials: int) -> Round:
    """A large round, fast: the catalogue through bundle_import, the runs with one bulk insert."""
    bundle_import(doc=checks_bundle(agents=agents, tasks=tasks, trials=trials, with_runs=False))
    rnd = Round.objects.get(benchmark__slug="big", key="r1")
    entries = {e.agent.slug: e for e in Entry.objects.filter(round=rnd).select_related("agent")}
    task_ids = dict(Task.objects.filter(benchmark=rnd.benchmark).values_list("key", "id"))
    rng = random.Random(3)
    fields = {f.name for f in Run._meta.concrete_fields}
    rows = []
    for a in range(agents):
        for t in range(tasks):
            for k in range(1, trials + 1):
                doc = run_doc(a, t, k, rng)
                values = {f: v for f, v in doc.items() if f in fields and f not in ("id", "round", "task")}
                rows.append(
                    Run(key=doc["id"], round=rnd, entry=entries[doc["agent"]], task_id=task_ids[doc["task"]], **values)
                )
    Run.objects.bulk_create(rows, batch_size=2000)
    return rnd


def _direct_boards(round_id: int) -> dict:
    return json.loads(json.dumps(compute_round_boards(round_document(round_id))))


def _holds_row_lock(snapshot_id: int) -> bool:
    """True while another transaction (the worker's recompute) holds the snapshot's row lock."""
    try:
        with transaction.atomic():
            BoardSnapshot.objects.select_for_update(nowait=True).get(pk=snapshot_id)
    except DatabaseError:
        return True
    return False


# --- (a) a worker killed in the middle of a recompute -------------------------------------------------------------


def test_it_heals_a_board_whose_worker_was_killed_mid_recompute(live_celery, client, capsys):
    rnd = _seed_checks_round(agents=40, tasks=10, trials=10)  # 4,000 runs
    snap = BoardSnapshot.objects.get(round=rnd, kind="boards")
    started = time.perf_counter()
    snapshot_recompute(snapshot_id=snap.pk)
    recompute_seconds = time.perf_counter() - started
    snap.refresh_from_db()
    before, version = snap.data, snap.version
    broker_flush(settings.CELERY_BROKER_URL)

    # New results for one agent: its runs now pass everything; the board is marked stale, a task enqueued.
    with transaction.atomic():
        Run.objects.filter(round=rnd, entry__agent__slug="agent-039").update(
            api_checks_passed=12, browser_steps_passed=9
        )
        snapshots_mark_stale(round_ids=[rnd.id])
    assert queue_length(settings.CELERY_BROKER_URL) == 1

    worker = live_celery.start()
    deadline = time.monotonic() + 60
    while not _holds_row_lock(snap.pk):
        assert BoardSnapshot.objects.get(pk=snap.pk).stale, (
            f"the worker finished before it could be killed (a recompute took {recompute_seconds:.2f} s here)"
        )
        assert time.monotonic() < deadline, live_celery.log.read_text()[-3000:]
        time.sleep(0.005)
    live_celery.kill(worker, signal.SIGKILL)
    assert worker.returncode == -signal.SIGKILL
    with capsys.disabled():
        print(f"\n[worker killed] a recompute of 4,000 runs takes {recompute_seconds:.2f} s here; killed inside it")

    # The recompute's transaction died with the worker: the last snapshot stands, marked stale.
    snap.refresh_from_db()
    assert snap.stale and snap.data == before and snap.version == version
    assert not _holds_row_lock(snap.pk)
    page = client.get("/b/big/r/r1/")
    assert page.status_code == 200
    assert "Updating" in page.content.decode() and "Agent 039" in page.content.decode()

    # A worker comes back with the beat: the sweep finds the board stale for longer than 2 s and recomputes it.
    live_celery.start(beat=True, STALE_SWEEP_SECONDS="2")
    wait_for(
        lambda: not BoardSnapshot.objects.get(pk=snap.pk).stale, 60, "the sweep to heal the board", log=live_celery.log
    )
    snap.refresh_from_db()
    assert snap.data == _direct_boards(rnd.id)
    assert snap.data != before and snap.version == version + 1
    top = snap.data["overall"][0]
    assert top["agent"] == "agent-039" and top["overall"] == 100.0
    page = client.get("/b/big/r/r1/")
    assert page.status_code == 200 and "Updating" not in page.content.decode()


# --- (b) Redis down -----------------------------------------------------------------------------------------------

SMALL = two_agent_bundle("small", "Small Bench")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def spare_redis(tmp_path, broker_at):
    """A throwaway Redis the app uses as its cache and broker for this test, so it can be stopped."""
    server = RedisServer(_free_port(), tmp_path)
    assert not server.ping(), "the spare Redis port is taken"
    server.start()
    cache = {"default": {**settings.CACHES["default"], "LOCATION": f"{server.url}/1"}}
    broker = f"{server.url}/2"
    try:
        with override_settings(CACHES=cache, CELERY_BROKER_URL=broker, REDIS_URL=f"{server.url}/1"):
            broker_at(broker)
            yield server
    finally:
        server.stop()


def _points(round_key: str, agent: str) -> int:
    snap = BoardSnapshot.objects.get(round__benchmark__slug="small", round__key=round_key, kind="boards")
    return next(row["points"] for row in snap.data["overall"] if row["agent"] == agent)


def test_it_keeps_writing_and_serving_while_redis_is_down(live_celery, spare_redis, client, capsys):
    bundle_import(doc=copy.deepcopy(SMALL))
    snap = BoardSnapshot.objects.get(round__key="r1", kind="boards")
    snapshot_recompute(snapshot_id=snap.pk)
    assert _points("r1", "beta") == 0
    spare_redis.stop()

    # A verdict corrected in the admin: stored, marked stale, and the request does not hang on the broker.
    editor = get_user_model().objects.create_superuser("editor", "editor@example.org", "pw-editor-123")
    client.force_login(editor)
    third = Verdict.objects.get(run__key="r1-beta-t1", role="third")
    started = time.perf_counter()
    response = client.post(
        f"/admin/runs/verdict/{third.pk}/change/",
        {
            "outcome": "pass",
            "note": "",
            "reason": "Corrected from the recording.",
            "effect_seen": "pass|",  # the editor has seen the correction's effect on the board (a second save)
            "_save": "Save",
        },
    )
    verdict_seconds = time.perf_counter() - started
    assert response.status_code == 302
    assert Verdict.objects.get(pk=third.pk).outcome == "pass" and Run.objects.get(key="r1-beta-t1").outcome == "pass"
    assert BoardSnapshot.objects.get(pk=snap.pk).stale

    # A bundle with a second round: every row stored, its board waiting (no snapshot data yet).
    more = copy.deepcopy(SMALL)
    more["rounds"][0] = {**more["rounds"][0], "key": "r2", "name": "Round 2"}
    more["runs"] = [{**run, "id": run["id"].replace("r1-", "r2-"), "round": "r2"} for run in more["runs"]]
    started = time.perf_counter()
    bundle_import(doc=more)
    import_seconds = time.perf_counter() - started
    assert Run.objects.filter(round__key="r2").count() == 2
    assert Verdict.objects.filter(run__round__key="r2").count() == 5
    r2_snap = BoardSnapshot.objects.get(round__key="r2", kind="boards")
    assert r2_snap.stale and r2_snap.data is None

    # The public pages read snapshots from PostgreSQL only: they serve, and say the board is updating.
    page = client.get("/b/small/r/r1/")
    assert page.status_code == 200 and "Updating" in page.content.decode()
    assert client.get("/b/small/r/r2/").status_code == 200
    assert client.get("/").status_code == 200
    with capsys.disabled():
        print(f"\n[redis down] admin verdict save {verdict_seconds:.2f} s, bundle import {import_seconds:.2f} s")
    assert verdict_seconds < 5 and import_seconds < 5

    # Redis is back: the sweep enqueues every stale board and a worker recomputes them.
    spare_redis.start()
    assert set(snapshots_sweep(older_than_seconds=0)) >= {snap.pk, r2_snap.pk}
    assert queue_length(settings.CELERY_BROKER_URL) >= 2  # this process's publisher reconnected by itself
    live_celery.start(CELERY_BROKER_URL=settings.CELERY_BROKER_URL, REDIS_URL=settings.REDIS_URL)
    wait_for(
        lambda: not BoardSnapshot.objects.filter(round__benchmark__slug="small", stale=True).exists(),
        30,
        "the boards to be recomputed after Redis came back",
        log=live_celery.log,
    )
    assert _points("r1", "beta") == 2 and _points("r2", "beta") == 0


VOTE_BUNDLE = {
    "benchmark": {"slug": "apps", "name": "Apps", "methodology": "checks", "params": {"preview_hours": 0}},
    "agents": [{"slug": "alpha", "name": "Alpha"}, {"slug": "beta", "name": "Beta"}],
    "tasks": [
        {
            "key": "shop",
            "title": "Shop",
            "version": "1.0",
            "kind": "to-spec",
            "time_limit_min": 30,
            "token_budget": 10**6,
        }
    ],
    "rounds": [
        {
            "key": "r1",
            "status": "published",
            "published_at": "2026-10-01T00:00:00Z",
            "entries": [{"agent": "alpha"}, {"agent": "beta"}],
        }
    ],
    "runs": [
        {
            "id": f"{a}-shop",
            "round": "r1",
            "agent": a,
            "task": "shop",
            "status": "completed",
            "app_started": True,
            "api_checks_passed": 3,
            "api_checks_total": 4,
            "browser_steps_passed": 2,
            "browser_steps_total": 4,
            # Something a voter can be shown without a name: only such runs are drawn (a live app at an address
            # that names nothing; an external screenshot address is public on the run's page, so never shown).
            "preview_url": f"https://p.example.net/{n}f3a9zq/",
        }
        for n, a in enumerate(("alpha", "beta"))
    ],
}


def test_votes_are_stored_and_rate_limited_from_the_database_while_the_cache_is_down(
    live_celery, spare_redis, client, settings
):
    from datetime import timedelta

    from django.utils import timezone

    from voting.models import Vote

    settings.VOTE_RATE_LIMIT = 2
    bundle_import(doc=copy.deepcopy(VOTE_BUNDLE))
    voter = get_user_model().objects.create_user("voter@example.org", "voter@example.org", "pw-voter-123")
    voter.date_joined = timezone.now() - timedelta(days=3)
    voter.save(update_fields=["date_joined"])
    client.force_login(voter)
    spare_redis.stop()
    statuses = []
    for _ in range(3):
        page = client.get("/vote/")
        assert page.status_code == 200
        key = Matchup.objects.filter(voter=voter).latest("id").key
        statuses.append(client.post(f"/vote/m/{key}/", {"winner": "a"}).status_code)
    # Two votes stored (the database is the source of truth); the third is over the per-account limit,
    # which falls back on the database while the cache is unreachable.
    assert statuses == [302, 302, 429]  # a vote without htmx redirects to the reveal page
    assert Vote.objects.filter(voter=voter).count() == 2


def test_the_api_answers_while_the_cache_is_down(live_celery, spare_redis, client):
    bundle_import(doc=copy.deepcopy(SMALL))
    spare_redis.stop()
    # The rate-limit counter lives in the cache; with the cache down, reads are let through.
    assert client.get("/api/benchmarks").status_code == 200
    assert client.get("/api/benchmarks/small/rounds").status_code == 200


# --- (c) an interrupted import -------------------------------------------------------------------------------------

CATALOGUE = (Benchmark, Organization, Agent, Task, TaskVersion, Round, Entry, Run, Verdict, BoardSnapshot)


def _counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in CATALOGUE}


def test_an_import_that_fails_half_way_writes_nothing(transactional_db, monkeypatch):
    doc = copy.deepcopy(SMALL)
    doc["runs"] += [
        {
            "id": f"r1-alpha-extra-{i}",
            "round": "r1",
            "agent": "alpha",
            "task": "t1",
            "trial": i + 2,
            "status": "completed",
            "verdicts": [{"role": "tester", "outcome": "pass", "note": "as seen"}],
        }
        for i in range(20)
    ]
    from django.db.models import QuerySet

    original = QuerySet.bulk_create
    inserted = {}

    def insert_then_fail(self, objs, *args, **kwargs):
        # Runs go in first; the disk fills up when the verdicts follow.
        if self.model is Verdict:
            inserted["runs"] = Run.objects.count()
            raise RuntimeError("the disk is full")
        return original(self, objs, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "bulk_create", insert_then_fail)
    with pytest.raises(RuntimeError, match="disk is full"):
        bundle_import(doc=doc)
    assert inserted["runs"] == 22  # every run was written before it failed...
    assert set(_counts().values()) == {0}  # ...and rolled back with everything else


def test_an_import_command_killed_half_way_writes_nothing(transactional_db, tmp_path):
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(checks_bundle(slug="killed", agents=20, tasks=10, trials=10)))  # 2,000 runs
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": worker_database_url(),
        "PATH": "/usr/bin:/bin",
        "PYTHONUNBUFFERED": "1",
    }
    log = tmp_path / "import.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "import_bundle", str(path)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:

        def inserting_runs() -> bool:
            with connection.cursor() as c:
                c.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid() AND xact_start IS NOT NULL "
                    "AND query LIKE 'INSERT INTO \"runs_run\"%%'"
                )
                return c.fetchone()[0] > 0

        wait_for(lambda: inserting_runs() or proc.poll() is not None, 60, "the import to write runs", interval=0.01)
        # Killed while its transaction is inserting the runs (verdicts, votes and the commit come after).
        assert proc.poll() is None, log.read_text()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    wait_for(lambda: not _other_transactions(), 10, "the killed import's transaction to end")
    assert set(_counts().values()) == {0}


def _other_transactions() -> int:
    with connection.cursor() as c:
        c.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
        )
        return c.fetchone()[0]
