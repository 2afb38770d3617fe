"""Submissions in the admin: editors open and edit a benchmark's track, read each submission as it was checked
(never changing what it claimed or what the checks found) and act on it: verify (a note and a link), flag (a
reason and a link), unflag, withdraw. Verifying one whose disclosure check failed asks for a note acknowledging
it. Each action goes through `submissions.actions`, one event each. "Check again" reads a submission's kept upload
by today's checks (`submissions.recheck`): only a check that changed is written, with its event."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.html import format_html

from leaderboard.caching import content_version_bump
from leaderboard.roles import user_is_editor

from . import actions
from .forms import ACTIONS, VerifyForm
from .models import Submission, SubmissionEvent, SubmissionTrack
from .recheck import submission_recheck
from .views import refusal


@admin.register(SubmissionTrack)
class SubmissionTrackAdmin(admin.ModelAdmin):
    list_display = ["round", "is_open", "trials_min", "accept_older_versions", "opened_at", "closed_at"]
    list_filter = ["is_open", "round__benchmark"]
    list_select_related = ["round__benchmark"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # Opened or closed: the benchmark's pages and the home page ("Submit results", the track's requirements)
        # are made again.
        slug = obj.round.benchmark.slug
        transaction.on_commit(lambda: content_version_bump(benchmarks=[slug]))


class SubmissionEventInline(admin.TabularInline):
    model = SubmissionEvent
    extra = 0
    can_delete = False
    fields = ["at", "kind", "by", "note", "link"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "agent", "organization", "round", "format", "status", "tier", "via", "created_at", "page"]
    list_filter = ["tier", "status", "format", "benchmark"]
    search_fields = ["agent__name", "organization__name"]
    list_select_related = ["agent", "organization", "round", "benchmark"]
    readonly_fields = [
        "benchmark",
        "round",
        "agent",
        "organization",
        "format",
        "status",
        "via",
        "submitted_by",
        "api_key",
        "tier",
        "declared",
        "claims",
        "checks",
        "figures",
        "notes",
        "files_info",
        "verified_note",
        "verified_link",
        "disclosure_note",
        "flag_reason",
        "flag_link",
        "archive",
        "created_at",
    ]
    exclude = ["contact"]
    inlines = [SubmissionEventInline]
    actions = [*ACTIONS, "recheck"]

    def has_add_permission(self, request):
        return False  # submitted through the site, the API or import_submission

    def has_delete_permission(self, request, obj=None):
        return False  # withdrawn, never deleted: its record and history stay

    @admin.display(description="page")
    def page(self, sub: Submission) -> str:
        return format_html('<a href="{}">view</a>', sub.get_absolute_url())

    def _with_form(self, request: HttpRequest, queryset, form_class, title: str, do) -> TemplateResponse | None:
        """The action's form (a note, a reason, a link) on its own page, then the action on each selected."""
        form = form_class(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            done = 0
            for sub in queryset:
                try:
                    do(sub, request.user, form.cleaned_data)
                    done += 1
                except (ValidationError, PermissionDenied) as exc:
                    self.message_user(request, f"{sub}: {refusal(exc)}", messages.WARNING)
            if done:
                self.message_user(request, f"{title}: {done} submission(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "form": form,
            "queryset": queryset,
            "action": request.POST.get("action"),
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/submissions/submission/action.html", context)

    def _act(self, request, queryset, name: str, form_class):
        chosen = ACTIONS[name]
        return self._with_form(request, queryset, form_class, chosen.title, chosen.do)

    @admin.action(description=ACTIONS["verify"].description, permissions=["change"])
    def verify(self, request, queryset):
        # A submission whose disclosure check failed is verified only with a note acknowledging it: the form
        # asks for it (and says what) when any selected one needs it.
        asked = [f"{sub.pk}: {a}" for sub in queryset if (a := actions.acknowledgment_asked(sub))]
        return self._act(request, queryset, "verify", lambda data: VerifyForm(data, asked=asked))

    @admin.action(description=ACTIONS["flag"].description, permissions=["change"])
    def flag(self, request, queryset):
        return self._act(request, queryset, "flag", ACTIONS["flag"].form)

    @admin.action(description=ACTIONS["unflag"].description, permissions=["change"])
    def unflag(self, request, queryset):
        return self._act(request, queryset, "unflag", ACTIONS["unflag"].form)

    @admin.action(description=ACTIONS["withdraw"].description, permissions=["change"])
    def withdraw(self, request, queryset):
        return self._act(request, queryset, "withdraw", ACTIONS["withdraw"].form)

    @admin.action(description="Check again by today's checks", permissions=["change"])
    def recheck(self, request, queryset):
        """Each selected submission read again from its kept upload by the checks the site runs today
        (`submissions.recheck`): the checks that changed, and the tier, are stored; what changed is said. Editors
        only, as the other verdicts."""
        if not user_is_editor(request.user):
            raise PermissionDenied("Only an editor checks submissions again.")
        for sub in queryset.select_related("benchmark", "round", "agent", "organization"):
            result = submission_recheck(sub, by=request.user)
            level = messages.WARNING if result.problem else messages.SUCCESS if result.changes else messages.INFO
            self.message_user(request, str(result), level)
