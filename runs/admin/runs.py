"""Runs in the admin: the list and the change form, blind to outcomes for anyone but editors, and the
reviewers' queue page."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ObjectDoesNotExist, PermissionDenied
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone

from leaderboard.models import Round
from scoring.run_setup import RUN_SETUP_FIELDS, setup_problems

from .. import services
from ..models import CheckResult, Dispute, Evidence, Run, Verdict, VerdictRole
from ..selectors import (
    queue_counts,
    review_label,
    review_prompt,
    review_queue,
    reviewer_pair_agreement,
    roles_open_to,
    sees_all_verdicts,
    user_is_editor,
    user_verdict_roles,
    visible_verdict_roles,
)
from ..services.round_rules import form_refusal
from ._common import (
    DeletesThroughService,
    ask_reason,
    change_reason,
    reason_field,
    refused_as_denied,
    related_changed,
    with_request,
)
from .queue import ReviewStageFilter
from .reruns import reruns_create

# What every run has, whatever its methodology; the rest of a run's form is its methodology's `run_fields`.
COMMON_RUN_FIELDS = frozenset(
    {
        "key",
        "round",
        "entry",
        "task",
        "task_version",
        "trial",
        "language",
        "status",
        "rerun_of",
        "tokens_input",
        "tokens_output",
        "tokens_cache_write",
        "cost_usd",
        "wall_seconds",
        "first_output_seconds",
        "steps",
        "started_at",
        "created_at",
        "updated_at",
        "change_reason",
    }
)
BLIND_LOOKUPS = ("outcome", "verdicts", "rerun", "rerun_of", "disputes", "changelog")


class VerdictInline(admin.TabularInline):
    """The verdicts of a run, read-only; only those the person may see (`run` is set per request)."""

    model = Verdict
    extra = 0
    fields = ["role", "outcome", "matched", "note", "reviewer", "created_at"]
    readonly_fields = fields
    can_delete = False
    run: Run | None = None

    def get_queryset(self, request):
        qs = super().get_queryset(request).select_related("reviewer")
        if self.run is None:
            return qs.none()
        return qs.filter(run=self.run, role__in=visible_verdict_roles(request.user, self.run))

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class EvidenceInline(admin.TabularInline):
    model = Evidence
    extra = 0


class CheckResultFormSet(forms.BaseInlineFormSet):
    """The checks a run lists agree with the counts its score is read from (the bundle's rule, its methodology's
    `listed_checks_problems`), so a correction of one without the other is refused, not published as a run
    page that shows one result beside a board that counts another."""

    def clean(self):
        super().clean()
        run = self.instance
        try:
            rules = run.round.benchmark.rules
        except ObjectDoesNotExist:
            return
        kept = [
            f.cleaned_data for f in self.forms if getattr(f, "cleaned_data", None) and not f.cleaned_data.get("DELETE")
        ]
        # The run as a bundle would carry it: the result fields its methodology reads, and the checks kept here.
        doc: dict[str, Any] = {name: getattr(run, name) for name in rules.run_fields}
        doc["checks"] = [{"kind": d.get("kind"), "passed": d.get("passed")} for d in kept]
        problems = rules.listed_checks_problems(doc)
        if problems:
            raise forms.ValidationError(
                [f"The checks {p} (change both, or neither)." for p in problems], code="checks_disagree"
            )


class CheckResultInline(admin.TabularInline):
    model = CheckResult
    formset = CheckResultFormSet
    extra = 0


class DisputeInline(admin.TabularInline):
    model = Dispute
    fk_name = "run"
    extra = 0
    fields = ["reason", "note", "status", "filed_by", "filed_at", "decided_by", "decided_at", "decision_note"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return user_is_editor(request.user)


class RunAdminForm(forms.ModelForm):
    change_reason = reason_field("Required once the round is published: the reason goes into its public changelog.")

    class Meta:
        model = Run
        exclude: list[str] = []  # every field; the admin's fieldsets decide what is shown

    def clean(self):
        data = super().clean()
        rnd = self.instance.round if self.instance.pk else data.get("round")
        changed = [f for f in self.changed_data if f != "change_reason"]
        if rnd is not None and (changed or not self.instance.pk):
            ask_reason(self, published=rnd.is_published)
        if rnd is not None:  # 002's judge model and execution mode, on a scored run only (as in a bundle)
            for field, why in setup_problems(rnd.benchmark.rules.run_setup, rnd.benchmark.methodology, data):
                self.add_error(field if field in self.fields else None, why)
        return data

    def _post_clean(self):
        """The round rules (`scoring.round_rules`) asked of the round as it would hold the run as given here, before
        anything is written: a start outside a weekly round's week, two versions of one weekly task, a due time
        after the verdicts given, each refused naming the rule, the round and the run."""
        super()._post_clean()
        if not self.errors and self.instance.round_id is not None:
            for line in form_refusal(self.instance.round, runs=[self.instance]):
                self.add_error(None, line)


@admin.register(Run)
class RunAdmin(DeletesThroughService, admin.ModelAdmin):
    form = RunAdminForm
    search_fields = ["key", "entry__agent__name", "task__key", "task__title"]
    list_select_related = ["round", "round__benchmark", "entry__agent", "task"]
    autocomplete_fields = ["task"]
    raw_id_fields = ["entry", "rerun_of"]
    actions = ["create_reruns"]
    change_form_template = "admin/runs/run/change_form.html"

    # --- what a person may see
    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("verdicts")

    def get_list_display(self, request):
        shown: list = ["key", "round", "agent_name", "task", "trial", "status"]
        if user_is_editor(request.user):
            shown.append("outcome")

        # A closure over this request's user (a ModelAdmin is shared by every request and thread).
        @admin.display(description="review")
        def review(run: Run) -> str:
            return review_label(request.user, run)

        return [*shown, review, "due"]

    def get_list_filter(self, request):
        filters = ["round__benchmark", "round", "task", "status", ReviewStageFilter]
        if user_is_editor(request.user):
            filters.insert(4, "outcome")
        return filters

    def lookup_allowed(self, lookup, value, request):
        if not user_is_editor(request.user) and lookup.split("__")[0] in BLIND_LOOKUPS:
            return False
        return super().lookup_allowed(lookup, value, request)

    def get_fields(self, request, obj=None):
        fields = list(super().get_fields(request, obj))
        if obj is not None:
            # The fields of the run's methodology only (its registry entry), not every methodology's.
            rules = obj.round.benchmark.rules
            own = COMMON_RUN_FIELDS | set(rules.run_fields) | set(RUN_SETUP_FIELDS if rules.run_setup else ())
            fields = [f for f in fields if f in own]
        if obj is None or not sees_all_verdicts(request.user, obj):
            fields = [f for f in fields if f != "outcome"]
        if not self.has_change_permission(request, obj) or obj is None:
            fields = [f for f in fields if f != "change_reason"]
        return fields

    def get_readonly_fields(self, request, obj=None):
        readonly = ["rerun_of", "created_at", "updated_at"]
        if obj is not None and obj.verdicts.exists():
            readonly.append("outcome")  # set from the verdicts
        return readonly

    def get_form(self, request, obj=None, **kwargs):
        return with_request(super().get_form(request, obj, **kwargs), request)

    def get_inline_instances(self, request, obj=None):
        instances = []
        for inline in super().get_inline_instances(request, obj):
            if isinstance(inline, VerdictInline):
                inline.run = obj
            instances.append(inline)
        return instances

    def get_inlines(self, request, obj):
        inlines = [VerdictInline, EvidenceInline, CheckResultInline]
        if user_is_editor(request.user):
            inlines.append(DisputeInline)
        return inlines if obj is not None else [EvidenceInline, CheckResultInline]

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_change_permission(request, obj)

    def has_add_permission(self, request):
        return user_is_editor(request.user) and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_delete_permission(request, obj)

    # --- columns
    @admin.display(description="agent", ordering="entry__agent__name")
    def agent_name(self, run: Run) -> str:
        return run.entry.agent.name

    @admin.display(description="due", ordering="due_at")
    def due(self, run: Run) -> str:
        if run.due_at is None:
            return ""
        if run.due_at > timezone.now():
            return f"due on {timezone.localtime(run.due_at):%Y-%m-%d %H:%M}"
        return "due"

    # --- the change form
    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        extra = dict(extra_context or {})
        if obj is not None:
            version = obj.task.versions.filter(version=obj.task_version).first()
            roles = roles_open_to(request.user, obj)
            extra.update(
                {
                    "task_version": version,
                    # The prompt as the tester sent it (staff only; the values stay private until publication).
                    "filled_prompt": review_prompt(obj, version.prompt)[0] if version else "",
                    "review_roles": [
                        (r, VerdictRole(r).label, reverse("admin:runs_verdict_add") + f"?run={obj.pk}&role={r}")
                        for r in roles
                    ],
                    "not_due": obj.due_at is not None and obj.due_at > timezone.now(),
                    "stage_label": review_label(request.user, obj),
                }
            )
        return super().change_view(request, object_id, form_url, extra)

    def save_model(self, request, obj, form, change):
        if not change:
            fields = {f.attname: getattr(obj, f.attname) for f in Run._meta.concrete_fields if not f.primary_key}
            with refused_as_denied():
                obj.pk = services.run_create(by=request.user, reason=change_reason(form), **fields).pk
            return
        changes = {
            name: getattr(obj, name)
            for name in form.changed_data
            if name != "change_reason" and name in {f.name for f in Run._meta.concrete_fields}
        }
        with refused_as_denied():  # the form's clean() already asked for the reason
            services.run_update(run=obj, by=request.user, changes=changes, reason=change_reason(form))

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        related_changed(services.run_related_changed, request, form, formsets, run=form.instance)

    def delete_through(self, request, obj):
        services.run_delete(run=obj, by=request.user)

    def history_view(self, request, object_id, extra_context=None):
        response = super().history_view(request, object_id, extra_context)
        obj = self.get_object(request, object_id)
        if obj is not None and not sees_all_verdicts(request.user, obj) and hasattr(response, "context_data"):
            page = response.context_data["action_list"]
            entries = list(page.object_list)
            for entry in entries:
                # The message of a change could name a verdict or an outcome; who and when stay visible.
                entry.change_message = ""
                entry.get_change_message = lambda: "(details hidden during blind review)"
            page.object_list = entries
        return response

    # --- actions and the queue
    @admin.action(description="Create the re-run an accepted dispute allows", permissions=["change"])
    def create_reruns(self, request, queryset):
        """In a weekly round, asks first when each re-run started (`reruns_create`)."""
        runs = list(queryset.select_related("round__benchmark", "entry__agent", "task"))
        return reruns_create(self, request, queryset, runs)

    def get_urls(self):
        return [
            path("queue/", self.admin_site.admin_view(self.queue_view), name="runs_run_queue"),
            path(
                "agreement/<int:round_id>/",
                self.admin_site.admin_view(self.agreement_view),
                name="runs_run_agreement",
            ),
            *super().get_urls(),
        ]

    def agreement_view(self, request, round_id: int):
        """Review agreement per pair of reviewers in one round: editors only (private; the public pages give
        the round's agreement by role)."""
        if not user_is_editor(request.user):
            raise PermissionDenied
        rnd = get_object_or_404(Round.objects.select_related("benchmark"), pk=round_id)
        context = {
            **self.admin_site.each_context(request),
            "title": f"Review agreement by reviewer pair: {rnd.benchmark.name} {rnd.name or rnd.key}",
            "opts": self.opts,
            "round": rnd,
            "pairs": reviewer_pair_agreement(request.user, rnd),
        }
        return TemplateResponse(request, "admin/runs/run/agreement.html", context)

    def queue_view(self, request):
        if not user_verdict_roles(request.user):
            raise PermissionDenied
        items = review_queue(request.user)
        context = {
            **self.admin_site.each_context(request),
            "title": "Reviewers' queue",
            "opts": self.opts,
            "items": [(i, reverse("admin:runs_verdict_add") + f"?run={i.run.pk}&role={i.role}") for i in items],
            "counts": queue_counts(request.user),
        }
        return TemplateResponse(request, "admin/runs/run/queue.html", context)


@admin.register(Evidence)
class EvidenceAdmin(admin.ModelAdmin):
    list_display = ["run", "kind", "caption", "url"]
    list_filter = ["kind"]
    search_fields = ["run__key", "caption"]
    autocomplete_fields = ["run"]
