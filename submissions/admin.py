"""Submission tracks and submissions in the admin: an editor opens and edits a track (its required trials,
limits, protocol, families and formats; the tasks are its round's task set); a submission is read here as it
was checked (its verdicts are given on its page, with their reasons and links)."""

from django.contrib import admin

from .models import Submission, SubmissionEvent, SubmissionTrack


@admin.register(SubmissionTrack)
class SubmissionTrackAdmin(admin.ModelAdmin):
    list_display = ["round", "is_open", "trials_min", "accept_older_versions", "opened_at", "closed_at"]
    list_filter = ["is_open"]


class SubmissionEventInline(admin.TabularInline):
    model = SubmissionEvent
    extra = 0
    can_delete = False
    readonly_fields = ["kind", "by", "note", "link", "at"]

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "benchmark", "round", "agent", "organization", "status", "tier", "created_at"]
    list_filter = ["benchmark", "status", "tier", "format"]
    search_fields = ["agent__slug", "organization__name"]
    inlines = [SubmissionEventInline]
    readonly_fields = [
        f.name
        for f in Submission._meta.concrete_fields
        if f.name not in ("verified_note", "verified_link", "flag_reason", "flag_link")
    ]
    # The editor's fields are set through the verdicts (they recompute the tier): read-only here too.
    readonly_fields += ["verified_note", "verified_link", "flag_reason", "flag_link"]

    def has_add_permission(self, request):
        return False
