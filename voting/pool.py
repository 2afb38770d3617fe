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
reads no run, evidence, task or version row. And it holds what the screen reveals after the vote (each run's
key, round, agent, organization and model, and its benchmark), so a vote reads none of those rows either
(`selectors.reveal_from_pool`); a pool that no longer has one of the two runs leaves the vote to read them.

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
from collections.abc import Callable, Hashable, Iterable
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
POOL_FORMAT = 4
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
_thread = threading.local()  # .last: the pool vote_pool last returned in this thread; .version: its shared version
_recent: dict = {}  # key -> (time.monotonic() when read, value): `recent`


@dataclass(frozen=True)
class PoolTask:
    id: int
    key: str
    title: str
    ranked_by_votes: bool  # an invent or startup task: drawn before to-spec tasks
    benchmark_id: int
    benchmark_slug: str
    benchmark_name: str
    methodology: str  # the benchmark's (`draw.rules.drawable_run_ids` checks a pair's runs by it)
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
    # What the reveal shows once the vote is cast (never before: `selectors.matchup_sides`).
    key: str
    round_key: str
    agent_name: str
    organization_name: str  # "" for an agent without an organization
    model: str


@dataclass(frozen=True)
class VotePool:
    benchmarks: tuple[PoolBenchmark, ...]  # the votable benchmarks, in the site's order
    runs: tuple[PoolRun, ...]  # the drawable runs of their tasks, for any voter (before the own-organization rule)

    def task(self, task_id: int) -> PoolTask | None:
        return self._tasks_by_id.get(task_id)

    def run(self, run_id: int) -> PoolRun | None:
        return self._runs_by_id.get(run_id)

    def runs_of(self, task_ids: Iterable[int], *, organization_id: int | None) -> list[PoolRun]:
        """The pool's runs of these tasks (in the pool's order), leaving out `organization_id`'s agents."""
        wanted = set(task_ids)
        return [
            run
            for run in self.runs
            if run.task_id in wanted and (organization_id is None or run.organization_id != organization_id)
        ]

    def kept[T](self, key: Hashable, make: Callable[[], T]) -> T:
        """What `make()` works out from this pool alone, worked out once per process and key (the scope list of
        an organization's voters): the pool never changes, a new pool starts empty."""
        if key not in self._kept:
            self._kept[key] = make()
        return self._kept[key]

    @cached_property
    def _kept(self) -> dict:
        return {}

    @cached_property
    def _runs_by_id(self) -> dict[int, PoolRun]:
        return {run.id: run for run in self.runs}

    @cached_property
    def _tasks_by_id(self) -> dict[int, PoolTask]:
        return {task.id: task for bench in self.benchmarks for task in bench.tasks}


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
                bench.id,
                bench.slug,
                bench.name,
                bench.methodology,
                current[t.id].prompt if t.id in current else "",
                tuple(current[t.id].scenarios or ()) if t.id in current else (),
            )
            for t in bench_tasks
        )
        benchmarks.append(PoolBenchmark(bench.id, bench.slug, bench.name, tasks))
    task_ids = [t.id for b in benchmarks for t in b.tasks]
    runs = with_previews(drawable(Run.objects.filter(task_id__in=task_ids)))
    return VotePool(benchmarks=tuple(benchmarks), runs=tuple(_pool_run(run) for run in runs if run_is_drawable(run)))


def _pool_run(run: Run) -> PoolRun:
    """A drawable run as the pool keeps it (read through `with_previews`: no query)."""
    agent = run.entry.agent
    return PoolRun(
        run.id,
        run.task_id,
        agent.id,
        agent.organization_id,
        live_kind(run),
        len(preview_shots(run)),
        run.key,
        run.round.key,
        agent.name,
        agent.organization.name if agent.organization_id else "",
        run.entry.model,
    )


def vote_pool(*, fresh: bool = False) -> VotePool:
    """The current pool: this process's copy while the shared version is unchanged, else the shared copy,
    else worked out and shared. `fresh` works it out again and retires every copy."""
    pool, version = _vote_pool(fresh=fresh)
    _thread.last, _thread.version = pool, version
    return pool


def vote_pool_version() -> str | None:
    """The shared version of the pool `vote_pool` last returned in this thread: what a page drawn from it was
    drawn from (`voting.views.screen_cache`). None when the pool was worked out without the cache."""
    return getattr(_thread, "version", None)


def _vote_pool(*, fresh: bool) -> tuple[VotePool, str | None]:
    if fresh:
        vote_pool_retire()
    with _local_lock:
        # This process's copy, checked against the shared version within the last POOL_RECHECK_SECONDS: no
        # cache round trip at all (a retirement by this process clears the copy at once).
        if _local and time.monotonic() - _local_checked[0] < POOL_RECHECK_SECONDS:
            [((version, generation), pool)] = _local.items()
            if generation == draws_generation():
                return pool, version
    try:
        version = cache.get(POOL_VERSION_KEY)
        if version is None:
            version = secrets.token_hex(8)
            if not cache.add(POOL_VERSION_KEY, version, timeout=POOL_TTL_SECONDS):
                version = cache.get(POOL_VERSION_KEY) or version
    except Exception:  # noqa: BLE001 - cache down: work it out every time
        log.warning("vote pool: cache unreachable, working the pool out per request")
        return pool_build(), None
    generation = draws_generation()
    with _local_lock:
        local = _local.get((version, generation))
        if local is not None:
            _local_checked[0] = time.monotonic()
    if local is not None:
        return local, version
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
    return pool, version


def vote_pool_last(default: VotePool) -> VotePool:
    """The pool `vote_pool` last returned in this thread, else `default`: after a draw that found the shared
    pool stale and worked it out again, the screen shows the pair from the new pool (no cache round trip)."""
    return getattr(_thread, "last", default)


def local_clear() -> None:
    """Forget this process's copy and its recent reads (the tests' cache reset: a new test's data is never drawn
    from an old copy)."""
    with _local_lock:
        _local.clear()
        _recent.clear()


def recent[T](key: Hashable, read: Callable[[], T]) -> T:
    """What `read()` returned in this process less than POOL_RECHECK_SECONDS ago under `key`, else read again: for
    a draw's inputs that change with every vote but need not be exact to the vote (the pair counts that weigh
    the draw: `draw.matchups.pair_pick`), so that a process drawing many pairs a second reads them once a
    second."""
    now = time.monotonic()
    with _local_lock:
        kept = _recent.get(key)
    if kept is not None and now - kept[0] < POOL_RECHECK_SECONDS:
        return kept[1]
    value = read()
    with _local_lock:
        if len(_recent) > 1000:  # one entry per scope drawn from: bounded anyway, but never unbounded
            _recent.clear()
        _recent[key] = (now, value)
    return value


def vote_pool_retire() -> None:
    """Retire the pool now: the next vote screen of any process works it out again."""
    with _local_lock:
        _local.clear()
    draws_retire()
