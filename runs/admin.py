"""The admin reviewers work in: runs, verdicts, evidence, disputes and the reviewers' queue.

Blind second review (seed 000 §5): every page a tester or reviewer can reach asks runs.selectors which
verdicts they may see. Concretely, for anyone who is not an editor:

- the run change list has no outcome column, no outcome filter, and refuses `?outcome=` / `?verdicts__...`
  lookups typed into the address bar; its "review" column says "reviewed by you", never how it went;
- the run change form leaves out the run's outcome and lists only the verdicts the person may see;
- the verdict change list, change form and history only reach the verdicts the person may see;
- the run history shows who changed what and when, without change messages (they could name a verdict);
- admin log entries of verdicts are written without the outcome in their text;
- autocomplete (admin/autocomplete/) answers with run keys only.

Verdicts are entered through the verdict add form (linked from the queue and the run page) and written by
runs.services.verdict_record; only editors change a verdict afterwards (runs.services.verdict_change).
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.contrib.admin.options import ActionLocation
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from . import services
from .models import CheckResult, Dispute, DisputeStatus, Evidence, Outcome, Run, Verdict, VerdictRole
from .selectors import (
    queue_counts,
    review_queue,
    review_stage,
    roles_open_to,
    sees_all_verdicts,
    user_is_editor,
    user_verdict_roles,
    visible_verdict_roles,
    visible_verdicts,
)

BLIND_LOOKUPS = ("outcome", "verdicts", "rerun", "rerun_of", "disputes", "changelog")


def _with_request(form_class, request):
    return type(form_class.__name__, (form_class,), {"request": request})


def _neutral_log(request, obj, flag: int, message) -> LogEntry:
    """A log entry whose text names the object without anything that could reveal an outcome."""
    return LogEntry.objects.create(
        user_id=request.user.pk, content_type_id=ContentType.objects.get_for_model(obj).pk,
        object_id=str(obj.pk), object_repr=_verdict_repr(obj) if isinstance(obj, Verdict) else str(obj)[:200],
        action_flag=flag, change_message=message if isinstance(message, str) else json.dumps(message))


def _verdict_repr(verdict: Verdict) -> str:
    return f"{verdict.get_role_display()}'s verdict on run {verdict.run.key}"


class DeletesThroughService:
    """A ModelAdmin mixin: deletions go through `delete_through` (a service), one object at a time; a refused
    deletion is an error message on the object's page or the list, never a silent success."""

    def delete_through(self, request, obj) -> None:
        raise NotImplementedError

    def delete_model(self, request, obj):
        self.delete_through(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            try:
                self.delete_through(request, obj)
            except ValidationError as e:
                self.message_user(request, f"{obj} was not deleted: {' '.join(e.messages)}", messages.ERROR)

    def delete_view(self, request, object_id, extra_context=None):
        if request.method == "POST":
            obj = self.get_object(request, object_id)
            if obj is not None and self.has_delete_permission(request, obj):
                shown = str(obj)
                try:
                    with transaction.atomic():
                        self.log_deletions(request, [obj])  # rolled back with a refused deletion
                        self.delete_through(request, obj)
                except ValidationError as e:
                    self.message_user(request, f"{shown} was not deleted: {' '.join(e.messages)}", messages.ERROR)
                    return HttpResponseRedirect(reverse(
                        f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[object_id]))
                self.message_user(request, f"Deleted {shown}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse(
                    f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"))
        return super().delete_view(request, object_id, extra_context)

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        if "delete_selected" in actions:
            del actions["delete_selected"]
            if self.has_delete_permission(request):
                actions["delete_through_service"] = (
                    type(self).delete_through_service, "delete_through_service",
                    f"Delete the selected {self.opts.verbose_name_plural}")
        return actions

    def delete_through_service(self, request, queryset):
        done = 0
        for obj in queryset:
            try:
                with transaction.atomic():
                    self.delete_through(request, obj)
                done += 1
            except ValidationError as e:
                self.message_user(request, f"{obj} was not deleted: {' '.join(e.messages)}", messages.ERROR)
        if done:
            self.message_user(request, f"Deleted {done} {self.opts.verbose_name_plural}.", messages.SUCCESS)


# --- inlines ------------------------------------------------------------------------------------------------------

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


class CheckResultInline(admin.TabularInline):
    model = CheckResult
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


# --- runs ---------------------------------------------------------------------------------------------------------

class RunAdminForm(forms.ModelForm):
    change_reason = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Required once the round is published: the reason goes into its public changelog.")

    class Meta:
        model = Run
        exclude: list[str] = []  # every field; the admin's fieldsets decide what is shown

    def clean(self):
        data = super().clean()
        rnd = self.instance.round if self.instance.pk else data.get("round")
        changed = [f for f in self.changed_data if f != "change_reason"]
        if rnd is not None and rnd.is_published and (changed or not self.instance.pk) and \
                not (data.get("change_reason") or "").strip():
            self.add_error("change_reason", "The round is published: say why (it goes into the changelog).")
        return data


class ReviewStageFilter(admin.SimpleListFilter):
    """Runs waiting for the signed-in person (never filters by outcome)."""

    title = "review"
    parameter_name = "review"

    def lookups(self, request, model_admin):
        return [("mine", "waiting for me"), ("due_later", "due later")]

    def queryset(self, request, queryset):
        if self.value() == "mine":
            ids = [i.run.pk for i in review_queue(request.user) if i.actionable]
            return queryset.filter(pk__in=ids)
        if self.value() == "due_later":
            return queryset.filter(due_at__gt=timezone.now())
        return queryset


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
            return self.review_label(request, run)

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
        return _with_request(super().get_form(request, obj, **kwargs), request)

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
            extra.update({
                "task_version": version,
                "review_roles": [(r, VerdictRole(r).label,
                                  reverse("admin:runs_verdict_add") + f"?run={obj.pk}&role={r}") for r in roles],
                "not_due": obj.due_at is not None and obj.due_at > timezone.now(),
                "stage_label": self.review_label(request, obj),
            })
        return super().change_view(request, object_id, form_url, extra)

    def review_label(self, request, run: Run) -> str:
        if not sees_all_verdicts(request.user, run) and any(v.reviewer_id == request.user.pk
                                                            for v in run.verdicts.all()):
            return "reviewed by you"
        return review_stage(run).label

    def save_model(self, request, obj, form, change):
        if not change:
            fields = {f.attname: getattr(obj, f.attname) for f in Run._meta.concrete_fields if not f.primary_key}
            try:
                obj.pk = services.run_create(by=request.user, reason=form.cleaned_data.get("change_reason") or "",
                                             **fields).pk
            except ValidationError as e:
                raise PermissionDenied(e) from e
            return
        changes = {name: getattr(obj, name) for name in form.changed_data
                   if name != "change_reason" and name in {f.name for f in Run._meta.concrete_fields}}
        try:
            services.run_update(run=obj, by=request.user, changes=changes,
                                reason=form.cleaned_data.get("change_reason") or "")
        except ValidationError as e:  # the form's clean() already asked for the reason
            raise PermissionDenied(e) from e

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        what = []
        for formset in formsets:
            name = formset.model._meta.verbose_name_plural
            counts = [(len(formset.new_objects), "added"), (len(formset.changed_objects), "changed"),
                      (len(formset.deleted_objects), "deleted")]
            what += [f"{n} {name} {verb}" for n, verb in counts if n]
        try:
            services.run_related_changed(run=form.instance, by=request.user, what=what,
                                         reason=form.cleaned_data.get("change_reason") or "")
        except ValidationError as e:
            raise PermissionDenied("; ".join(e.messages)) from e

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
        for run in queryset:
            try:
                rerun = services.rerun_create(run=run, by=request.user)
            except ValidationError as e:
                self.message_user(request, "; ".join(e.messages), messages.ERROR)
            else:
                self.message_user(request, f"Created re-run {rerun.key} of {run.key}.", messages.SUCCESS)

    def get_urls(self):
        return [path("queue/", self.admin_site.admin_view(self.queue_view), name="runs_run_queue"),
                *super().get_urls()]

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


# --- verdicts -----------------------------------------------------------------------------------------------------

class VerdictAddForm(forms.ModelForm):
    """The form a tester or reviewer fills in. It writes through `verdict_record` when it validates, so every
    rule (roles, blind double review, due time) is the service's, shown as form errors."""

    role = forms.ChoiceField(choices=VerdictRole.choices)
    outcome = forms.ChoiceField(choices=[("", "---------"), *Outcome.choices], required=False,
                                help_text="Or tick every row the run matched below: the lowest applies.")
    matched = forms.MultipleChoiceField(choices=Outcome.choices, required=False,
                                        widget=forms.CheckboxSelectMultiple,
                                        help_text="Every outcome row the run matched; the lowest applies.")
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Only after publication: why (goes into the round's changelog).")
    request = None
    recorded: Verdict | None = None

    class Meta:
        model = Verdict
        fields = ["run", "role", "outcome", "matched", "note"]
        widgets = {"note": forms.Textarea(attrs={"rows": 4})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        allowed = user_verdict_roles(self.request.user) if self.request else set()
        self.fields["role"].choices = [(r, label) for r, label in VerdictRole.choices if r in allowed]

    def _post_clean(self):
        # The model's own validation would run unique checks that could tell a second reviewer whether a
        # tester's verdict exists in a way other than the service's plain message; the service checks all.
        pass

    def clean(self):
        data = super().clean()
        run = data.get("run")
        if run is None or self.errors:
            return data
        try:
            self.recorded = services.verdict_record(
                run=run, role=data.get("role"), reviewer=self.request.user, outcome=data.get("outcome") or None,
                matched=data.get("matched") or [], note=data.get("note") or "", reason=data.get("reason") or "")
        except ValidationError as e:
            if hasattr(e, "error_dict"):
                for field, errs in e.error_dict.items():
                    self.add_error(field if field in self.fields else None, errs)
            else:
                self.add_error(None, e)
        return data


class VerdictChangeForm(forms.ModelForm):
    """An editor's correction, through `verdict_change` (reason required after publication)."""

    outcome = forms.ChoiceField(choices=[("", "---------"), *Outcome.choices], required=False)
    matched = forms.MultipleChoiceField(choices=Outcome.choices, required=False,
                                        widget=forms.CheckboxSelectMultiple)
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Required once the round is published (goes into its public changelog).")
    request = None

    class Meta:
        model = Verdict
        fields = ["outcome", "matched", "note"]

    def _post_clean(self):
        pass

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            services.verdict_change(verdict=self.instance, by=self.request.user, outcome=data.get("outcome") or None,
                                    matched=data.get("matched") or [], note=data.get("note") or "",
                                    reason=data.get("reason") or "")
        except ValidationError as e:
            if hasattr(e, "error_dict"):
                for field, errs in e.error_dict.items():
                    self.add_error(field if field in self.fields else None, errs)
            else:
                self.add_error(None, e)
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
        return _with_request(super().get_form(request, obj, **kwargs), request)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["run", "role", "outcome", "matched", "note", "reason"]
        if self.has_change_permission(request, obj):
            return ["run_key", "role", "reviewer", "outcome", "matched", "note", "reason"]
        return ["run_key", "role", "reviewer", "outcome", "matched", "note", "created_at"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        if self.has_change_permission(request, obj):
            return ["run_key", "role", "reviewer"]
        return ["run_key", "role", "reviewer", "outcome", "matched", "note", "created_at"]

    @admin.display(description="run")
    def run_key(self, verdict: Verdict) -> str:
        return format_html('<a href="{}">{}</a>', reverse("admin:runs_run_change", args=[verdict.run_id]),
                           verdict.run.key)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        initial.setdefault("role", request.GET.get("role"))
        return initial

    def has_add_permission(self, request):
        return bool(user_verdict_roles(request.user)) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return user_is_editor(request.user) and super().has_delete_permission(request, obj)

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
        run_id = request.GET.get("run") or request.POST.get("run")
        run = Run.objects.filter(pk=run_id).select_related("task", "round", "entry__agent").first() \
            if str(run_id or "").isdigit() else None
        if run is not None:
            extra["review_run"] = run
            extra["task_version"] = run.task.versions.filter(version=run.task_version).first()
            extra["evidence"] = list(run.evidence.all())
            extra["not_due"] = run.due_at is not None and run.due_at > timezone.now()
        return super().add_view(request, form_url, extra)

    def response_add(self, request, obj, post_url_continue=None):
        if "_addanother" not in request.POST and "_continue" not in request.POST:
            self.message_user(request, f"Recorded the {obj.get_role_display()}'s verdict on {obj.run.key}.",
                              messages.SUCCESS)
            return self._redirect_to_queue(request)
        return super().response_add(request, obj, post_url_continue)

    def _redirect_to_queue(self, request):
        from django.http import HttpResponseRedirect

        return HttpResponseRedirect(reverse("admin:runs_run_queue"))


# --- evidence, disputes ---------------------------------------------------------------------------------------------

@admin.register(Evidence)
class EvidenceAdmin(admin.ModelAdmin):
    list_display = ["run", "kind", "caption", "url"]
    list_filter = ["kind"]
    search_fields = ["run__key", "caption"]
    autocomplete_fields = ["run"]


@admin.register(Dispute)
class DisputeAdmin(admin.ModelAdmin):
    list_display = ["run", "agent_name", "reason", "status", "filed_by", "filed_at", "decided_at", "rerun"]
    list_filter = ["status", "reason", "run__round"]
    search_fields = ["run__key", "note"]
    list_select_related = ["run__entry__agent", "filed_by"]
    fields = ["run", "reason", "note", "status", "filed_by", "filed_at", "decided_by", "decided_at",
              "decision_note"]
    readonly_fields = ["run", "reason", "note", "status", "filed_by", "filed_at", "decided_by", "decided_at"]
    actions = ["accept", "reject", "create_reruns"]

    def has_add_permission(self, request):
        return False  # vendors file disputes on the site, during the preview

    @admin.display(description="agent")
    def agent_name(self, dispute: Dispute) -> str:
        return dispute.run.entry.agent.name

    @admin.display(description="re-run")
    def rerun(self, dispute: Dispute) -> str:
        rerun = Run.objects.filter(rerun_of=dispute.run_id).first()
        return rerun.key if rerun else ""

    def _decide(self, request, queryset, accept: bool) -> None:
        done = 0
        for dispute in queryset:
            try:
                services.dispute_decide(dispute=dispute, accept=accept, by=request.user,
                                        note=dispute.decision_note)
                done += 1
            except ValidationError as e:
                self.message_user(request, f"{dispute}: {'; '.join(e.messages)}", messages.WARNING)
        if done:
            self.message_user(request, f"{'Accepted' if accept else 'Rejected'} {done} dispute(s).", messages.SUCCESS)

    @admin.action(description="Accept the selected disputes (allows one re-run each)", permissions=["change"])
    def accept(self, request, queryset):
        self._decide(request, queryset, True)

    @admin.action(description="Reject the selected disputes", permissions=["change"])
    def reject(self, request, queryset):
        self._decide(request, queryset, False)

    @admin.action(description="Create the re-run of each accepted dispute's run", permissions=["change"])
    def create_reruns(self, request, queryset):
        for dispute in queryset.select_related("run"):
            if dispute.status != DisputeStatus.ACCEPTED:
                self.message_user(request, f"{dispute}: not accepted; no re-run.", messages.WARNING)
                continue
            try:
                rerun = services.rerun_create(run=dispute.run, by=request.user)
            except ValidationError as e:
                self.message_user(request, "; ".join(e.messages), messages.ERROR)
            else:
                self.message_user(request, f"Created re-run {rerun.key} of {dispute.run.key}.", messages.SUCCESS)


# --- the admin index: the queue's counts ------------------------------------------------------------------------------
# The default AdminSite is kept (urls.py and the app configs are not ours to change); its index view gets the
# signed-in person's queue counts as extra context, read by templates/admin/index.html.
_site_index = admin.site.index


def _index_with_queue(request, extra_context=None):
    extra = dict(extra_context or {})
    if user_verdict_roles(request.user):
        extra["review_counts"] = queue_counts(request.user)
        extra["review_queue_url"] = reverse("admin:runs_run_queue")
    return _site_index(request, extra)


admin.site.index = _index_with_queue
