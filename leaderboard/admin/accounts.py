"""People in the admin, for editors: the Accounts page (each account's address, whether it is confirmed, its
organization and roles; an editor sets the organization and nothing else), and the join requests (approve or
decline what people asked from the site's join page; "Add" invites an address into an organization). The
writes go through `submissions.joining`, which checks the editor and the confirmed address."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import ActionLocation
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse

from leaderboard.roles import user_organization
from runs.admin import refused_as_denied
from submissions import joining
from voting.mailbox import address_canonical
from voting.services.addresses import address_confirmed

from ..models import Account, JoinKind, JoinRequest, JoinStatus, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    fk_name = "user"
    extra = 1
    max_num = 1
    can_delete = True
    fields = ["organization"]
    verbose_name = "organization"
    verbose_name_plural = "organization (one at most: the account submits for it and sees its runs before publication)"


@admin.register(Account)
class AccountAdmin(admin.ModelAdmin):
    list_display = ["address", "organization", "confirmed", "roles", "date_joined", "last_login"]
    list_filter = [("membership__organization", admin.RelatedOnlyFieldListFilter), "groups", "is_staff"]
    search_fields = ["username", "email", "membership__organization__name"]
    list_select_related = ["membership__organization"]
    fields = ["username", "email", "confirmed", "roles", "date_joined", "last_login"]
    readonly_fields = fields
    inlines = [MembershipInline]
    ordering = ["-date_joined"]

    def has_add_permission(self, request):
        return False  # accounts are made by signing up (or by `createsuperuser`)

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("groups")

    @admin.display(description="account", ordering="username")
    def address(self, user: Account) -> str:
        return user.email or user.username

    @admin.display(description="organization")
    def organization(self, user: Account) -> str:
        org = user_organization(user)
        return org.name if org else "–"

    @admin.display(description="address confirmed", boolean=True)
    def confirmed(self, user: Account) -> bool:
        return address_confirmed(user)

    @admin.display(description="roles")
    def roles(self, user: Account) -> str:
        names = [g.name for g in user.groups.all()] + (["superuser"] if user.is_superuser else [])
        return ", ".join(names) or "–"


class InvitationForm(forms.ModelForm):
    email = forms.EmailField(max_length=254, help_text="The address invited: its account accepts once it is confirmed.")

    class Meta:
        model = JoinRequest
        fields = ["email", "organization"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["organization"].required = True

    def clean_email(self) -> str:
        return address_canonical(self.cleaned_data["email"])  # the form an account holds it in, or why not


class DeclineForm(forms.Form):
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), max_length=2000, required=False, help_text="Shown to the person."
    )


@admin.register(JoinRequest)
class JoinRequestAdmin(admin.ModelAdmin):
    list_display = ["email", "joins", "kind", "status", "confirmed", "message", "created_at", "decided_by"]
    list_filter = ["status", "kind"]
    search_fields = ["email", "organization_name", "organization__name"]
    list_select_related = ["organization", "user", "decided_by"]
    actions = ["approve", "decline"]
    readonly_fields = [
        "kind",
        "status",
        "user",
        "email",
        "organization_name",
        "message",
        "created_at",
        "invited_by",
        "decided_by",
        "decided_at",
        "note",
    ]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = InvitationForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["email", "organization"]
        return ["organization", *self.readonly_fields]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        # A waiting request's organization is the editor's to pick (an existing one, or none: a new one).
        return self.readonly_fields if obj.status == JoinStatus.PENDING else ["organization", *self.readonly_fields]

    def has_delete_permission(self, request, obj=None):
        return False  # answered, never deleted: the record of who let whom in stays

    def save_model(self, request, obj, form, change):
        with refused_as_denied():
            if change:
                JoinRequest.objects.filter(pk=obj.pk, status=JoinStatus.PENDING).update(
                    organization=form.cleaned_data.get("organization")
                )
                return
            made = joining.invitation_create(
                email=form.cleaned_data["email"],
                organization=form.cleaned_data["organization"],
                by=request.user,
                link_base=request.build_absolute_uri("/"),
            )
        obj.pk = made.pk
        obj.refresh_from_db()
        messages.info(request, f"{made.email} was mailed the invitation to join {made.organization.name}.")

    @admin.display(description="joins")
    def joins(self, join: JoinRequest) -> str:
        if join.organization is not None:
            return join.organization.name
        return f"new: {join.organization_name}"

    @admin.display(description="address confirmed", boolean=True)
    def confirmed(self, join: JoinRequest) -> bool | None:
        return address_confirmed(join.user) if join.user is not None else None

    @admin.action(description="Approve: the person joins (a new organization is made if none is set)")
    def approve(self, request, queryset):
        done = 0
        for join in queryset.filter(kind=JoinKind.REQUEST).select_related("user", "organization"):
            try:
                joining.join_request_approve(
                    join_request=join, by=request.user, link_base=request.build_absolute_uri("/")
                )
                done += 1
            except (ValidationError, PermissionDenied) as exc:
                self.message_user(request, f"{join.email}: not approved: {_reason(exc)}", messages.WARNING)
        if done:
            self.message_user(request, f"Approved: {done} request(s); each person was mailed.", messages.SUCCESS)

    @admin.action(description="Decline (with a reason shown to the person)")
    def decline(self, request, queryset):
        form = DeclineForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            for join in queryset:
                try:
                    joining.join_request_decline(join_request=join, by=request.user, note=form.cleaned_data["note"])
                except (ValidationError, PermissionDenied) as exc:
                    self.message_user(request, f"{join.email}: {_reason(exc)}", messages.WARNING)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Decline",
            "form": form,
            "queryset": queryset,
            "action": "decline",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/leaderboard/joinrequest/decline.html", context)

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location)
        if not request.user.has_perm("leaderboard.change_joinrequest"):
            actions.pop("approve", None)
            actions.pop("decline", None)
        return actions


def _reason(exc: Exception) -> str:
    return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
