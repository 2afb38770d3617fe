"""Organizations, memberships, agents and benchmarks in the admin."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from scoring import methodologies
from submissions.names import agent_name_holder, name_taken_problem

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

    def clean_name(self) -> str:
        """A name is one agent's on each board the agent is on (`submissions.names`: case, spacing and look-alike
        letters folded)."""
        name = self.cleaned_data["name"]
        if self.instance.pk:
            for bench in Benchmark.objects.filter(rounds__entries__agent=self.instance).distinct():
                holder = agent_name_holder(benchmark=bench, name=name, agent_slug=self.instance.slug)
                if holder is not None:
                    raise forms.ValidationError(f"On {bench.name}, {name_taken_problem(holder, name)}.")
        return name


class BenchmarkForm(ReasonForm):
    class Meta:
        model = Benchmark
        exclude: list[str] = []

    def published_rounds(self):
        return Round.objects.published().filter(benchmark=self.instance)

    def clean(self):
        data = super().clean()
        methodology = data.get("methodology") or self.instance.methodology
        if methodology in methodologies.REGISTRY and data.get("pass_threshold") is not None:
            rules = methodologies.get(methodology)
            if rules.default_pass_threshold is None and "pass_threshold" not in self.errors:
                self.add_error(
                    "pass_threshold",
                    f"A {rules.key} benchmark has no pass threshold: only scored benchmarks pass a run at a score.",
                )
        return data


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
    list_display = ["name", "slug", "methodology", "pass_mark", "preview_hours"]
    search_fields = ["name", "slug"]

    def get_exclude(self, request, obj=None):
        # A methodology without a pass threshold has no such field (scored alone passes a run at a score).
        if obj is not None and obj.rules.default_pass_threshold is None and obj.pass_threshold is None:
            return ["pass_threshold"]
        return super().get_exclude(request, obj)

    @admin.display(description="pass threshold")
    def pass_mark(self, obj: Benchmark) -> str:
        return "–" if obj.pass_mark is None else f"{obj.pass_mark:g}"

    def update(self, obj, **kwargs) -> None:
        services.benchmark_update(benchmark=obj, **kwargs)
