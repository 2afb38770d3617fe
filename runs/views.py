"""The vendor preview (seed 000 §6): during a round's preview each vendor's users see their own agents'
results, and only theirs, and may dispute a run. Everything else answers 404, so the pages do not even
confirm that a round or run exists to anyone else. Also the runs' uploaded evidence files (`evidence_file`),
served inert and by the same rule."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import F
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from leaderboard.models import Round, RoundStatus
from leaderboard.roles import user_organization
from pages.details import preview_figures

from .forms import DisputeForm
from .models import Evidence, Run
from .selectors import preview_runs
from .services import dispute_file, preview_ends_at
from .stored_files import stored_file_response


def _vendor_org_or_404(request):
    org = user_organization(request.user)
    if org is None:
        raise Http404
    return org


def _preview_round_or_404(bench: str, round_key: str) -> Round:
    if "\x00" in bench + round_key:  # PostgreSQL refuses NUL in text: a 404, not a DataError
        raise Http404
    return get_object_or_404(
        Round.objects.select_related("benchmark"), benchmark__slug=bench, key=round_key, status=RoundStatus.PREVIEW
    )


@login_required
def preview_index(request):
    org = _vendor_org_or_404(request)
    rounds = (
        Round.objects.filter(status=RoundStatus.PREVIEW, entries__agent__organization=org)
        .select_related("benchmark")
        .distinct()
        .order_by("benchmark__name", "key")
    )
    return render(request, "runs/preview_index.html", {"org": org, "rounds": rounds})


@login_required
def preview_round(request, bench: str, round_key: str):
    org = _vendor_org_or_404(request)
    rnd = _preview_round_or_404(bench, round_key)
    rows = preview_runs(rnd, org)
    if not rows:
        raise Http404
    context = {"org": org, "round": rnd, "rows": rows, "ends_at": preview_ends_at(rnd)}
    return render(request, "runs/preview_round.html", {**context, "figures": preview_figures(rnd, rows)})


@login_required
def dispute_create(request, bench: str, round_key: str, run_key: str):
    org = _vendor_org_or_404(request)
    rnd = _preview_round_or_404(bench, round_key)
    if "\x00" in run_key:
        raise Http404
    run = get_object_or_404(
        Run.objects.select_related("entry__agent", "task", "round"),
        round=rnd,
        key=run_key,
        entry__agent__organization=org,
    )
    form = DisputeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            dispute_file(run=run, user=request.user, **form.cleaned_data)
        except PermissionDenied as e:
            raise Http404 from e
        except ValidationError as e:
            for field, errs in getattr(e, "error_dict", {None: e.error_list}).items():
                form.add_error(field if field in form.fields else None, errs)
        else:
            messages.success(request, f"Your dispute on run {run.key} was filed; an editor will decide it.")
            return redirect("preview_round", bench=bench, round_key=round_key)
    return render(request, "runs/dispute_form.html", {"round": rnd, "run": run, "form": form})


# What a browser may show inline from an evidence file; anything else is a download.
INLINE_EVIDENCE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "text/plain")
INLINE_EVIDENCE_PREFIXES = ("application/pdf", "audio/", "video/")
# Every evidence answer: a sandbox (no script, no form, no pop-up, no plugin).
EVIDENCE_CSP = "sandbox"
# A recording or audio opened by its address: the browser's own player is a page whose <video> asks for the file
# again; in an opaque origin that request is cross-origin and refused, and the player never starts. Its sandbox
# keeps the site's origin (still no script, no form), and the page may load nothing but media from the site.
MEDIA_EVIDENCE_CSP = "sandbox allow-same-origin; default-src 'none'; media-src 'self'"
MEDIA_PREFIXES = ("audio/", "video/")


@require_safe
def evidence_file(request, name: str):
    """An uploaded evidence file (`/media/evidence/...`), served by the site so that it is served inert and only
    where the run may be seen, streamed from the "evidence" storage with range requests (a long recording can
    be sought: `runs.stored_files`). Evidence is whatever a tester uploaded: an HTML or SVG "screenshot" would
    otherwise run its scripts as the site with the visitor's session, so every answer carries
    `Content-Security-Policy: sandbox` (an opaque origin, no script, no form) and nosniff, and anything but a
    picture, plain text, a PDF, audio or video is a download. Audio and video keep the site's origin in their
    sandbox (`MEDIA_EVIDENCE_CSP`, still no script) so that the file opened by its address plays; the run
    page's own player (`<video>`) reads it from the site too, its seeks as range requests. A run of a round
    not yet published (its evidence included) is seen only by staff, and during the round's preview by the
    vendor whose agent made it (seed 000 §6, as the vendor preview pages); to anyone else the file does not
    exist (404)."""
    path = f"evidence/{name}"
    if "\x00" in path or ".." in path.split("/"):
        raise Http404
    # One stored file may be the evidence of several runs (the demo's shared clips): it is served when any of
    # them may be seen, published ones first.
    rows = (
        Evidence.objects.filter(file=path)
        .select_related("run__round", "run__entry__agent")
        .order_by(F("run__round__published_at").desc(nulls_last=True), "id")
    )
    evidence = next((e for e in rows[:200] if _may_see_run(request.user, e.run)), None)
    if evidence is None:
        raise Http404
    try:
        response = stored_file_response(request, evidence.file.storage, evidence.file.name)
    except OSError:  # gone from the storage
        raise Http404 from None
    content_type = response.headers.get("Content-Type", "application/octet-stream").split(";")[0]
    if not (content_type in INLINE_EVIDENCE_TYPES or content_type.startswith(INLINE_EVIDENCE_PREFIXES)):
        response.headers["Content-Type"] = "application/octet-stream"
        response.headers["Content-Disposition"] = content_disposition_header(True, name.rsplit("/", 1)[-1])
    served_type = response.headers["Content-Type"].split(";")[0]
    response["Content-Security-Policy"] = MEDIA_EVIDENCE_CSP if served_type.startswith(MEDIA_PREFIXES) else EVIDENCE_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private, max-age=300"
    return response


def _may_see_run(user, run: Run) -> bool:
    if run.round.is_published:
        return True
    if getattr(user, "is_staff", False):
        return True
    org = user_organization(user)
    return run.round.status == RoundStatus.PREVIEW and org is not None and run.entry.agent.organization_id == org.id
