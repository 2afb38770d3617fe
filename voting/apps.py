from django.apps import AppConfig


class VotingConfig(AppConfig):
    name = "voting"

    def ready(self) -> None:
        from django.core import checks

        from .checks import preview_origin_check

        checks.register(preview_origin_check)

        from django.db.models.signals import post_delete, post_save

        from leaderboard.models import Membership

        from .screens import membership_changed

        # A voter's organization is on the vote screen (the navigation's "Preview", the pairs left out).
        post_save.connect(membership_changed, sender=Membership, dispatch_uid="voting.screens.membership_saved")
        post_delete.connect(membership_changed, sender=Membership, dispatch_uid="voting.screens.membership_deleted")
