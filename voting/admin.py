from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import transaction

from runs.admin import DeletesThroughService

from .forms import AccountChangeForm, AccountCreationForm, AdminSignInForm
from .models import Matchup, Vote, VoterFlag
from .screens import voter_screens_retire
from .services.addresses import account_address_save
from .services.editing import vote_change
from .services.flagging import voter_flag_clear
from .standing import standings_retire
from .views.accounts import sign_in_limited

# The admin's own password checks count against the site's sign-in limit (one limit per address for every way
# to sign in). The default AdminSite is kept, as for its index (runs/admin/queue.py); its URLs are built from
# these attributes when the URLconf is loaded, after every admin module is imported.
admin.site.login = sign_in_limited(admin.site.login)  # type: ignore[method-assign]
admin.site.password_change = sign_in_limited(admin.site.password_change)  # type: ignore[method-assign]
admin.site.login_form = AdminSignInForm

User = get_user_model()
admin.site.unregister(User)


@admin.register(User)
class AccountAdmin(UserAdmin):
    """Accounts as the site knows them: the name is the email address in its canonical form (`voting.mailbox`),
    one account per mailbox, as at sign-up; the address field follows the name. An account staff make or whose
    address they change is confirmed (they vouch for it); other changes leave the confirmation as it was."""

    form = AccountChangeForm
    add_form = AccountCreationForm
    readonly_fields = ["email"]

    def save_model(self, request, obj, form, change):
        named = not change or "username" in form.changed_data
        if named and "@" in obj.username:
            obj.email = obj.username
        super().save_model(request, obj, form, change)
        account_address_save(user=obj, confirmed=named)


@admin.register(Vote)
class VoteAdmin(DeletesThroughService, admin.ModelAdmin):
    """Votes change only through voting.services.editing.vote_change, which refits the ratings."""

    list_display = ["task", "agent_a", "agent_b", "winner", "voter_label", "cast_at", "counts", "held"]
    list_filter = ["counts", "held", "winner", "task__benchmark"]
    list_select_related = ["task", "agent_a", "agent_b"]
    raw_id_fields = ["voter", "run_a", "run_b", "matchup"]

    def save_model(self, request, obj, form, change):
        vote_change(vote=obj, by=request.user, changes={n: getattr(obj, n) for n in form.changed_data})

    def delete_through(self, request, obj):
        vote_change(vote=obj, by=request.user, delete=True)


@admin.register(Matchup)
class MatchupAdmin(admin.ModelAdmin):
    list_display = ["id", "task", "voter", "created_at", "expires_at", "used_at"]
    list_filter = ["task__benchmark"]
    list_select_related = ["task", "voter"]
    raw_id_fields = ["voter", "run_a", "run_b", "task"]
    readonly_fields = ["key", "alias_a", "alias_b"]

    # A matchup changed or deleted here may be one a voter's kept vote screen shows (voting/views/screen_cache.py).
    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        voter_screens_retire([obj.voter_id, form.initial.get("voter")])

    def delete_model(self, request, obj):
        voter_screens_retire([obj.voter_id])
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        # One transaction (the admin's bulk action has none of its own): the retirement runs once the rows are gone.
        with transaction.atomic():
            voter_screens_retire(queryset.values_list("voter_id", flat=True))
            super().delete_queryset(request, queryset)


FLAG_FIELDS = ["voter", "benchmark", "decided_votes", "agreed", "p_value", "flagged_at", "cleared_at", "cleared_by"]


@admin.register(VoterFlag)
class VoterFlagAdmin(admin.ModelAdmin):
    """Flagged voters: their votes do not count until an editor clears them (action "Clear")."""

    list_display = FLAG_FIELDS
    list_filter = [("cleared_at", admin.EmptyFieldListFilter), "benchmark"]
    list_select_related = ["voter", "benchmark", "cleared_by"]
    readonly_fields = FLAG_FIELDS  # a flag is the check's finding: it is cleared, never edited
    actions = ["clear"]

    def has_add_permission(self, request) -> bool:
        return False

    def delete_model(self, request, obj) -> None:
        with transaction.atomic():
            standings_retire([obj.voter_id])  # a deleted active flag no longer holds the voter's votes
            super().delete_model(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        with transaction.atomic():
            standings_retire(queryset.values_list("voter_id", flat=True))
            super().delete_queryset(request, queryset)

    @admin.action(description="Clear: the selected voters' votes count again")
    def clear(self, request, queryset) -> None:
        flags = list(queryset.filter(cleared_at__isnull=True))
        votes = sum(voter_flag_clear(flag=flag, by=request.user) for flag in flags)
        self.message_user(request, f"Cleared {len(flags)} voter(s); {votes} vote(s) count again.", messages.SUCCESS)
