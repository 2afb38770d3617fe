"""Disputes in the admin: editors accept or reject them and create the re-run an accepted one allows."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError

from .. import services
from ..models import Dispute, DisputeStatus, Run
from .reruns import reruns_create


@admin.register(Dispute)
class DisputeAdmin(admin.ModelAdmin):
    list_display = ["run", "agent_name", "reason", "status", "filed_by", "filed_at", "decided_at", "rerun"]
    list_filter = ["status", "reason", "run__round"]
    search_fields = ["run__key", "note"]
    list_select_related = ["run__entry__agent", "filed_by"]
    fields = ["run", "reason", "note", "status", "filed_by", "filed_at", "decided_by", "decided_at", "decision_note"]
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
                services.dispute_decide(dispute=dispute, accept=accept, by=request.user, note=dispute.decision_note)
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
        """In a weekly round, asks first when each re-run started (`reruns_create`)."""
        disputes = list(queryset.select_related("run__round__benchmark", "run__entry__agent", "run__task"))
        skipped = [f"{d}: not accepted; no re-run." for d in disputes if d.status != DisputeStatus.ACCEPTED]
        runs = {d.run.pk: d.run for d in disputes if d.status == DisputeStatus.ACCEPTED}
        return reruns_create(self, request, queryset, list(runs.values()), skipped)
