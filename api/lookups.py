"""Lookups by key for the read API: the visibility rule lives here. Only published rounds exist; an
unpublished one answers 404 exactly like an unknown key."""

from __future__ import annotations

from ninja.errors import HttpError

from leaderboard.models import Benchmark, Round, Task, TaskVersion


def benchmark_or_404(slug: str) -> Benchmark:
    benchmark = Benchmark.objects.filter(slug=slug).first()
    if benchmark is None:
        raise HttpError(404, f"no benchmark {slug!r}")
    return benchmark


def published_round_or_404(benchmark: Benchmark, key: str) -> Round:
    """A published round of the benchmark; an unpublished one answers exactly like an unknown one."""
    rnd = Round.objects.published().filter(benchmark=benchmark, key=key).first()
    if rnd is None:
        raise HttpError(404, f"no published round {key!r} in {benchmark.slug}")
    return rnd


def task_or_404(benchmark: Benchmark, key: str) -> Task:
    """A task a published round holds; one only draft or preview rounds hold answers exactly like an unknown one."""
    task = (
        Task.objects.public()
        .filter(benchmark=benchmark, key=key)
        .select_related("benchmark")
        .prefetch_related("versions")
        .first()
    )
    if task is None:
        raise HttpError(404, f"no task {key!r} in {benchmark.slug}")
    return task


def task_version(task: Task, version: str) -> TaskVersion | None:
    """The task's version of that name, else its current one (from the prefetched versions)."""
    versions = {v.version: v for v in task.versions.all()}
    return versions.get(version) or versions.get(task.version)
