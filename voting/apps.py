from django.apps import AppConfig


class VotingConfig(AppConfig):
    name = "voting"

    def ready(self) -> None:
        from django.core import checks
        from django.db.models.signals import post_delete, post_save

        from leaderboard.models import Agent, Benchmark, Entry, Organization, Round, Task, TaskVersion
        from runs.models import AppBuild, Evidence, Run

        from .pool import vote_pool_changed

        # What a draw depends on (voting.pool): a change to any of these retires the shared vote pool. An
        # organization's name decides whether a preview address names its agent (`drawable.url_is_opaque`).
        for model in (Benchmark, Task, TaskVersion, Round, Organization, Agent, Entry, Run, Evidence, AppBuild):
            post_save.connect(vote_pool_changed, sender=model, dispatch_uid=f"vote-pool-{model.__name__}-save")
            post_delete.connect(vote_pool_changed, sender=model, dispatch_uid=f"vote-pool-{model.__name__}-delete")

        from .checks import preview_origin_check

        checks.register(preview_origin_check)
