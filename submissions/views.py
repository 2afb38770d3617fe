"""The submission pages: the upload form (/b/<bench>/submit/, a signed-in member of an organization, for its
own agents), the page of one submission (/b/<bench>/submissions/<id>/) and the actions on it (an editor
verifies, flags or unflags; an editor or the submitting organization withdraws). Each action is a POST with
CSRF, refused with 403 to anyone else."""

from __future__ import annotations

import math
from collections.abc import Callable
from io import BytesIO
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from leaderboard.models import Benchmark
from leaderboard.roles import user_is_editor
from pages.selectors import benchmark_get
from pages.submissions import submission_for, submission_page

from . import actions, services
from .files import zip_files
from .forms import NEW, FlagForm, NoteForm, SubmitForm, VerifyForm
from .models import Submission, SubmissionFormat, SubmissionTrack, Via
from .reading import SubmissionRefused


def refusal(exc: Exception) -> str:
    """What a refused action says to the person who asked."""
    return "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)


def too_many(whose: str, organization: str, wait: float) -> str:
    """What a submission over its rate limit is told (`services.rate_wait`)."""
    who = f"from {organization}" if whose == "org" else "from your account"
    return f"Too many submissions {who}: try again in {max(1, math.ceil(wait / 60))} minutes."


def _organization(user):
    membership = getattr(user, "membership", None) if hasattr(user, "membership") else None
    return membership.organization if membership is not None else None


def open_track(bench: Benchmark) -> SubmissionTrack | None:
    """The benchmark's open track (the newest, if several are open)."""
    return (
        SubmissionTrack.objects.filter(round__benchmark=bench, is_open=True)
        .select_related("round")
        .order_by("-opened_at", "-id")
        .first()
    )


@login_required
def submit(request: HttpRequest, bench: str) -> HttpResponse:
    benchmark = benchmark_get(bench)
    org = _organization(request.user)
    if org is None:
        raise PermissionDenied("Only a member of an organization submits, for the organization's own agents.")
    track = open_track(benchmark)
    context = {"bench": benchmark, "org": org, "track": track, "problems": []}
    if track is None:
        return render(request, "submissions/submit.html", context, status=200)
    form = SubmitForm(
        request.POST or None, request.FILES or None, benchmark=benchmark, organization=org, formats=track.formats
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
        fmt = form.cleaned_data["format"]
        data = upload.read()
        try:
            files = zip_files(BytesIO(data)) if fmt == SubmissionFormat.TAU2 else {upload.name or "upload": data}
            sub = services.submit(
                benchmark=benchmark,
                organization=org,
                upload=services.Upload(format=fmt, files=files, archive=data),
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


ACTIONS: dict[str, tuple[type[forms.Form], Callable[[Submission, Any, dict], Submission]]] = {
    "verify": (
        VerifyForm,
        lambda sub, user, d: actions.submission_verify(submission=sub, by=user, note=d["note"], link=d["link"]),
    ),
    "flag": (
        FlagForm,
        lambda sub, user, d: actions.submission_flag(submission=sub, by=user, reason=d["reason"], link=d["link"]),
    ),
    "unflag": (NoteForm, lambda sub, user, d: actions.submission_unflag(submission=sub, by=user, note=d["note"])),
    "withdraw": (NoteForm, lambda sub, user, d: actions.submission_withdraw(submission=sub, by=user, note=d["note"])),
}


@require_POST
def act(request: HttpRequest, bench: str, pk: int, action: str) -> HttpResponse:
    if action not in ACTIONS:
        raise Http404
    if not request.user.is_authenticated:
        raise PermissionDenied
    sub = submission_for(benchmark_get(bench), pk, request.user)
    allowed = actions.may_withdraw(request.user, sub) if action == "withdraw" else user_is_editor(request.user)
    if not allowed:
        raise PermissionDenied
    form_class, do = ACTIONS[action]
    form = form_class(request.POST)
    if not form.is_valid():
        problems = [f"{field}: {' '.join(errs)}" for field, errs in form.errors.items()]
        messages.error(request, f"Not done ({action}): " + "; ".join(problems))
        return redirect(sub.get_absolute_url())
    try:
        do(sub, request.user, form.cleaned_data)
    except (ValidationError, PermissionDenied) as exc:
        messages.error(request, f"Not done ({action}): {refusal(exc)}")
        return redirect(sub.get_absolute_url())
    messages.success(request, f"Done: {action}.")
    return redirect(sub.get_absolute_url())
