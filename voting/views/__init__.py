"""The blind-vote screen, the vote itself, and the previews served through one-time aliases.

Nothing a view returns before the vote names a run, its agent, model or vendor: the page holds only the
matchup's random tokens, the previews are served (or drawn) through them, and no response header carries a
run's address (see `preview_shot` and `preview_live`).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template import engines
from django.utils import timezone
from django.utils.csp import CSP
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.clickjacking import xframe_options_exempt, xframe_options_sameorigin
from django.views.decorators.csp import csp_override
from django.views.decorators.http import require_GET, require_POST

from leaderboard.clients import client_address
from runs.models import Run
from runs.services.app_builds import app_build_file, builds_storage

from ..app_serving import APP_CSP, app_file_response, serving_mark
from ..draw.matchups import MatchupRefused, matchup_check, matchup_draw
from ..draw.rules import app_build_of, live_kind, preview_shots, with_previews
from ..models import Vote, Winner
from ..pictures import MAX_PICTURE_BYTES, UnreadablePicture, picture_for_voter, serving_key
from ..pool import VotePool, vote_pool, vote_pool_last
from ..selectors import (
    matchup_for_alias,
    matchup_open,
    matchup_reveal,
    matchup_sides,
    scope_is_valid,
    screen_task,
    vote_scopes,
    voter_status,
)
from ..services.counting import Cast, vote_cast
from ..services.limits import rate_limits_hit
from ..too_many import too_many_page
from .screen_cache import screen_cached, screen_keep

# The vote screen frames the two sandboxed apps (through this site's aliases, from PREVIEW_ORIGIN when set, or
# a live app over https); naming no preview host keeps a preview's address out of the headers.
VOTE_CSP = {
    **settings.SECURE_CSP,
    "frame-src": [CSP.SELF, "https:", *([settings.PREVIEW_ORIGIN] if settings.PREVIEW_ORIGIN else [])],
}
# A preview page itself: nothing of its own runs, and only this site may frame it.
PREVIEW_CSP = {
    "default-src": [CSP.NONE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF],
    "frame-ancestors": [CSP.SELF],
    "base-uri": [CSP.NONE],
    "form-action": [CSP.NONE],
}


def _rate_limited(request: HttpRequest, limits: dict[str, int]) -> dict[str, int]:
    """Count this request against the voter's and the address's limits ({bucket: limit}), in one round trip:
    {bucket: seconds to wait, 0 when within the limit}."""
    return rate_limits_hit(
        limits=limits,
        idents=[f"user:{request.user.pk}", f"addr:{client_address(request)}"],
        window=settings.VOTE_RATE_WINDOW_SECONDS,
        voter=request.user,
    )


def _too_many(request: HttpRequest, bucket: str, limit: int, wait: int | None = None) -> HttpResponse | None:
    """The 429 answer when `bucket` is over its limit (counting this request unless `wait` is given)."""
    if wait is None:
        wait = _rate_limited(request, {bucket: limit})[bucket]
    if not wait:
        return None
    what = "votes" if bucket == "vote" else "new pairs"
    return too_many_page(request, what=what, limit=limit, window=settings.VOTE_RATE_WINDOW_SECONDS, wait=wait)


def _refused(request: HttpRequest, refusal: MatchupRefused) -> HttpResponse:
    template = "voting/refused.html#message" if request.htmx else "voting/refused.html"
    return render(request, template, {"refusal": refusal}, status=refusal.status)


def _stage_context(request: HttpRequest, context: dict, pool: VotePool) -> dict:
    if "voter" not in context:  # a vote's answer already knows where the voter stands
        context["voter"] = voter_status(voter=request.user)
    if matchup := context.get("matchup"):
        context["task"] = screen_task(matchup, pool=pool)
        # The apps are shown before the vote, and after it while the pair's aliases live.
        context["show_apps"] = context["state"] == "matchup" or context.get("previews_live", False)
    return context


def _jinja(name: str, context: dict, request: HttpRequest) -> SafeString:
    """The screen, its stage and the reveal bar (`voting/jinja2/voting/`: Jinja2 through Django's backend,
    config/jinja2.py), which every vote and every vote screen render.

    Rendered from a copy of `context`: Django's Jinja2 backend adds its own `csrf_input` and `csrf_token` to the
    dict it is given (the templates use `csrf_field()` and `csrf_value()`, masked once an answer: config/jinja2.py).
    """
    template = engines["jinja2"].get_template(name)
    return mark_safe(template.render({**context}, request))  # noqa: S308 (escaped by Jinja)


def _stage(request: HttpRequest, context: dict, status: int = 200, pool: VotePool | None = None) -> HttpResponse:
    pool = pool or vote_pool()
    context = _stage_context(request, context, pool)
    if request.htmx:
        return HttpResponse(_jinja("voting/stage.html", context, request), status=status)
    organization_id = context["voter"].organization_id  # read with the standing
    context["scopes"] = vote_scopes(voter=request.user, pool=pool, organization_id=organization_id)
    # The page is the site's frame in Jinja2 (voting/jinja2/voting/base.html) around the screen; the navigation's
    # "Preview" link is for a vendor's member, known from the standing.
    context["IS_VENDOR"] = organization_id is not None
    return HttpResponse(_jinja("voting/vote.html", context, request), status=status)


@login_required
@require_GET
@csp_override(VOTE_CSP)
def vote(request: HttpRequest) -> HttpResponse:
    scope = request.GET.get("scope", "").strip()
    pool = vote_pool()
    if not scope_is_valid(scope):
        return _stage(request, {"scope": "", "state": "empty"}, pool=pool)
    # A reload of the page just shown: the kept page while nothing it shows has changed (voting/views/screen_cache.py).
    kept, ticket = screen_cached(request, scope)
    if kept is not None:
        return kept
    matchup = matchup_open(voter=request.user, scope=scope)
    # Where the voter stands, and the organization a draw leaves out: read with the open pair when there is one.
    voter = voter_status(voter=request.user, read_with=matchup)
    drawn = matchup is None
    if matchup is None:
        if limited := _too_many(request, "draw", settings.VOTE_DRAW_RATE_LIMIT):
            return limited
        matchup = matchup_draw(voter=request.user, scope=scope, pool=pool, organization_id=voter.organization_id)
        pool = vote_pool_last(pool)  # a draw that found the pool stale worked it out again
    if matchup is None:
        return _stage(request, {"scope": scope, "state": "empty", "voter": voter}, pool=pool)
    sides = matchup_sides(matchup, pool=pool)
    context = {"scope": scope, "state": "matchup", "matchup": matchup, "sides": sides, "voter": voter}
    response = _stage(request, context, pool=pool)
    if not drawn:  # a pair drawn here retired the ticket's generation: its page could never be served
        screen_keep(request, ticket, response, matchup=matchup)
    return response


@login_required
@require_POST
@csp_override(VOTE_CSP)
def vote_post(request: HttpRequest, key: str) -> HttpResponse:
    """Cast the vote. The htmx answer is the revealed pair and, ready behind its "Next pair" button, the next
    pair, drawn in the same request (`vote.js` shows it without asking again; without JavaScript the button
    loads /vote/, which shows that same open pair): one request per vote."""
    limits = {"vote": settings.VOTE_RATE_LIMIT}
    if request.htmx:
        limits["draw"] = settings.VOTE_DRAW_RATE_LIMIT
    waits = _rate_limited(request, limits)
    if limited := _too_many(request, "vote", settings.VOTE_RATE_LIMIT, wait=waits["vote"]):
        return limited
    winner = request.POST.get("winner", "")
    if winner not in Winner.values:
        return _refused(request, MatchupRefused("winner", 400, 'Pick "A is better", "B is better" or "Tie".'))
    pool = vote_pool()
    try:
        cast = vote_cast(key=key, voter=request.user, winner=winner, pool=pool)
    except MatchupRefused as refusal:
        return _refused(request, refusal)
    if not request.htmx:
        return redirect("vote_reveal", key=key)
    return _reveal(request, key, cast=cast, draw_next=not waits["draw"], pool=pool)


@login_required
@require_GET
@csp_override(VOTE_CSP)
def vote_reveal(request: HttpRequest, key: str) -> HttpResponse:
    return _reveal(request, key)


def _reveal(
    request: HttpRequest, key: str, cast: Cast | None = None, draw_next: bool = False, pool: VotePool | None = None
) -> HttpResponse:
    reveal = cast.reveal if cast else matchup_reveal(key)
    if reveal is None or reveal.matchup.voter_id != request.user.pk or reveal.matchup.used_at is None:
        return _refused(request, MatchupRefused("forged", 400, "There is no vote of yours on this pair."))
    matchup, pool = reveal.matchup, pool or vote_pool()
    if cast is not None:
        vote = cast.vote
    elif reveal.vote_winner is not None:
        vote = Vote(winner=reveal.vote_winner, held=reveal.vote_held, counts_from=reveal.vote_counts_from)
    else:
        vote = None  # the vote was removed by an editor
    context = {
        "scope": matchup.scope,
        "state": "revealed",
        "matchup": matchup,
        "sides": matchup_sides(matchup, reveal=reveal, pool=pool),
        "vote": vote,
        "previews_live": matchup.expires_at > timezone.now(),
        "voter": cast.voter if cast else voter_status(voter=request.user),
    }
    org = context["voter"].organization_id  # read with the standing: the next pair leaves its agents out
    if draw_next and (
        nxt := matchup_draw(voter=request.user, scope=matchup.scope, pool=pool, after=matchup, organization_id=org)
    ):
        pool = vote_pool_last(pool)
        following = {"scope": matchup.scope, "state": "matchup", "matchup": nxt, "voter": context["voter"]}
        following["sides"] = matchup_sides(nxt, pool=pool)
        context["next_stage"] = _jinja("voting/stage.html", _stage_context(request, following, pool), request)
    if cast is not None and request.htmx:
        # The vote bar only (and, out of band, the names in the two panel headers): the frames stay as the voter
        # left them until "Next pair".
        context["bar_only"] = True
        return HttpResponse(_jinja("voting/revealbar.html", _stage_context(request, context, pool), request))
    return _stage(request, context, pool=pool)


def _preview_target(request: HttpRequest, alias: str):
    matchup, side = matchup_for_alias(alias)
    matchup_check(matchup, voter_id=request.user.pk, now=timezone.now(), for_vote=False)
    assert matchup is not None
    return matchup, matchup.run_a if side == "a" else matchup.run_b, (side or "").upper()


def _private(response: HttpResponse, matchup) -> HttpResponse:
    response["Cache-Control"] = f"private, max-age={_remaining(matchup)}"
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_GET
def preview_shot(request: HttpRequest, alias: str, index: int) -> HttpResponse:
    """A side's screenshot, stored on the site and sent through the alias: no file name in any header, and the
    picture drawn again with bytes of this pair's own, nothing of the stored file's (`pictures`)."""
    try:
        matchup, run, letter = _preview_target(request, alias)
    except MatchupRefused as refusal:
        return _plain(refusal.message, refusal.status)
    shots = preview_shots(run)
    if index >= len(shots):
        return _plain("No such picture.", 404)
    file = shots[index].evidence.file
    try:
        if file.size > MAX_PICTURE_BYTES:
            return _plain("This picture is too large to show.", 404)
        with file.open("rb") as f:
            picture = picture_for_voter(f.read(), key=serving_key(matchup.key, letter, index))
    except (OSError, UnreadablePicture):  # gone from the storage, or not a picture that can be decoded
        return _plain("No such picture.", 404)
    response = HttpResponse(picture.data, content_type=picture.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    return _private(response, matchup)


@login_required
@require_GET
@xframe_options_sameorigin
@csp_override(PREVIEW_CSP)
def preview_live(request: HttpRequest, alias: str) -> HttpResponse:
    """A side's live app when it is an opaque preview address (and the run has no build, which the frame
    would show instead): a redirect to it (the frame is sandboxed). The address is never public
    (`scoring.types.PRIVATE_RUN_FIELDS`), so it tells the voter nothing."""
    try:
        matchup, run, _letter = _preview_target(request, alias)
    except MatchupRefused as refusal:
        return _plain(refusal.message, refusal.status)
    if live_kind(run) != "url":
        return _plain("This app has no live preview.", 404)
    return _private(HttpResponseRedirect(run.preview_url), matchup)


def _plain(message: str, status: int) -> HttpResponse:
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


@require_GET
@xframe_options_exempt
@csp_override(APP_CSP)
def preview_app(request: HttpRequest, alias: str, path: str = "") -> HttpResponse:
    """A file of a side's app build, served sandboxed: the Content-Security-Policy `sandbox` (no
    allow-same-origin) gives the document an opaque origin, so its scripts run but cannot read this site's
    cookies or call it as the voter. The alias is the only key: the app's own requests carry no session (a
    sandboxed document's requests are cross-site), so it is not asked for; it names nothing, is issued to one
    voter and dies with the matchup. HTML documents get the storage shim (`app_serving`)."""
    matchup, side = matchup_for_alias(alias)
    if matchup is None or side is None or matchup.expires_at <= timezone.now():
        return _plain("This app is not available: load a new pair to vote.", 404)
    run = with_previews(Run.objects.filter(pk=matchup.run_a_id if side == "a" else matchup.run_b_id)).first()
    build = app_build_of(run) if run is not None else None
    target = app_build_file(build, path) if build is not None else None
    if target is None:
        return _plain("No such file.", 404)
    try:
        return app_file_response(
            builds_storage(), target, private_seconds=_remaining(matchup), mark=serving_mark(alias)
        )
    except OSError:  # gone from the storage since it was found
        return _plain("No such file.", 404)


def _remaining(matchup) -> int:
    return max(0, int((matchup.expires_at - timezone.now()).total_seconds()))
