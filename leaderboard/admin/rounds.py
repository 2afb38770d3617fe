"""Rounds, their entries, parameters and changelog in the admin. A round's status moves only through the
actions "Enter preview" and "Publish" (runs.services), which refuse with the reasons (preview window, runs in
review, open disputes); status and dates are read-only. Round parameters are editor-only (no other group has
a permission on them)."""

from __future__ import annotations

from dataclasses import replace

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import ActionLocation
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.response import TemplateResponse

from leaderboard.services.changes import require_reason
from runs import services as run_services
from runs.admin import ask_reason, change_reason, reason_field, refused_as_denied, related_changed
from runs.models import Evidence, Verdict
from runs.services.round_rules import form_refusal, round_rules_kept

from .. import services
from ..models import Benchmark, ChangelogEntry, Entry, Round, RoundParameter, RoundStatus
from ..roles import user_is_editor
from ._common import ReasonForm, SavesThroughServices


class RoundChildFormSet(forms.BaseInlineFormSet):
    """An edit of a published round's entries or parameters needs the round form's reason (it goes into the
    changelog); asked here, before anything is written, rather than refused after."""

    def clean(self):
        super().clean()
        rnd = self.instance
        if (
            rnd.pk
            and rnd.is_published
            and any(f.cleaned_data.get("DELETE") for f in self.forms if hasattr(f, "cleaned_data") and f.instance.pk)
        ):
            raise forms.ValidationError(
                "The round is published: its entries and parameter values are public and are "
                "never deleted; correct them instead, with a reason."
            )
        if rnd.pk and self.has_changed():
            try:
                require_reason(self.data.get("change_reason"), published=rnd.is_published)
            except ValidationError as e:
                raise forms.ValidationError(f"{e.message_dict['reason'][0]} Give it in “change reason”.") from e


class EntryInline(admin.TabularInline):
    model = Entry
    formset = RoundChildFormSet
    extra = 0
    autocomplete_fields = ["agent"]


class RoundParameterInline(admin.TabularInline):
    model = RoundParameter
    formset = RoundChildFormSet
    extra = 0

    def has_view_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_view_permission(request, obj)


class ChangelogInline(admin.TabularInline):
    model = ChangelogEntry
    extra = 0
    fields = ["created_at", "what", "why", "who", "who_role", "run"]
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


class RoundForm(ReasonForm):
    class Meta:
        model = Round
        exclude: list[str] = []

    def published_rounds(self):
        return Round.objects.published().filter(pk=self.instance.pk)

    def _post_clean(self):
        """The round rules (`scoring.round_rules`) asked of the round as given here with its stored runs, before
        anything is written: a weekly round's week that would leave runs outside it, or no week at all."""
        super()._post_clean()
        if not self.errors and self.instance.benchmark_id is not None:
            for line in form_refusal(self.instance):
                self.add_error(None, line)


def _publication_for(request):
    """The round page's "publication" field for this request's user: the reasons a round cannot be published
    name each run in review as this person may read it, so a reviewer of a run never learns from them whether
    the other reviewer agreed (runs.selectors.review_label). A closure over the request (a ModelAdmin is shared
    by every request and thread), made once per request: the admin tells read-only fields from form fields by
    comparing them, so every call must return the same one."""
    if not hasattr(request, "_round_publication"):

        @admin.display(description="publication")
        def publication(rnd: Round) -> str:
            if rnd.pk is None:
                return ""
            problems = run_services.round_publish_problems(rnd, viewer=request.user)
            return "ready to publish" if not problems else " ".join(problems)

        request._round_publication = publication
    return request._round_publication


def _becomes_public(rnd: Round) -> dict:
    """What publishing `rnd` shows the public that it did not see: counted, as the confirmation names it."""
    return {
        "round": rnd,
        "agents": rnd.entries.count(),
        "runs": rnd.runs.count(),
        "verdicts": Verdict.objects.filter(run__round=rnd).count(),
        "evidence": Evidence.objects.filter(run__round=rnd).count(),
        "parameters": rnd.parameters.count(),
        "preview": rnd.status == RoundStatus.PREVIEW,
    }


def publish_confirmation(model_admin, request, queryset):
    """The page asking an editor to confirm publishing the selected rounds, naming for each what becomes public
    and, for any that cannot be published, why; None when none of them can (they are refused as before)."""
    rounds = list(queryset.select_related("benchmark"))
    refused = {r: run_services.round_publish_problems(r, viewer=request.user) for r in rounds}
    ready = [r for r in rounds if not refused[r]]
    if not ready:
        return None
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Publish: are you sure?",
        "opts": model_admin.model._meta,
        "queryset": rounds,
        "ready": [_becomes_public(r) for r in ready],
        "refused": [(r, problems) for r, problems in refused.items() if problems],
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "admin/leaderboard/round/publish_confirmation.html", context)


@admin.register(Round)
class RoundAdmin(SavesThroughServices, admin.ModelAdmin):
    form = RoundForm
    list_display = ["__str__", "benchmark", "status", "starts_on", "preview_started_at", "published_at"]
    list_filter = ["benchmark", "status"]
    search_fields = ["key", "name"]
    inlines = [EntryInline, RoundParameterInline, ChangelogInline]
    actions = ["enter_preview", "publish"]

    def update(self, obj, **kwargs) -> None:
        with transaction.atomic(), round_rules_kept([obj.pk]):  # the form asked first; this keeps the write to it
            services.round_update(round=obj, **kwargs)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if change:
            related_changed(services.round_details_changed, request, form, formsets, round=form.instance)

    def get_readonly_fields(self, request, obj=None):
        return ["status", "preview_started_at", "published_at", _publication_for(request)]

    @admin.action(description="Enter preview (vendors see their results, may dispute)", permissions=["change"])
    def enter_preview(self, request, queryset):
        self._each(request, queryset, run_services.round_enter_preview, "is in preview", "did not enter the preview")

    @admin.action(description="Publish (after the preview, with every run reviewed)", permissions=["change"])
    def publish(self, request, queryset):
        """Asks first, naming what becomes public (`publish_confirmation`); publishes once confirmed. Rounds none
        of which may be published are refused at once, with the reasons."""
        if request.POST.get("post") != "yes":
            asked = publish_confirmation(self, request, queryset)
            if asked is not None:
                return asked
        self._each(request, queryset, run_services.round_publish, "is published", "was not published")
        return None

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        """The actions say what publishing means for the rounds listed: a benchmark without a vendor window
        (preview hours 0) publishes straight from draft, so neither "Enter preview" nor "after the preview" is
        offered where the list holds only such benchmarks."""
        actions = super().get_actions(request, action_location)
        if "publish" not in actions:
            return actions
        benchmarks = Benchmark.objects.all()
        if (shown := request.GET.get("benchmark__id__exact", "")).isdigit():
            benchmarks = benchmarks.filter(pk=shown)
        hours = set(benchmarks.values_list("preview_hours", flat=True))
        words = None
        if not any(hours):
            words = "Publish (with every run reviewed)"
            actions.pop("enter_preview", None)
        elif 0 in hours:
            words = "Publish (with every run reviewed; after the vendor preview where the benchmark has one)"
        if words:
            actions["publish"] = replace(actions["publish"], description=words, plural_description=words)
        return actions

    def _each(self, request, queryset, service, done: str, refused: str) -> None:
        """`service` on each selected round; a message per round says how it went and why one was refused."""
        for rnd in queryset:
            try:
                service(round=rnd, by=request.user)
            except ValidationError as e:
                self.message_user(request, f"{rnd} {refused}: " + " ".join(e.messages), messages.ERROR)
            else:
                self.message_user(request, f"{rnd} {done}.", messages.SUCCESS)


class RoundParameterForm(forms.ModelForm):
    change_reason = reason_field()

    class Meta:
        model = RoundParameter
        exclude: list[str] = []

    def clean(self):
        data = super().clean()
        rnd = self.instance.round if self.instance.pk else data.get("round")
        if rnd is not None and self.has_changed():
            ask_reason(self, published=rnd.is_published)
        return data


@admin.register(RoundParameter)
class RoundParameterAdmin(admin.ModelAdmin):
    form = RoundParameterForm
    list_display = ["round", "task", "name", "value"]
    list_filter = ["round"]

    def save_model(self, request, obj, form, change):
        with refused_as_denied():
            services.round_parameter_save(parameter=obj, by=request.user, reason=change_reason(form))

    def delete_model(self, request, obj):
        with refused_as_denied():
            services.round_parameter_delete(parameter=obj, by=request.user)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


@admin.register(ChangelogEntry)
class ChangelogEntryAdmin(admin.ModelAdmin):
    list_display = ["round", "what", "who", "who_role", "created_at"]
    list_filter = ["round"]
    readonly_fields = ["who", "created_at"]

    def has_change_permission(self, request, obj=None):
        return obj is None and super().has_change_permission(request, obj)  # notes stay as written

    def save_model(self, request, obj, form, change):
        with refused_as_denied():
            services.changelog_note_add(entry=obj, by=request.user)
