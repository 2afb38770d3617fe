"""Organizations, memberships, agents and benchmarks in the admin."""

from __future__ import annotations

from django.contrib import admin

from .. import services
from ..models import Agent, Benchmark, Membership, Organization, Round
from ._common import ReasonForm, SavesThroughServices
from .imports import ImportsResults


class OrganizationForm(ReasonForm):
    class Meta:
        model = Organization
        exclude: list[str] = []

    def published_rounds(self):
        return Round.objects.published().filter(entries__agent__organization=self.instance)


@admin.register(Organization)
class OrganizationAdmin(SavesThroughServices, admin.ModelAdmin):
    form = OrganizationForm
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]

    def update(self, obj, **kwargs) -> None:
        services.organization_update(organization=obj, **kwargs)

    def delete(self, obj, by) -> None:
        services.organization_delete(organization=obj, by=by)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "organization"]
    list_filter = ["organization"]
    search_fields = ["user__username", "user__email", "organization__name"]
    autocomplete_fields = ["organization"]


class AgentForm(ReasonForm):
    class Meta:
        model = Agent
        exclude: list[str] = []

    def published_rounds(self):
        return Round.objects.published().filter(entries__agent=self.instance)


class BenchmarkForm(ReasonForm):
    class Meta:
        model = Benchmark
        exclude: list[str] = []

    def published_rounds(self):
        return Round.objects.published().filter(benchmark=self.instance)


@admin.register(Agent)
class AgentAdmin(SavesThroughServices, admin.ModelAdmin):
    form = AgentForm
    list_display = ["name", "slug", "organization", "primary_language"]
    list_filter = ["organization", "primary_language"]
    search_fields = ["name", "slug"]

    def update(self, obj, **kwargs) -> None:
        services.agent_update(agent=obj, **kwargs)


@admin.register(Benchmark)
class BenchmarkAdmin(ImportsResults, SavesThroughServices, admin.ModelAdmin):
    form = BenchmarkForm
    list_display = ["name", "slug", "methodology", "pass_threshold", "preview_hours"]
    search_fields = ["name", "slug"]

    def update(self, obj, **kwargs) -> None:
        services.benchmark_update(benchmark=obj, **kwargs)
