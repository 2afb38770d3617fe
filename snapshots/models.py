"""Board snapshots: the computed boards of a round (or a benchmark's ratings), as JSON, with the digest of
the inputs they were computed from. Board pages read only these."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone


class SnapshotKind(models.TextChoices):
    BOARDS = "boards", "round boards"
    RATINGS = "ratings", "vote ratings"


class BoardSnapshot(models.Model):
    benchmark = models.ForeignKey("leaderboard.Benchmark", on_delete=models.CASCADE, related_name="snapshots")
    round = models.ForeignKey(
        "leaderboard.Round", null=True, blank=True, on_delete=models.CASCADE, related_name="snapshots"
    )
    kind = models.CharField(max_length=20, choices=SnapshotKind.choices, default=SnapshotKind.BOARDS)
    data = models.JSONField(null=True, blank=True)
    digest = models.CharField(max_length=64, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    stale = models.BooleanField(default=True)
    stale_since = models.DateTimeField(null=True, blank=True, default=timezone.now)
    version = models.PositiveIntegerField(default=0, help_text="Bumped on every content change.")

    class Meta:
        ordering = ["benchmark", "round", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "kind"], condition=Q(round__isnull=False), name="snapshot_one_per_round_and_kind"
            ),
            models.UniqueConstraint(
                fields=["benchmark", "kind"],
                condition=Q(round__isnull=True),
                name="snapshot_one_per_benchmark_and_kind",
            ),
        ]

    def __str__(self) -> str:
        scope = self.round.key if self.round_id else "all rounds"
        return f"{self.benchmark.slug} {scope} {self.kind}"
