from django.contrib import admin

from .models import Vote


@admin.register(Vote)
class VoteAdmin(admin.ModelAdmin):
    list_display = ["task", "agent_a", "agent_b", "winner", "voter_label", "cast_at", "counts"]
    list_filter = ["counts", "winner", "task__benchmark"]
    list_select_related = ["task", "agent_a", "agent_b"]
