from django.apps import AppConfig


class VotingConfig(AppConfig):
    name = "voting"

    def ready(self) -> None:
        from django.core import checks

        from .checks import preview_origin_check

        checks.register(preview_origin_check)
