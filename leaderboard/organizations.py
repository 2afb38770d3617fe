"""The people of an organization: accounts as editors see them in the admin ("Accounts"), and the way into an
organization (a join request approved by an editor, or an editor's invitation accepted). The services are
`submissions.joining`."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import User
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Account(User):
    """A person's account, as editors see it in the admin ("Accounts"): its address, whether it is confirmed, its
    organization and its roles. Editors set the organization; nothing else of the account is theirs to change."""

    class Meta:
        proxy = True
        verbose_name = "account"
        verbose_name_plural = "accounts"


class JoinKind(models.TextChoices):
    REQUEST = "request", "asked to join"
    INVITATION = "invitation", "invited by an editor"


class JoinStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"


class JoinRequest(models.Model):
    """A way into an organization: a person asks to join it from the site and an editor approves, or an editor
    invites an address and the account with that address (confirmed) accepts. Either makes a Membership."""

    kind = models.CharField(max_length=20, choices=JoinKind.choices, default=JoinKind.REQUEST)
    status = models.CharField(max_length=20, choices=JoinStatus.choices, default=JoinStatus.PENDING)
    # The requester; for an invitation, the account that accepted it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="join_requests"
    )
    email = models.CharField(max_length=254, help_text="The requester's address, or the address invited.")
    organization = models.ForeignKey(
        "leaderboard.Organization",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="join_requests",
        help_text="The organization joined. Empty: a new one, named as asked, is made when the request is approved.",
    )
    organization_name = models.CharField(
        max_length=200, blank=True, help_text="The organization as the person named it."
    )
    message = models.TextField(blank=True, max_length=2000, help_text="Who the person is to the organization.")
    created_at = models.DateTimeField(default=timezone.now)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True, max_length=2000, help_text="The editor's reason, when declined.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"], condition=Q(status="pending", kind="request"), name="join_one_pending_request"
            ),
        ]

    def __str__(self) -> str:
        target = self.organization.name if self.organization else self.organization_name
        return f"{self.email} to {target} ({self.get_kind_display()}, {self.status})"


__all__ = ["Account", "JoinKind", "JoinRequest", "JoinStatus"]
