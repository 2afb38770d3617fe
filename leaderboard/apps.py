from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _ensure_groups(sender, **kwargs) -> None:
    from .groups import groups_ensure

    groups_ensure()


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    verbose_name = "Catalogue"

    def ready(self) -> None:
        # Like Django's own permissions, the groups are (re)created after every migrate and flush, so a new
        # model's permissions reach the Editors and a flushed test database still has its groups.
        post_migrate.connect(_ensure_groups, dispatch_uid="leaderboard.groups_ensure")
