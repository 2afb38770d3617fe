from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    """Results from outside teams: a benchmark's submission track, each submission with its checks, its claimed
    and recomputed figures and its tier, and the events of its history."""

    name = "submissions"
    label = "submissions"
    verbose_name = "Submissions"
