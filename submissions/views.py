"""The submission pages: the upload form (/b/<bench>/submit/, a signed-in member of an organization, for its
own agents), the page of one submission (/b/<bench>/submissions/<id>/) and the actions on it (an editor
verifies, flags or unflags; an editor or the submitting organization withdraws), and the way in: the join page
(/join/), where an account asks to join its organization or accepts an editor's invitation. Each action is a
POST with CSRF. Every refusal is a page of the site saying why and what to do next (`pages.refusals`)."""

from __future__ import annotations

import math

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_http_methods, require_POST

from leaderboard.models import Benchmark, JoinKind, JoinRequest
from leaderboard.roles import user_is_editor, user_organization
from pages.refusals import Step, refusal_page, sign_in_step
from pages.selectors import benchmark_get
from pages.submissions import submission_for, submission_page
from voting.services.addresses import address_confirmed

from . import actions, formats, joining, services
from .files import sent_as
from .forms import ACTIONS, NEW, FlagForm, JoinForm, NoteForm, SubmitForm, VerifyForm
from .models import SubmissionTrack, Via
from .reading import SubmissionRefused


def refusal(exc: Exception) -> str:
    """What a refused action says to the person who asked."""
    return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)


def too_many(whose: str, organization: str, wait: float) -> str:
    """What a submission over its rate limit is told (`services.rate_wait`)."""
    who = f"from {organization}" if whose == "org" else "from your account"
    return f"Too many submissions {who}: try again in {max(1, math.ceil(wait / 60))} minutes."


def _submit_refused(request: HttpRequest, bench: Benchmark, track: SubmissionTrack | None) -> HttpResponse | None:
    """Why this visitor cannot submit here, as a page with the next steps; None when they can."""
    title = f"Submit results to {bench.name}"
    here = reverse("submission_submit", args=[bench.slug])
    rules = Step("What a submission needs", reverse("methodology", args=[bench.slug]) + "#submissions")
    if track is None:
        reason = f"{bench.name} takes no submissions now: it has no open submission track."
        return refusal_page(
            request,
            title=title,
            reason=reason,
            steps=[Step("See the board", reverse("board", args=[bench.slug])), rules],
        )
    if not request.user.is_authenticated:
        reason = (
            f"Results are submitted by someone signed in as a member of the organization whose agent ran them; "
            f"{bench.name}'s submission track is open."
        )
        steps = [
            sign_in_step(here, "if you have an account"),
            Step("Sign up", f"{reverse('signup')}?next={reverse('join')}", "if not: then open the link we mail you"),
            Step("Ask to join your organization", reverse("join"), "an editor approves, and you are mailed"),
            rules,
        ]
        return refusal_page(request, title=title, reason=reason, steps=steps, eyebrow="Sign in first")
    if user_organization(request.user) is not None:
        return None
    waiting = joining.pending_request(request.user)
    if waiting is not None:
        reason = (
            f"Your request to join {waiting.organization_name!r} (sent {waiting.created_at:%d %b %Y}) waits for an "
            f"editor. You are mailed when it is approved; then submit here."
        )
        steps = [Step("Your request", reverse("join")), rules]
        return refusal_page(request, title=title, reason=reason, steps=steps, eyebrow="Waiting for an editor")
    reason = (
        f"You are signed in as {request.user.email or request.user.username}, a member of no organization: results "
        f"are submitted by an organization's members, for its own agents."
    )
    steps = [Step("Ask to join your organization", reverse("join"), "an editor approves, and you are mailed"), rules]
    return refusal_page(request, title=title, reason=reason, steps=steps, eyebrow="Members only")


def submit(request: HttpRequest, bench: str) -> HttpResponse:
    benchmark = benchmark_get(bench)
    track = services.track_or_none(benchmark)
    if (refused := _submit_refused(request, benchmark, track)) is not None:
        return refused
    assert track is not None
    org = user_organization(request.user)
    context = {"bench": benchmark, "org": org, "track": track, "problems": []}
    form = SubmitForm(
        request.POST or None, request.FILES or None, benchmark=benchmark, organization=org, taken=track.formats
    )
    context["form"] = form
    context["max_mb"] = settings.API_UPLOAD_MAX_BYTES // (1 << 20)
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size > settings.API_UPLOAD_MAX_BYTES:
            context["problems"] = [f"The file is over {context['max_mb']} MB."]
            return render(request, "submissions/submit.html", context, status=413)
        wait, whose = services.rate_wait(organization=org, sender=f"user:{request.user.pk}")
        if wait:
            context["problems"] = [too_many(whose, org.name, wait)]
            response = render(request, "submissions/submit.html", context, status=429)
            response["Retry-After"] = str(math.ceil(wait))
            return response
        agent = form.cleaned_data["agent"]
        fmt = formats.get(form.cleaned_data["format"])
        data = upload.read()
        try:
            sub = services.submit(
                benchmark=benchmark,
                organization=org,
                upload=services.Upload(
                    fmt.key,
                    sent_as(fmt, upload.name or "upload", data),
                    archive=data,
                    claims=form.claims(),
                    counted=fmt.folder,  # a folder's zip: its JSON counted as it inflated (`files.zip_files`)
                ),
                via=Via.SITE,
                agent=slugify(form.cleaned_data["new_agent_name"])[:100] if agent == NEW else agent,
                agent_name=form.cleaned_data["new_agent_name"] if agent == NEW else None,
                round_key=track.round.key,
                by=request.user,
            )
        except SubmissionRefused as exc:
            context["problems"] = list(exc.problems)
            return render(request, "submissions/submit.html", context, status=422)
        messages.success(request, f"Submission {sub.pk} received and checked: {sub.tier}.")
        return redirect(sub.get_absolute_url())
    return render(request, "submissions/submit.html", context, status=400 if request.method == "POST" else 200)


def detail(request: HttpRequest, bench: str, pk: int) -> HttpResponse:
    context = submission_page(bench_slug=bench, pk=pk, viewer=request.user)
    if context["editor"]:
        context["verify_form"] = VerifyForm()
        context["flag_form"] = FlagForm()
    if context["can_withdraw"] or context["editor"]:
        context["note_form"] = NoteForm()
    return render(request, "submissions/submission.html", context)


@require_POST
def act(request: HttpRequest, bench: str, pk: int, action: str) -> HttpResponse:
    if action not in ACTIONS:
        raise Http404
    sub_url = reverse("submission", args=[bench, pk])
    if not request.user.is_authenticated:
        reason = "Only an editor, or for a withdrawal a member of the submitting organization, acts on a submission."
        return refusal_page(request, title="Not allowed", reason=reason, steps=[sign_in_step(sub_url)])
    sub = submission_for(benchmark_get(bench), pk, request.user)
    allowed = actions.may_withdraw(request.user, sub) if action == "withdraw" else user_is_editor(request.user)
    if not allowed:
        reason = (
            "Only an editor or a member of the submitting organization withdraws a submission."
            if action == "withdraw"
            else "Only editors verify, flag or unflag a submission."
        )
        return refusal_page(
            request, title="Not allowed", reason=reason, steps=[Step("Back to the submission", sub_url)]
        )
    chosen = ACTIONS[action]
    form = chosen.form(request.POST)
    if not form.is_valid():
        problems = [f"{field}: {' '.join(errs)}" for field, errs in form.errors.items()]
        messages.error(request, f"Not done ({action}): " + "; ".join(problems))
        return redirect(sub.get_absolute_url())
    try:
        chosen.do(sub, request.user, form.cleaned_data)
    except (ValidationError, PermissionDenied) as exc:
        messages.error(request, f"Not done ({action}): {refusal(exc)}")
        return redirect(sub.get_absolute_url())
    messages.success(request, f"Done: {action}.")
    return redirect(sub.get_absolute_url())


def _join_refused(request: HttpRequest) -> HttpResponse:
    reason = "An organization's members are people with an account here: sign in (or sign up) first."
    steps = [
        sign_in_step(reverse("join"), "if you have an account"),
        Step("Sign up", f"{reverse('signup')}?next={reverse('join')}", "if not: then open the link we mail you"),
    ]
    return refusal_page(request, title="Join your organization", reason=reason, steps=steps, eyebrow="Sign in first")


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest) -> HttpResponse:
    """Ask to join an organization (or see the request, or accept an invitation); a member sees where to
    submit."""
    if not request.user.is_authenticated:
        return _join_refused(request)
    form = JoinForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            joining.join_request_create(
                user=request.user,
                organization_name=form.cleaned_data["organization_name"],
                message=form.cleaned_data["message"],
            )
        except ValidationError as exc:
            messages.error(request, refusal(exc))
            return redirect("join")
        messages.success(
            request,
            f"Your request to join {form.cleaned_data['organization_name'].strip()!r} was sent: an editor answers it, "
            "and you are mailed when it is approved.",
        )
        return redirect("join")
    context = {
        "form": form,
        "org": user_organization(request.user),
        "waiting": joining.pending_request(request.user),
        "invitations": joining.invitations_for(request.user),
        "answered": joining.answered_requests(request.user),
        "confirmed": address_confirmed(request.user),
        "open_benchmarks": Benchmark.objects.filter(rounds__track__in=SubmissionTrack.objects.open())
        .distinct()
        .order_by("name"),
    }
    return render(request, "submissions/join.html", context, status=400 if request.method == "POST" else 200)


@require_POST
def join_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return _join_refused(request)
    waiting = get_object_or_404(JoinRequest, pk=pk, user=request.user, kind=JoinKind.REQUEST)
    joining.join_request_withdraw(join_request=waiting, user=request.user)
    messages.info(request, "Your request was withdrawn.")
    return redirect("join")


@require_POST
def join_accept(request: HttpRequest, pk: int) -> HttpResponse:
    """The account holding an invited address accepts the invitation."""
    if not request.user.is_authenticated:
        return _join_refused(request)
    invitation = JoinRequest.objects.filter(pk=pk, kind=JoinKind.INVITATION).select_related("organization").first()
    try:
        if invitation is None:
            raise PermissionDenied("This invitation is for another address.")
        joining.invitation_accept(invitation=invitation, user=request.user)
    except PermissionDenied as exc:
        return refusal_page(
            request, title="Join your organization", reason=str(exc), steps=[Step("Your join page", reverse("join"))]
        )
    except ValidationError as exc:
        messages.error(request, refusal(exc))
        return redirect("join")
    messages.success(request, f"You are a member of {invitation.organization.name}.")
    return redirect("join")
