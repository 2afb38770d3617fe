"""Tasks and their versions in the admin. A published task version's prompt, criteria, parameters and
interruption are read-only: a change is a new version ("New version" on the version's page,
leaderboard.services.task_version_create)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from leaderboard.services.changes import BENCHMARK_PUBLISHED
from runs.admin import DeletesThroughService, ask_reason, reason_field, refused_as_denied
from runs.selectors import user_is_editor
from scoring import methodologies

from .. import services
from ..models import Round, Task, TaskVersion


class TaskVersionInline(admin.TabularInline):
    """Versions of a task, read-only here: each is edited (while unpublished) or superseded on its own page."""

    model = TaskVersion
    extra = 0
    fields = ["link", "published_at", "created_at", "change_note"]
    readonly_fields = fields
    can_delete = False

    @admin.display(description="version")
    def link(self, v: TaskVersion) -> str:
        return format_html(
            '<a href="{}">v{}</a>', reverse("admin:leaderboard_taskversion_change", args=[v.pk]), v.version
        )

    def has_add_permission(self, request, obj=None):
        return False


LIMIT_FIELDS = ("time_limit_min", "token_budget")


def time_limit_help() -> str:
    """What a blank time limit means on each methodology, from the registry (each one's own seed)."""
    said = []
    for m in methodologies.REGISTRY.values():
        limits = m.task_limits(None, None)
        if limits.source == "cap":
            said.append(f"{m.key}: the {limits.time_limit_min:g}-minute cap of every task, no other")
        elif limits.source == "default":
            minutes = limits.time_limit_min or 0.0
            said.append(f"{m.key}: {minutes * 60:g} seconds" if limits.in_seconds else f"{m.key}: {minutes:g} min")
        else:
            said.append(f"{m.key}: none, state it")
    return "Minutes. Blank: the methodology's own default (" + "; ".join(said) + ")."


class TaskForm(forms.ModelForm):
    change_reason = reason_field(
        "Required once a round of the benchmark is published: it goes into the round's changelog."
    )

    class Meta:
        model = Task
        exclude: list[str] = []
        help_texts = {
            "token_budget": "Checks benchmarks only (a run stops when its token budget runs out); other methodologies "
            "read, show and answer none."
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "time_limit_min" in self.fields:
            self.fields["time_limit_min"].help_text = time_limit_help()

    def clean(self):
        data = super().clean()
        bench = self.instance.benchmark if self.instance.pk else data.get("benchmark")
        changed = [f for f in self.changed_data if f != "change_reason"]
        if self.instance.pk and bench is not None and changed:
            published = Round.objects.published().filter(benchmark=bench).exists()
            ask_reason(self, published=published, message=BENCHMARK_PUBLISHED)
        if bench is not None:
            # The limits the benchmark's methodology needs every task to state (a checks task: its time limit and
            # token budget) or refuses (a weekly task's limit other than the cap), refused as in a bundle.
            fields = {"key": data.get("key") or self.instance.key, **{f: data.get(f) for f in LIMIT_FIELDS}}
            rules = methodologies.get(bench.methodology)
            for field, why in rules.limit_problems(fields):
                if field in self.fields and field not in self.errors:
                    self.add_error(field, why)
        return data


@admin.register(Task)
class TaskAdmin(DeletesThroughService, admin.ModelAdmin):
    """Tasks are added and changed through runs.services (task set version, changelog, recompute); a task
    with runs is never deleted (its runs are published results)."""

    form = TaskForm
    list_display = ["key", "title", "benchmark", "kind", "version", "domain"]
    list_filter = ["benchmark", "kind", "domain"]
    search_fields = ["key", "title"]
    inlines = [TaskVersionInline]

    def get_readonly_fields(self, request, obj=None):
        # The current version moves only with a new TaskVersion (task_version_create).
        return ["version", "benchmark"] if obj is not None else []

    def get_exclude(self, request, obj=None):
        # A methodology without token budgets has no such field on its tasks.
        if obj is not None and not obj.benchmark.rules.token_budgets:
            return ["token_budget"]
        return super().get_exclude(request, obj)

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_change_permission(request, obj)

    def has_add_permission(self, request):
        return user_is_editor(request.user) and super().has_add_permission(request)

    def save_model(self, request, obj, form, change):
        fields = {n: getattr(obj, n) for n in services.TASK_FIELDS}
        reason = form.cleaned_data.get("change_reason") or ""
        if not change:
            new = services.task_create(
                benchmark=obj.benchmark, by=request.user, key=obj.key, version=obj.version, reason=reason, **fields
            )
            obj.pk = new.pk
            return
        changes = {n: v for n, v in fields.items() if n in form.changed_data}
        with refused_as_denied():  # the form's clean() already asked for the reason
            services.task_update(task=obj, by=request.user, changes=changes, reason=reason)

    def delete_through(self, request, obj):
        services.task_delete(task=obj, by=request.user)


SCENARIOS_HELP = (
    'What a voter tries in both apps, shown above them on the vote screen: a list of strings, e.g. ["Sign up", '
    '"Send a message", "Reload the app and find the message"]. Not part of the wording: editable at any time.'
)


def scenarios_clean(value) -> list[str]:
    """A task version's scenarios: a list of non-empty strings (blank: none)."""
    if value in (None, ""):
        return []
    if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
        raise forms.ValidationError('Give a list of non-empty strings, e.g. ["Sign up", "Send a message"].')
    return [s.strip() for s in value]


class TaskVersionForm(forms.ModelForm):
    class Meta:
        model = TaskVersion
        fields = [
            "task",
            "prompt",
            "parameters",
            "interruption",
            "evidence",
            "scenarios",
            "criteria",
            "observes_later_effects",
            "change_note",
        ]
        help_texts = {"scenarios": SCENARIOS_HELP}

    def clean_scenarios(self):
        return scenarios_clean(self.cleaned_data.get("scenarios"))


class NewVersionForm(forms.Form):
    prompt = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}))
    criteria = forms.JSONField(help_text='{"pass": [...], "partial": [...], "fail": [...]}')
    parameters = forms.JSONField(required=False)
    interruption = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    evidence = forms.JSONField(required=False)
    scenarios = forms.JSONField(required=False, help_text=SCENARIOS_HELP)
    observes_later_effects = forms.BooleanField(required=False)
    change_note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), help_text="What changed and why (shown with the version)."
    )

    def clean_scenarios(self):
        return scenarios_clean(self.cleaned_data.get("scenarios"))


@admin.register(TaskVersion)
class TaskVersionAdmin(DeletesThroughService, admin.ModelAdmin):
    list_display = ["__str__", "task", "version", "published_at", "created_at"]
    list_filter = ["task__benchmark", "published_at"]
    search_fields = ["task__key", "version"]
    form = TaskVersionForm
    actions = ["publish"]
    change_form_template = "admin/leaderboard/taskversion/change_form.html"

    def get_readonly_fields(self, request, obj=None):
        readonly = ["version", "published_at", "created_at"]
        if obj is not None:
            readonly.append("task")
            if obj.published_at is not None:
                readonly += list(services.FROZEN_VERSION_FIELDS)
        return readonly

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_change_permission(request, obj)

    def has_add_permission(self, request):
        return user_is_editor(request.user) and super().has_add_permission(request)

    def save_model(self, request, obj, form, change):
        if not change:
            # A first version, or a new one next to the current: versions come from task_version_create.
            new = services.task_version_create(
                task=obj.task,
                by=request.user,
                prompt=obj.prompt,
                criteria=obj.criteria,
                parameters=obj.parameters,
                interruption=obj.interruption,
                evidence=obj.evidence,
                scenarios=obj.scenarios,
                observes_later_effects=obj.observes_later_effects,
                change_note=obj.change_note,
            )
            obj.pk, obj.version = new.pk, new.version
            return
        fields = {name: getattr(obj, name) for name in form.changed_data}
        with refused_as_denied():
            services.task_version_update(version=obj, by=request.user, **fields)

    def delete_through(self, request, obj):
        services.task_version_delete(version=obj, by=request.user)

    @admin.action(description="Publish the prompt and checklist (then never edited in place)", permissions=["change"])
    def publish(self, request, queryset):
        for version in queryset:
            services.task_version_publish(version=version, by=request.user)
        self.message_user(request, f"Published {queryset.count()} task version(s).", messages.SUCCESS)

    def get_urls(self):
        return [
            path(
                "<int:pk>/new-version/",
                self.admin_site.admin_view(self.new_version_view),
                name="leaderboard_taskversion_new",
            ),
            *super().get_urls(),
        ]

    def new_version_view(self, request, pk: int):
        if not user_is_editor(request.user):
            raise PermissionDenied
        base = get_object_or_404(TaskVersion.objects.select_related("task"), pk=pk)
        if request.method == "POST":
            form = NewVersionForm(request.POST)
            if form.is_valid():
                d = form.cleaned_data
                new = services.task_version_create(
                    task=base.task,
                    by=request.user,
                    prompt=d["prompt"],
                    criteria=d["criteria"] or {},
                    parameters=d["parameters"],
                    interruption=d["interruption"],
                    evidence=d["evidence"],
                    scenarios=d["scenarios"],
                    observes_later_effects=d["observes_later_effects"],
                    change_note=d["change_note"],
                )
                self.message_user(request, f"Created {new} (the task's current version).", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:leaderboard_taskversion_change", args=[new.pk]))
        else:
            form = NewVersionForm(
                initial={
                    "prompt": base.prompt,
                    "criteria": base.criteria,
                    "parameters": base.parameters,
                    "interruption": base.interruption,
                    "evidence": base.evidence,
                    "scenarios": base.scenarios,
                    "observes_later_effects": base.observes_later_effects,
                }
            )
        context = {
            **self.admin_site.each_context(request),
            "title": f"New version of {base.task.key}",
            "opts": self.opts,
            "form": form,
            "base": base,
        }
        return TemplateResponse(request, "admin/leaderboard/taskversion/new_version.html", context)
