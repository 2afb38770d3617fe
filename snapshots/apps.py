from django.apps import AppConfig


class SnapshotsConfig(AppConfig):
    """Board snapshots: the computed boards and ratings the pages read (the one way to say "this changed",
    marking them stale, is the catalogue's: `leaderboard.stale`). The label was "scoring" until migration 0002
    (which moved the table and the content type); `scoring` itself is the pure package these snapshots are
    computed with."""

    name = "snapshots"
    label = "snapshots"
    verbose_name = "Board snapshots"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web and worker): leaderboard.stale reaches them through the
        # task registry by name, so the recompute never has to be imported by the code that marks stale.
        from . import tasks  # noqa: F401
