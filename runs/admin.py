from django.contrib import admin

from .models import CheckResult, Dispute, Evidence, Run, Verdict


class VerdictInline(admin.TabularInline):
    model = Verdict
    extra = 0
    fields = ["role", "outcome", "matched", "note", "reviewer", "created_at"]


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0


class CheckResultInline(admin.TabularInline):
    model = CheckResult
    extra = 0


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["key", "round", "agent_name", "task", "trial", "status", "outcome"]
    list_filter = ["round__benchmark", "round", "entry__agent", "task", "status", "outcome"]
    search_fields = ["key", "entry__agent__name", "task__key", "task__title"]
    list_select_related = ["round", "round__benchmark", "entry__agent", "task"]
    raw_id_fields = ["rerun_of"]
    inlines = [VerdictInline, EvidenceInline, CheckResultInline]

    @admin.display(description="agent", ordering="entry__agent__name")
    def agent_name(self, run: Run) -> str:
        return run.entry.agent.name


@admin.register(Dispute)
class DisputeAdmin(admin.ModelAdmin):
    list_display = ["run", "reason", "status", "filed_at", "decided_at"]
    list_filter = ["status", "reason"]
    raw_id_fields = ["run"]


@admin.register(Verdict)
class VerdictAdmin(admin.ModelAdmin):
    list_display = ["run", "role", "outcome", "reviewer", "created_at"]
    list_filter = ["role", "outcome"]
    raw_id_fields = ["run"]
