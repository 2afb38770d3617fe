"""The vote pool: every run that may be drawn for a blind vote, worked out once and shared by all processes.

Which runs can be drawn (`draw.rules.drawable` and `draw.rules.run_is_drawable`: published, not superseded,
counted, started, admitted, something to show) depends on runs, their evidence and builds, rounds, entries,
agents, tasks (and their versions) and benchmarks, never on votes. Working it out reads every run of the
votable benchmarks, so instead of doing that on every vote screen the pool is kept in the shared cache under
a *pool version*:

- every service that writes one of those (a bundle import, a correction, a review, a publication, an app
  build, an organization renamed) says so in the one "this changed" call,
  `leaderboard.stale.snapshots_mark_stale`, which marks the boards stale, retires the cached pages and retires
  this version, all once its transaction commits (`leaderboard.caching.draws_retire`);
- the pool also expires after POOL_TTL_SECONDS, which bounds what a write outside the services (a queryset
  update in a shell) can leave behind: at worst a run that became drawable waits that long;
- a draw never trusts the pool alone: the two runs it picks are checked again against the database rules a
  write without a signal can change (`draw.rules.drawable_run_ids`: published round, not superseded, counted,
  started, not the voter's organization) before the matchup is made, and a failed check rebuilds the pool. A
  run that stopped being drawable that way (a round withdrawn, an agent's organization changed) is therefore
  never shown, however old the pool.

The pool also holds what the vote screen shows before the vote: each run's kind of live app and number of
screenshots, and each task's benchmark name, title, prompt and scenarios (current version). A vote screen
reads no run, evidence, task or version row.

Each process keeps the pool it last read and uses it while the shared version is unchanged, checking the
version at most once every POOL_RECHECK_SECONDS: a vote screen then costs no cache read for the pool, or one
small one. The version is a random token, so a cache that was emptied can
never make an old copy look current. With the cache down the pool is worked out per request.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass
from functools import cached_property

from django.core.cache import cache
from django.db.models import F

from leaderboard.caching import VOTE_POOL_VERSION_KEY, draws_generation, draws_retire
from leaderboard.models import Task, TaskVersion, task_input
from runs.models import Run

from .draw.rules import drawable, live_kind, preview_shots, run_is_drawable, votable_benchmarks, with_previews

log = logging.getLogger(__name__)

# The shape of the pickled pool: bump it whenever a field of the classes below changes, so a process of the
# new code never reads a pool written by the old one (as happens during a deploy) and old processes never read
# the new one.
POOL_FORMAT = 3
POOL_VERSION_KEY = VOTE_POOL_VERSION_KEY  # the pool's data key carries POOL_FORMAT
POOL_TTL_SECONDS = 60
_local_lock = threading.Lock()
# How long a process uses its copy of the pool before checking the shared version again. Another process's
# retirement (a save there) is therefore seen here within this time; what a draw must never show is checked in
# the database on every draw anyway (see the module docstring), so this only delays a run newly drawable, or
# one newly without anything to show, by at most this long.
POOL_RECHECK_SECONDS = 1.0
_local: dict[tuple[str, int], VotePool] = {}  # (version, draws generation) -> pool (at most one entry)
_local_checked = [0.0]  # time.monotonic() when _local's version was last found current
_thread = threading.local()  # .last: the pool vote_pool last returned in this thread


@dataclass(frozen=True)
class PoolTask:
    id: int
    key: str
    title: str
    ranked_by_votes: bool  # an invent or startup task: drawn before to-spec tasks
    benchmark_name: str
    prompt: str  # of the task's current version, shown above both apps
    scenarios: tuple[str, ...]  # of the task's current version: what to try in both apps


@dataclass(frozen=True)
class PoolBenchmark:
    id: int
    slug: str
    name: str
    tasks: tuple[PoolTask, ...]  # every task of the benchmark, in the benchmark's order


@dataclass(frozen=True)
class PoolRun:
    id: int
    task_id: int
    agent_id: int
    organization_id: int | None
    live: str  # what the side's frame shows (`draw.rules.live_kind`)
    shots: int  # how many screenshots can be shown blind (`draw.rules.preview_shots`)


@dataclass(frozen=True)
class VotePool:
    benchmarks: tuple[PoolBenchmark, ...]  # the votable benchmarks, in the site's order
    runs: tuple[PoolRun, ...]  # the drawable runs of their tasks, for any voter (before the own-organization rule)

    def task(self, task_id: int) -> PoolTask | None:
        for bench in self.benchmarks:
            for task in bench.tasks:
                if task.id == task_id:
                    return task
        return None

    def run(self, run_id: int) -> PoolRun | None:
        return self._runs_by_id.get(run_id)

    @cached_property
    def _runs_by_id(self) -> dict[int, PoolRun]:
        return {run.id: run for run in self.runs}


def pool_build() -> VotePool:
    """Work the pool out from the database (every run of the votable benchmarks is read)."""

    benchmarks = []
    for bench in votable_benchmarks():
        bench_tasks = list(Task.objects.filter(benchmark=bench))  # the tasks' own order
        current = {v.task_id: v for v in TaskVersion.objects.filter(task__benchmark=bench, version=F("task__version"))}
        tasks = tuple(
            PoolTask(
                t.id,
                t.key,
                t.title or t.key,
                bench.rules.vote_after_admission(task_input(t)),
                bench.name,
                current[t.id].prompt if t.id in current else "",
                tuple(current[t.id].scenarios or ()) if t.id in current else (),
            )
            for t in bench_tasks
        )
        benchmarks.append(PoolBenchmark(bench.id, bench.slug, bench.name, tasks))
    task_ids = [t.id for b in benchmarks for t in b.tasks]
    runs = with_previews(drawable(Run.objects.filter(task_id__in=task_ids)))
    return VotePool(
        benchmarks=tuple(benchmarks),
        runs=tuple(
            PoolRun(
                run.id,
                run.task_id,
                run.entry.agent_id,
                run.entry.agent.organization_id,
                live_kind(run),
                len(preview_shots(run)),
            )
            for run in runs
            if run_is_drawable(run)
        ),
    )


def vote_pool(*, fresh: bool = False) -> VotePool:
    """The current pool: this process's copy while the shared version is unchanged, else the shared copy,
    else worked out and shared. `fresh` works it out again and retires every copy."""
    pool = _vote_pool(fresh=fresh)
    _thread.last = pool
    return pool


def _vote_pool(*, fresh: bool) -> VotePool:
    if fresh:
        vote_pool_retire()
    with _local_lock:
        # This process's copy, checked against the shared version within the last POOL_RECHECK_SECONDS: no
        # cache round trip at all (a retirement by this process clears the copy at once).
        if _local and time.monotonic() - _local_checked[0] < POOL_RECHECK_SECONDS:
            [(_, generation)] = _local
            if generation == draws_generation():
                return next(iter(_local.values()))
    try:
        version = cache.get(POOL_VERSION_KEY)
        if version is None:
            version = secrets.token_hex(8)
            if not cache.add(POOL_VERSION_KEY, version, timeout=POOL_TTL_SECONDS):
                version = cache.get(POOL_VERSION_KEY) or version
    except Exception:  # noqa: BLE001 - cache down: work it out every time
        log.warning("vote pool: cache unreachable, working the pool out per request")
        return pool_build()
    generation = draws_generation()
    with _local_lock:
        local = _local.get((version, generation))
        if local is not None:
            _local_checked[0] = time.monotonic()
    if local is not None:
        return local
    pool_key = f"vote-pool:{POOL_FORMAT}:{version}"
    try:
        pool = cache.get(pool_key)
    except Exception:  # noqa: BLE001
        pool = None
    if pool is None:
        pool = pool_build()
        try:
            cache.set(pool_key, pool, timeout=POOL_TTL_SECONDS)
        except Exception:  # noqa: BLE001
            pass
    with _local_lock:
        _local.clear()
        _local[(version, generation)] = pool
        _local_checked[0] = time.monotonic()
    return pool


def vote_pool_last(default: VotePool) -> VotePool:
    """The pool `vote_pool` last returned in this thread, else `default`: after a draw that found the shared
    pool stale and worked it out again, the screen shows the pair from the new pool (no cache round trip)."""
    return getattr(_thread, "last", default)


def local_clear() -> None:
    """Forget this process's copy (the tests' cache reset: a new test's data is never drawn from an old copy)."""
    with _local_lock:
        _local.clear()


def vote_pool_retire() -> None:
    """Retire the pool now: the next vote screen of any process works it out again."""
    with _local_lock:
        _local.clear()
    draws_retire()
