"""What the run, verdict and catalogue admins share: deletions through a service, a form class that
knows its request, and how inline edits are described for the changelog."""

from __future__ import annotations

from contextlib import contextmanager

from django import forms
from django.contrib import messages
from django.contrib.admin.actions import delete_selected as confirm_then_delete
from django.contrib.admin.options import ActionLocation
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse

from leaderboard.services.changes import ROUND_PUBLISHED, require_reason


@contextmanager
def refused_as_denied():
    """A service's refusal (ValidationError) inside a save becomes PermissionDenied with the refusal's words:
    the admin's save has no form left to put the error on."""
    try:
        yield
    except ValidationError as e:
        raise PermissionDenied("; ".join(e.messages)) from e


def change_reason(form) -> str:
    return form.cleaned_data.get("change_reason") or ""


def related_changed(service, request, form, formsets, **target) -> None:
    """Tells `service` what the inline formsets of a save did (for the changelog of a published round)."""
    with refused_as_denied():
        service(**target, by=request.user, what=formset_changes(formsets), reason=change_reason(form))


def with_request(form_class, request):
    return type(form_class.__name__, (form_class,), {"request": request})


class DeletesThroughService:
    """A ModelAdmin mixin: deletions go through `delete_through` (a service), one object at a time; a refused
    deletion is an error message on the object's page or the list, never a silent success."""

    def delete_through(self, request, obj) -> None:
        raise NotImplementedError

    def never_deleted(self, queryset):
        """The part of a selection the service never deletes (not offered for deletion); none by default."""
        return queryset.none()

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
                    return HttpResponseRedirect(
                        reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[object_id])
                    )
                self.message_user(request, f"Deleted {shown}.", messages.SUCCESS)
                return HttpResponseRedirect(reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist"))
        return super().delete_view(request, object_id, extra_context)

    # The confirmation page names what goes with the selection by kind and count ("Verdicts: 4, Evidence: 2"),
    # not each object: a verdict's name holds its outcome, which an editor who reviewed the run must not read.
    delete_confirmation_max_display = 0

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        if "delete_selected" in actions:
            del actions["delete_selected"]
            if self.has_delete_permission(request):
                # Under Django's own name, so its confirmation page posts back to this action.
                actions["delete_selected"] = (
                    type(self).delete_through_service,
                    "delete_selected",
                    f"Delete the selected {self.opts.verbose_name_plural}",
                )
        return actions

    def delete_through_service(self, request, queryset):
        """First Django's confirmation page (what goes with the selection, "Yes, I'm sure"); once confirmed,
        each object through the service, a refused one named with the reason."""
        kept = self.never_deleted(queryset)
        if kept.exists():
            # Not asked, then refused: what is never deleted is left out of the selection, and said so.
            self.message_user(
                request,
                f"{kept.count()} of the selected {self.opts.verbose_name_plural} belong to a published round and "
                "are never deleted; correct them instead, with a reason.",
                messages.WARNING,
            )
            queryset = queryset.exclude(pk__in=kept.values("pk"))
            if not queryset.exists():
                return None
        if not request.POST.get("post"):
            return confirm_then_delete(self, request, queryset)  # renders the page; deletes nothing without "post"
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


def formset_changes(formsets) -> list[str]:
    """What the inline formsets of a save did, for the changelog: "2 evidence added", "1 entries deleted"."""
    what = []
    for formset in formsets:
        name = formset.model._meta.verbose_name_plural
        counts = [
            (len(formset.new_objects), "added"),
            (len(formset.changed_objects), "changed"),
            (len(formset.deleted_objects), "deleted"),
        ]
        what += [f"{n} {name} {verb}" for n, verb in counts if n]
    return what


REASON_HELP = "Required once a round it is part of is published: the reason goes into that round's changelog."


def reason_field(help_text: str = REASON_HELP) -> forms.CharField:
    """The "change reason" every correction form asks for once a round it touches is published."""
    return forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text=help_text)


def ask_reason(form, *, published: bool, message: str = ROUND_PUBLISHED) -> None:
    """The form's side of the one rule (`leaderboard.services.changes.require_reason`): asked in `clean()`,
    before anything is written, with the same test the service applies when it writes."""
    try:
        require_reason(form.cleaned_data.get("change_reason"), published=published, message=message)
    except ValidationError as e:
        form.add_error("change_reason", e.message_dict["reason"])
