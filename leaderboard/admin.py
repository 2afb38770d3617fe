from django.contrib import admin

from .models import (
    Agent,
    Benchmark,
    ChangelogEntry,
    Entry,
    Membership,
    Organization,
    Round,
    RoundParameter,
    Task,
    TaskVersion,
)

admin.site.site_header = "Leaderboard administration"
admin.site.site_title = "Leaderboard admin"
admin.site.index_title = "Benchmarks, runs and reviews"


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "organization"]
    list_filter = ["organization"]
    search_fields = ["user__username", "user__email", "organization__name"]
    autocomplete_fields = ["organization"]


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "organization", "primary_language"]
    list_filter = ["organization", "primary_language"]
    search_fields = ["name", "slug"]


class TaskVersionInline(admin.StackedInline):
    model = TaskVersion
    extra = 0


@admin.register(Benchmark)
class BenchmarkAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "methodology", "pass_threshold"]
    search_fields = ["name", "slug"]


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ["key", "title", "benchmark", "kind", "version", "domain"]
    list_filter = ["benchmark", "kind", "domain"]
    search_fields = ["key", "title"]
    inlines = [TaskVersionInline]


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    autocomplete_fields = ["agent"]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["__str__", "benchmark", "status", "starts_on", "published_at"]
    list_filter = ["benchmark", "status"]
    search_fields = ["key", "name"]
    inlines = [EntryInline]


@admin.register(RoundParameter)
class RoundParameterAdmin(admin.ModelAdmin):
    list_display = ["round", "task", "name", "value"]
    list_filter = ["round"]


@admin.register(ChangelogEntry)
class ChangelogEntryAdmin(admin.ModelAdmin):
    list_display = ["round", "what", "who", "created_at"]
    list_filter = ["round"]
