from django.contrib import admin

from .models import BoardSnapshot


@admin.register(BoardSnapshot)
class BoardSnapshotAdmin(admin.ModelAdmin):
    list_display = ["__str__", "stale", "computed_at", "version", "digest"]
    list_filter = ["stale", "kind", "benchmark"]
    readonly_fields = ["data", "digest", "computed_at", "version"]
