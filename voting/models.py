"""Blind pairwise votes between two agents' apps for one task."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Winner(models.TextChoices):
    A = "a", "A is better"
    B = "b", "B is better"
    TIE = "tie", "Tie"


class Vote(models.Model):
    """One vote. `counts` is decided when it is cast (a new account's vote is stored but does not count
    until the account is old enough; a flagged voter's votes stop counting until an editor clears them)."""

    task = models.ForeignKey("leaderboard.Task", on_delete=models.CASCADE, related_name="votes")
    agent_a = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    agent_b = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    run_a = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run_b = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    winner = models.CharField(max_length=3, choices=Winner.choices)
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="votes")
    voter_label = models.CharField(max_length=100, blank=True, help_text="A stable pseudonym, never the account.")
    cast_at = models.DateTimeField(default=timezone.now)
    counts = models.BooleanField(default=True)

    class Meta:
        ordering = ["cast_at", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(agent_a=F("agent_b")), name="vote_two_different_agents"),
            models.CheckConstraint(condition=Q(winner__in=["a", "b", "tie"]), name="vote_winner_valid"),
        ]
        indexes = [models.Index(fields=["task", "counts"]), models.Index(fields=["voter", "cast_at"])]

    def __str__(self) -> str:
        return f"{self.agent_a} vs {self.agent_b}: {self.winner}"
