from django.apps import AppConfig


class SnapshotsConfig(AppConfig):
    """Board snapshots: the computed boards and ratings the pages read. The label stays "scoring" (where these
    tables and migrations were born), so no table or migration changes with the move; `scoring` itself is now
    the pure package these snapshots are computed with."""

    name = "snapshots"
    label = "scoring"
    verbose_name = "Board snapshots"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web and worker): snapshots.stale reaches them through the
        # task registry by name, so the recompute never has to be imported by the code that marks stale.
        from . import tasks  # noqa: F401
