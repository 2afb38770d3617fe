"""What the catalogue admins share: a form that asks for the reason when a published round is affected, and
creating or changing through runs.services with a refusal shown as PermissionDenied."""

from __future__ import annotations

from django import forms

from leaderboard.services.changes import PART_OF_PUBLISHED
from runs.admin import ask_reason, change_reason, reason_field, refused_as_denied

from .. import services


class ReasonForm(forms.ModelForm):
    """Asks for the reason in clean() when a published round is affected; the service writes."""

    change_reason = reason_field()

    def published_rounds(self):
        raise NotImplementedError

    def clean(self):
        data = super().clean()
        changed = [f for f in self.changed_data if f != "change_reason"]
        if self.instance.pk and changed:
            ask_reason(self, published=self.published_rounds().exists(), message=PART_OF_PUBLISHED)
        return data


def create(obj, request) -> None:
    """A new agent, benchmark or round, through `services.catalogue_create`."""
    with refused_as_denied():
        services.catalogue_create(obj=obj, by=request.user)


def changes(obj, form) -> dict:
    """The changed fields of the form's object and their new values (the reason is not one of them)."""
    return {n: getattr(obj, n) for n in form.changed_data if n != "change_reason"}


class SavesThroughServices:
    """save_model for a catalogue row: a new one through `services.catalogue_create`, a change through the
    admin's `update(obj, by=..., changes=..., reason=...)` service call, a delete through `delete(obj, by)`
    (`services.catalogue_delete`); a refusal is shown as PermissionDenied."""

    def update(self, obj, **kwargs) -> None:
        raise NotImplementedError

    def save_model(self, request, obj, form, change):
        if not change:
            create(obj, request)
            return
        with refused_as_denied():
            self.update(obj, by=request.user, changes=changes(obj, form), reason=change_reason(form))

    def delete(self, obj, by) -> None:
        services.catalogue_delete(obj=obj, by=by)

    def delete_model(self, request, obj):
        with refused_as_denied():
            self.delete(obj, request.user)

    def delete_queryset(self, request, queryset):
        with refused_as_denied():
            for obj in queryset:
                self.delete(obj, request.user)
