"""The blind-vote screen, the vote itself, and the previews served through one-time aliases.

Nothing a view returns before the vote names a run, its agent, model or vendor: the page holds only the
matchup's random tokens, the previews are served (or drawn) through them, and no response header carries a
run's address (see `preview_shot` and `preview_live`).
"""

from __future__ import annotations

import math
import mimetypes
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.csp import CSP
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET, require_POST

from .models import Winner
from .selectors import (
    checker_record,
    matchup_by_key,
    matchup_for_alias,
    matchup_open,
    matchup_sides,
    preview_shots,
    scope_is_valid,
    url_is_opaque,
    vote_scopes,
    voter_status,
)
from .services import MatchupRefused, client_address, matchup_check, matchup_draw, rate_limit_hit, vote_record

# The vote page frames live previews (sandboxed); naming no host keeps the preview's address out of headers.
# The vote screen frames the two sandboxed previews (through this site's aliases, or a live app over https).
VOTE_CSP = {**settings.SECURE_CSP, "frame-src": [CSP.SELF, "https:"]}
# A preview page itself: nothing of its own runs, and only this site may frame it.
PREVIEW_CSP = {
    "default-src": [CSP.NONE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "frame-ancestors": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.NONE],
}


def _too_many(request: HttpRequest, bucket: str, limit: int) -> HttpResponse | None:
    window = settings.VOTE_RATE_WINDOW_SECONDS
    wait = rate_limit_hit(
        bucket=bucket,
        idents=[f"user:{request.user.pk}", f"addr:{client_address(request)}"],
        limit=limit,
        window=window,
        voter=request.user,
    )
    if not wait:
        return None
    context = {
        "limit": limit,
        "window_minutes": math.ceil(window / 60),
        "wait_minutes": math.ceil(wait / 60),
        "what": "votes" if bucket == "vote" else "new pairs",
    }
    response = render(request, "429.html#message" if request.htmx else "429.html", context, status=429)
    response["Retry-After"] = str(wait)
    return response


def _refused(request: HttpRequest, refusal: MatchupRefused) -> HttpResponse:
    template = "voting/refused.html#message" if request.htmx else "voting/refused.html"
    return render(request, template, {"refusal": refusal}, status=refusal.status)


def _stage(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    context.setdefault("voter", voter_status(voter=request.user))
    if request.htmx:
        response = render(request, "voting/vote.html#stage", context, status=status)
    else:
        context["scopes"] = vote_scopes(voter=request.user)
        response = render(request, "voting/vote.html", context, status=status)
    return response


@login_required
@require_GET
@csp_override(VOTE_CSP)
def vote(request: HttpRequest) -> HttpResponse:
    scope = request.GET.get("scope", "").strip()
    if not scope_is_valid(scope):
        return _stage(request, {"scope": "", "state": "empty"})
    matchup = matchup_open(voter=request.user, scope=scope)
    if matchup is None:
        if limited := _too_many(request, "draw", settings.VOTE_DRAW_RATE_LIMIT):
            return limited
        matchup = matchup_draw(voter=request.user, scope=scope)
    if matchup is None:
        return _stage(request, {"scope": scope, "state": "empty"})
    return _stage(request, {"scope": scope, "state": "matchup", "matchup": matchup, "sides": matchup_sides(matchup)})


@login_required
@require_POST
@csp_override(VOTE_CSP)
def vote_cast(request: HttpRequest, key: str) -> HttpResponse:
    if limited := _too_many(request, "vote", settings.VOTE_RATE_LIMIT):
        return limited
    winner = request.POST.get("winner", "")
    if winner not in Winner.values:
        return _refused(request, MatchupRefused("winner", 400, 'Pick "A is better", "B is better" or "Tie".'))
    try:
        vote_record(key=key, voter=request.user, winner=winner)
    except MatchupRefused as refusal:
        return _refused(request, refusal)
    if not request.htmx:
        return redirect("vote_reveal", key=key)
    return _reveal(request, key)


@login_required
@require_GET
@csp_override(VOTE_CSP)
def vote_reveal(request: HttpRequest, key: str) -> HttpResponse:
    return _reveal(request, key)


def _reveal(request: HttpRequest, key: str) -> HttpResponse:
    matchup = matchup_by_key(key)
    if matchup is None or matchup.voter_id != request.user.pk or matchup.used_at is None:
        return _refused(request, MatchupRefused("forged", 400, "There is no vote of yours on this pair."))
    return _stage(
        request,
        {
            "scope": matchup.scope,
            "state": "revealed",
            "matchup": matchup,
            "sides": matchup_sides(matchup),
            "vote": getattr(matchup, "vote", None),
            "previews_live": matchup.expires_at > timezone.now(),
        },
    )


def _preview_target(request: HttpRequest, alias: str):
    matchup, side = matchup_for_alias(alias)
    matchup_check(matchup, voter_id=request.user.pk, now=timezone.now(), for_vote=False)
    assert matchup is not None
    return matchup, matchup.run_a if side == "a" else matchup.run_b, (side or "").upper()


def _private(response: HttpResponse, matchup) -> HttpResponse:
    remaining = max(0, int((matchup.expires_at - timezone.now()).total_seconds()))
    response["Cache-Control"] = f"private, max-age={remaining}"
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_GET
def preview_shot(request: HttpRequest, alias: str, index: int) -> HttpResponse:
    """A side's picture. An uploaded screenshot is streamed (no file name in any header); an external one
    is redirected to only when its address names nothing; otherwise the checker's record is drawn."""
    try:
        matchup, run, letter = _preview_target(request, alias)
    except MatchupRefused as refusal:
        return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain; charset=utf-8")
    shots = preview_shots(run)
    if index >= len(shots):
        return HttpResponse("No such picture.", status=404, content_type="text/plain; charset=utf-8")
    shot = shots[index]
    if shot.kind == "file" and shot.evidence is not None:
        content_type = mimetypes.guess_type(PurePosixPath(shot.evidence.file.name).name)[0]
        if not (content_type or "").startswith("image/") or content_type == "image/svg+xml":
            content_type = "application/octet-stream"
        response: HttpResponse = FileResponse(shot.evidence.file.open("rb"), content_type=content_type)
        response.headers.pop("Content-Disposition", None)
    elif shot.kind == "url" and shot.evidence is not None:
        response = HttpResponseRedirect(shot.evidence.url)
    else:
        context = {"letter": letter, "task": matchup.task, "record": checker_record(run)}
        response = render(request, "voting/checks_preview.svg", context, content_type="image/svg+xml")
    return _private(response, matchup)


@login_required
@require_GET
@xframe_options_sameorigin
@csp_override(PREVIEW_CSP)
def preview_live(request: HttpRequest, alias: str) -> HttpResponse:
    """The live preview framed on the vote screen: a redirect to the app when its address names nothing,
    else a neutral page saying it is held back until the vote."""
    try:
        matchup, run, letter = _preview_target(request, alias)
    except MatchupRefused as refusal:
        return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain; charset=utf-8")
    if run.preview_url and url_is_opaque(run.preview_url, run):
        response: HttpResponse = HttpResponseRedirect(run.preview_url)
    else:
        response = render(request, "voting/live_withheld.html", {"letter": letter})
    return _private(response, matchup)
