from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The public pages. An app only for its system check: a methodology is one registry entry
    (`scoring.methodologies`), and the pages' per-methodology parts must follow it (`pages.checks`)."""

    name = "pages"

    def ready(self) -> None:
        from django.core import checks

        from .checks import methodologies_check

        checks.register(methodologies_check)
