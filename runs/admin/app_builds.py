"""App builds in the admin: an editor uploads a run's static build as a zip (checked by
`runs.services.app_builds`: size, paths, names, symlinks, an HTML entry point, and a zip that cannot be read:
damaged, encrypted, an unknown compression); a refused zip is shown on the form with why, and writes nothing."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from runs.selectors import user_is_editor

from ..models import AppBuild, Run
from ..services.app_builds import AppBuildError, app_build_save, checked_build, read_zip


class AppBuildForm(forms.ModelForm):
    upload = forms.FileField(
        label="Build (zip)", help_text="index.html at the top (or in one top folder) plus its assets."
    )

    class Meta:
        model = AppBuild
        fields = ["run"]

    def clean(self):
        cleaned = super().clean()
        upload = cleaned.get("upload")
        if upload is not None:
            try:
                self.files_read = checked_build(read_zip(upload))
            except AppBuildError as exc:
                self.add_error("upload", str(exc))
        return cleaned


@admin.register(AppBuild)
class AppBuildAdmin(admin.ModelAdmin):
    form = AppBuildForm
    list_display = ["run", "files", "size", "created_at"]
    raw_id_fields = ["run"]
    readonly_fields = ["files", "size", "sha256", "created_at"]

    def has_add_permission(self, request):
        return user_is_editor(request.user)

    def has_change_permission(self, request, obj=None):
        return user_is_editor(request.user)

    def has_delete_permission(self, request, obj=None):
        return user_is_editor(request.user)

    def has_view_permission(self, request, obj=None):
        return user_is_editor(request.user)

    def save_model(self, request, obj, form, change):
        saved = app_build_save(run=Run.objects.get(pk=obj.run_id), files=form.files_read)
        obj.pk, obj.directory = saved.pk, saved.directory
