"""API keys in the admin: an editor makes one for a benchmark (the key is shown once, in the message after
saving), sees when each was last used, and revokes them. Nothing about a key can be edited afterwards."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils import timezone

from ..api_keys import api_key_create, api_key_revoke
from ..models import ApiKey


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "benchmark", "organization", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["benchmark", "organization"]
    search_fields = ["name", "prefix"]
    actions = ["revoke"]
    readonly_fields = ["prefix", "created_by", "created_at", "last_used_at", "revoked_at"]

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, *self.MADE_WITH] if obj is not None else self.readonly_fields

    # An organization makes it that organization's submission key (it only submits); none, the team's upload key.
    MADE_WITH = ["name", "benchmark", "organization"]

    def get_fields(self, request, obj=None):
        return self.MADE_WITH if obj is None else [*self.MADE_WITH, *self.readonly_fields]

    def save_model(self, request, obj, form, change):
        if change:
            return  # nothing about a key changes after it is made
        key, raw = api_key_create(
            name=obj.name, benchmark=obj.benchmark, created_by=request.user, organization=obj.organization
        )
        obj.pk = key.pk
        obj.refresh_from_db()
        messages.warning(
            request,
            f"The key for {key.benchmark.slug} is {raw} — copy it now: it is stored only as a digest and will "
            "not be shown again.",
        )

    @admin.action(description="Revoke the selected keys", permissions=["change"])
    def revoke(self, request, queryset):
        keys = list(queryset.filter(revoked_at__isnull=True))
        for key in keys:
            api_key_revoke(key=key)
        self.message_user(request, f"{len(keys)} key(s) revoked at {timezone.now():%Y-%m-%d %H:%M} UTC.")
