"""The reviewers' queue outside the run list: its filter, and its counts on the admin index."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from ..selectors import queue_counts, review_queue, user_verdict_roles


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
