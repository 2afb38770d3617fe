"""The way into an organization, for the people who submit its results (and see its runs before publication):

- a person with an account asks to join from the site (`join_request_create`), naming the organization as they
  know it; the request is matched to the existing organization that name looks like (`organization_like`), and
  is never told which exists (no one learns an organization's name by asking);
- an editor approves it in the admin (`join_request_approve`): the account becomes the organization's member, a
  new organization is made if none matched (`organization_named`), and the person is mailed; or declines it
  with a reason (`join_request_decline`);
- or an editor invites an address (`invitation_create`, mailed), and the account holding that address, once the
  address is confirmed, accepts (`invitation_accept`).

A member sees the organization's unpublished runs and submits for it, so two things are required at every step:
the account's address is confirmed (sign-up's mailed link: the person reads that mailbox), and an editor said
yes (by approving, or by inviting that address). An account belongs to one organization at a time.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify

from leaderboard.models import JoinKind, JoinRequest, JoinStatus, Membership, Organization
from leaderboard.roles import user_is_editor, user_organization
from voting.mailbox import address_canonical
from voting.services.addresses import address_confirmed

from .names import name_key


def organization_like(name: str) -> Organization | None:
    """The organization `name` names: the one whose slug is `name` (or `name` slugified), else the one whose
    name or slug looks like it (`names.name_key`: case, spacing and look-alike letters folded)."""
    name = name.strip()
    if not name:
        return None
    exact = Organization.objects.filter(Q(slug=name) | Q(slug=slugify(name)[:100])).first()
    if exact is not None:
        return exact
    key = name_key(name)
    return next((o for o in Organization.objects.all() if key in (name_key(o.name), name_key(o.slug))), None)


def organization_named(name: str) -> Organization:
    """The organization `name` names (`organization_like`), made when there is none: its name as given, its
    slug from it. The join requests an editor approves and `import_submission` both name organizations so."""
    found = organization_like(name)
    if found is not None:
        return found
    name = " ".join(name.split())[:200]
    slug = slugify(name)[:100]
    if not slug:
        raise ValidationError(f"{name!r} cannot name an organization: it needs a letter or a digit")
    return Organization.objects.create(slug=slug, name=name)


def _address(text: str) -> str:
    """An address as accounts are stored under it (`voting.mailbox.address_canonical`): an invitation names the
    exact address, never a look-alike of it (the look-alike could be someone else's mailbox)."""
    try:
        return address_canonical(text)
    except ValidationError:
        return text.strip().lower()


def pending_request(user) -> JoinRequest | None:
    return JoinRequest.objects.filter(user=user, kind=JoinKind.REQUEST, status=JoinStatus.PENDING).first()


def answered_requests(user) -> list[JoinRequest]:
    """The account's requests an editor declined, newest first, each with the editor's reason."""
    return list(JoinRequest.objects.filter(user=user, kind=JoinKind.REQUEST, status=JoinStatus.DECLINED))


def invitations_for(user) -> list[JoinRequest]:
    """The pending invitations of the account's address."""
    return list(
        JoinRequest.objects.filter(
            kind=JoinKind.INVITATION, status=JoinStatus.PENDING, email=_address(user.email or user.username)
        ).select_related("organization")
    )


def join_request_create(*, user, organization_name: str, message: str = "") -> JoinRequest:
    """`user` asks to join the organization they name; ValidationError when they are a member already or have a
    request waiting."""
    name = " ".join(organization_name.split())
    if not name:
        raise ValidationError("Name the organization you belong to.")
    if (org := user_organization(user)) is not None:
        raise ValidationError(f"You are a member of {org.name} already.")
    try:
        with transaction.atomic():
            return JoinRequest.objects.create(
                user=user,
                email=_address(user.email or user.username),
                organization=organization_like(name),
                organization_name=name[:200],
                message=message.strip()[:2000],
            )
    except IntegrityError as exc:  # the constraint: one waiting request per account
        raise ValidationError("You asked to join already: an editor will answer that request.") from exc


def join_request_withdraw(*, join_request: JoinRequest, user) -> None:
    if join_request.user_id != user.pk or join_request.kind != JoinKind.REQUEST:
        raise PermissionDenied("Only the person who asked withdraws a request.")
    JoinRequest.objects.filter(pk=join_request.pk, status=JoinStatus.PENDING).update(
        status=JoinStatus.WITHDRAWN, decided_at=timezone.now()
    )


def _pending_for_update(join_request: JoinRequest) -> JoinRequest:
    """The request, locked, still waiting: two editors approving at once make one membership."""
    locked = JoinRequest.objects.select_for_update().get(pk=join_request.pk)
    if locked.status != JoinStatus.PENDING:
        raise ValidationError(f"This request was {locked.status} already.")
    return locked


def _join(user, organization: Organization) -> Membership:
    if not address_confirmed(user):
        raise ValidationError(f"{user.email or user.username} has not confirmed the address yet (sign-up's link).")
    current = user_organization(user)
    if current is not None:
        raise ValidationError(f"{user.email or user.username} is a member of {current.name} already.")
    return Membership.objects.create(user=user, organization=organization)


def join_request_approve(*, join_request: JoinRequest, by, link_base: str) -> Membership:
    """An editor approves: the person joins the organization (made if new) and is mailed."""
    if not user_is_editor(by):
        raise PermissionDenied("Only editors approve a request to join an organization.")
    if join_request.kind != JoinKind.REQUEST:
        raise ValidationError("An invitation is accepted by the person invited, not approved.")
    with transaction.atomic():
        locked = _pending_for_update(join_request)
        organization = locked.organization or organization_named(locked.organization_name)
        membership = _join(locked.user, organization)
        locked.organization = organization
        locked.status, locked.decided_by, locked.decided_at = JoinStatus.APPROVED, by, timezone.now()
        locked.save()
    _mail(
        locked.email,
        f"You are a member of {organization.name} on {settings.SITE_NAME}",
        f"An editor approved your request: you are a member of {organization.name}.\n\n"
        f"You can now submit its results to a benchmark's open submission track (each benchmark's "
        f'"Submit results"), and see its runs before their round is published:\n'
        f"{link_base.rstrip('/')}{reverse('join')}",
    )
    return membership


def join_request_decline(*, join_request: JoinRequest, by, note: str = "") -> None:
    if not user_is_editor(by):
        raise PermissionDenied("Only editors decline a request to join an organization.")
    with transaction.atomic():
        locked = _pending_for_update(join_request)
        locked.status, locked.decided_by, locked.decided_at = JoinStatus.DECLINED, by, timezone.now()
        locked.note = note.strip()[:2000]
        locked.save()


def invitation_create(*, email: str, organization: Organization, by, link_base: str) -> JoinRequest:
    """An editor invites `email` into `organization`; the address is mailed a link to the site's join page."""
    if not user_is_editor(by):
        raise PermissionDenied("Only editors invite people into an organization.")
    address = address_canonical(email)
    invitation = JoinRequest.objects.create(
        kind=JoinKind.INVITATION, email=address, organization=organization, invited_by=by
    )
    _mail(
        address,
        f"Join {organization.name} on {settings.SITE_NAME}",
        f"An editor of {settings.SITE_NAME} invited this address to join {organization.name}, to submit its "
        f"results to the benchmarks. Sign up (or sign in) with this address, confirm it, then accept here:\n"
        f"{link_base.rstrip('/')}{reverse('join')}\n\nIf you did not expect this, ignore this mail.",
    )
    return invitation


def invitation_accept(*, invitation: JoinRequest, user) -> Membership:
    """The account holding the invited address joins; refused for any other account, or before the address
    is confirmed."""
    if invitation.kind != JoinKind.INVITATION or _address(user.email or user.username) != invitation.email:
        raise PermissionDenied("This invitation is for another address.")
    with transaction.atomic():
        locked = _pending_for_update(invitation)
        membership = _join(user, locked.organization)
        locked.user, locked.status, locked.decided_at = user, JoinStatus.APPROVED, timezone.now()
        locked.save()
    return membership


def _mail(address: str, subject: str, body: str) -> None:
    send_mail(subject=subject, message=body, from_email=None, recipient_list=[address])
