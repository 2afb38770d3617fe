"""Verdicts in the admin: entered through the add form (`verdict_record`), corrected by editors only
(`verdict_change`), logged without their outcome."""

from __future__ import annotations

import json
from contextlib import contextmanager

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from leaderboard.models import in_published_round
from pages.corrections import correction_effect

from .. import services
from ..models import Outcome, Run, Verdict, VerdictRole
from ..selectors import (
    review_prompt,
    roles_open_to,
    user_is_editor,
    user_verdict_roles,
    verdicts_to_decide_between,
    visible_verdicts,
)
from ..services.review import lowest_outcome
from ._common import DeletesThroughService, with_request


def _neutral_log(request, obj, flag: int, message) -> LogEntry:
    """A log entry whose text names the object without anything that could reveal an outcome."""
    return LogEntry.objects.create(
        user_id=request.user.pk,
        content_type_id=ContentType.objects.get_for_model(obj).pk,
        object_id=str(obj.pk),
        object_repr=_verdict_repr(obj) if isinstance(obj, Verdict) else str(obj)[:200],
        action_flag=flag,
        change_message=message if isinstance(message, str) else json.dumps(message),
    )


def _verdict_repr(verdict: Verdict) -> str:
    return f"{verdict.get_role_display()}'s verdict on run {verdict.run.key}"


@contextmanager
def _errors_shown_on(form: forms.Form):
    """A service's refusal as form errors: on the field it names when the form has one, else on the form."""
    try:
        yield
    except ValidationError as error:
        if hasattr(error, "error_dict"):
            for field, errs in error.error_dict.items():
                form.add_error(field if field in form.fields else None, errs)
        else:
            form.add_error(None, error)


def _verdict_input(data: dict) -> dict:
    """The verdict a validated form describes, as verdict_record and verdict_change take it."""
    return {"outcome": data.get("outcome") or None, "note": data.get("note") or "", "reason": data.get("reason") or ""}


OUTCOME_HELP = "The outcome row the run matched (the criteria above); if it matched several, the lowest of them."


def _review_run(request) -> Run | None:
    """The run a verdict is being entered on (the queue's link, or the form posted), with what its review reads."""
    run_id = request.GET.get("run") or request.POST.get("run")
    if not str(run_id or "").isdigit():
        return None
    return (
        Run.objects.filter(pk=run_id)
        .select_related("task", "round__benchmark", "entry__agent")
        .prefetch_related("verdicts")
        .first()
    )


class VerdictAddForm(forms.ModelForm):
    """The form a tester or reviewer fills in. It writes through `verdict_record` when it validates, so every
    rule (roles, blind double review, due time) is the service's, shown as form errors. One outcome control:
    the row the run matched (a bundle may still carry every matched row; the lowest applies either way)."""

    role = forms.ChoiceField(choices=VerdictRole.choices)
    outcome = forms.ChoiceField(choices=[("", "---------"), *Outcome.choices], help_text=OUTCOME_HELP)
    reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="The round is published: say why (goes into the round's changelog).",
    )
    request = None
    run = None  # the run under review, when the request names it
    recorded: Verdict | None = None

    class Meta:
        model = Verdict
        fields = ["run", "role", "outcome", "note"]
        widgets = {"note": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        allowed = user_verdict_roles(self.request.user) if self.request else set()
        self.fields["role"].choices = [(r, label) for r, label in VerdictRole.choices if r in allowed]
        if self.run is not None:
            # The menu offers the roles the run waits for from this person, as their queue lists them (the third
            # reviewer only where the first two disagree, and never one of those two); with none (they reviewed
            # it already, or its review is complete) every role of theirs but the third. A role posted anyway
            # is the service's to refuse, with its reason.
            offered = set(roles_open_to(self.request.user, self.run)) or (allowed - {VerdictRole.THIRD})
            self.fields["role"].widget.choices = [(r, label) for r, label in VerdictRole.choices if r in offered]

    def _post_clean(self):
        # The model's own validation would run unique checks that could tell a second reviewer whether a
        # tester's verdict exists in a way other than the service's plain message; the service checks all.
        pass

    def clean(self):
        data = super().clean()
        run = data.get("run")
        if run is None or self.errors:
            return data
        with _errors_shown_on(self):
            self.recorded = services.verdict_record(
                run=run, role=data.get("role"), reviewer=self.request.user, **_verdict_input(data)
            )
        return data


class VerdictChangeForm(forms.ModelForm):
    """An editor's correction, through `verdict_change` (reason required after publication). A change to a
    published verdict's outcome is saved only on a second submit: the first shows its effect on the board
    (`recompute.effects`, nothing written) and asks for the reason."""

    outcome = forms.ChoiceField(choices=[("", "---------"), *Outcome.choices], help_text=OUTCOME_HELP)
    reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Required once the round is published (goes into its public changelog and on the run's page).",
    )
    # The outcome and rows whose effect the editor was shown; a save with anything else shows the effect again.
    effect_seen = forms.CharField(required=False, widget=forms.HiddenInput)
    request = None
    effect = None
    previewing = False  # this answer shows the correction's effect, asked for before it is saved

    class Meta:
        model = Verdict
        fields = ["outcome", "note"]

    def _post_clean(self):
        pass

    def _matched(self, data: dict) -> list[str]:
        """The rows a bundle recorded stay with the verdict while its outcome stays; a new outcome replaces them."""
        kept = list(self.instance.matched or [])
        return kept if data.get("outcome") == self.instance.outcome else []

    def _effect_shown(self, data: dict) -> bool:
        """True when the correction may be saved: it changes no outcome of a published round, or the editor
        has seen its effect on the board (for exactly this outcome) and given a reason."""
        verdict = self.instance
        if not verdict.run.round.is_published:
            return True
        matched = self._matched(data)
        final = lowest_outcome(outcome=data.get("outcome") or None, matched=matched)
        if final == verdict.outcome:
            return True
        token = f"{final}|{','.join(matched)}"
        self.effect = correction_effect(verdict=verdict, outcome=data.get("outcome") or None, matched=matched)
        if data.get("effect_seen") != token:
            # The first save shows the effect and asks for the reason: a step of the correction, not an error
            # (`VerdictAdmin.render_change_form` shows it without the admin's red "Please correct the errors").
            self.data = self.data.copy()
            self.data[self.add_prefix("effect_seen")] = token
            self.previewing = True
            self.add_error(None, "Check the effect of this correction on the board (below), then save again.")
            return False
        if not (data.get("reason") or "").strip():
            self.add_error(
                "reason", "Say why: the reason goes into the round's public changelog and on the run's page."
            )
        return not self.errors

    def clean(self):
        data = super().clean()
        if self.errors or not self._effect_shown(data):
            return data
        with _errors_shown_on(self):
            services.verdict_change(
                verdict=self.instance, by=self.request.user, matched=self._matched(data), **_verdict_input(data)
            )
        self.instance.refresh_from_db()
        return data


@admin.register(Verdict)
class VerdictAdmin(DeletesThroughService, admin.ModelAdmin):
    list_display = ["run", "role", "outcome", "reviewer", "created_at"]
    list_filter = ["role", "outcome"]
    search_fields = ["run__key"]
    autocomplete_fields = ["run"]
    list_select_related = ["run", "reviewer"]
    change_form_template = "admin/runs/verdict/change_form.html"

    def get_queryset(self, request):
        return visible_verdicts(request.user, super().get_queryset(request))

    def get_form(self, request, obj=None, **kwargs):
        kwargs["form"] = VerdictAddForm if obj is None else VerdictChangeForm
        form = with_request(super().get_form(request, obj, **kwargs), request)
        if obj is None:
            form.run = _review_run(request)
        return form

    def get_fields(self, request, obj=None):
        if obj is None:
            run = _review_run(request)
            # A reason is asked only where the service requires one: on a run of a published round.
            reason = ["reason"] if run is not None and run.round.is_published else []
            return ["run", "role", "outcome", "note", *reason]
        shown = ["run_key", "role", "reviewer", "outcome", *(["matched"] if obj.matched else []), "note"]
        if self.has_change_permission(request, obj):
            reason = ["reason"] if obj.run.round.is_published else []
            return [*shown, *reason, "effect_seen"]
        return [*shown, "created_at"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        if self.has_change_permission(request, obj):
            return ["run_key", "role", "reviewer", "matched"]
        return ["run_key", "role", "reviewer", "outcome", "matched", "note", "created_at"]

    @admin.display(description="run")
    def run_key(self, verdict: Verdict) -> str:
        return format_html(
            '<a href="{}">{}</a>', reverse("admin:runs_run_change", args=[verdict.run_id]), verdict.run.key
        )

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("role", request.GET.get("role"))
        return initial

    def has_add_permission(self, request):
        return bool(user_verdict_roles(request.user)) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        # A published verdict is never deleted (it is corrected, with a reason): no delete button to refuse.
        if obj is not None and obj.run.round.is_published:
            return False
        return user_is_editor(request.user) and super().has_delete_permission(request, obj)

    def never_deleted(self, queryset):
        return queryset.filter(in_published_round("run__round"))

    def save_form(self, request, form, change):
        if not change:
            return form.recorded
        return form.instance

    def save_model(self, request, obj, form, change):
        pass  # written by the service in the form's clean()

    def save_related(self, request, form, formsets, change):
        pass  # a verdict has no related rows to save

    def delete_through(self, request, obj):
        services.verdict_delete(verdict=obj, by=request.user)

    def log_addition(self, request, obj, message):
        return _neutral_log(request, obj, ADDITION, message)

    def log_change(self, request, obj, message):
        return _neutral_log(request, obj, CHANGE, message)

    def add_view(self, request, form_url="", extra_context=None):
        extra = dict(extra_context or {})
        run = _review_run(request)
        if run is not None:
            extra["review_run"] = run
            task_version = run.task.versions.filter(version=run.task_version).first()
            extra["task_version"] = task_version
            if task_version is not None:
                extra["filled_prompt"], extra["parameters"] = review_prompt(run, task_version.prompt)
            extra["earlier_verdicts"] = verdicts_to_decide_between(request.user, run)
            extra["evidence"] = list(run.evidence.all())
            extra["not_due"] = run.due_at is not None and run.due_at > timezone.now()
        return super().add_view(request, form_url, extra)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        """A correction's first save shows its effect and asks for the reason (`VerdictChangeForm._effect_shown`):
        that page is the correction's next step, so it carries no error banner (the form is held back all the
        same, and the reason is asked for in the effect's own words)."""
        if getattr(getattr(context.get("adminform"), "form", None), "previewing", False):
            context["errors"] = []
        return super().render_change_form(request, context, add, change, form_url, obj)

    def response_add(self, request, obj, post_url_continue=None):
        if "_addanother" not in request.POST and "_continue" not in request.POST:
            self.message_user(
                request, f"Recorded the {obj.get_role_display()}'s verdict on {obj.run.key}.", messages.SUCCESS
            )
            return HttpResponseRedirect(reverse("admin:runs_run_queue"))
        return super().response_add(request, obj, post_url_continue)
