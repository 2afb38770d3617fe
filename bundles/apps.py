from django.apps import AppConfig


class BundlesConfig(AppConfig):
    """Results bundles in and out (import, export, Inspect logs, recount) and their management commands. No
    models of its own."""

    name = "bundles"
    verbose_name = "Results bundles"
