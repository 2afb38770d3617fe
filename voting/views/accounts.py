"""Accounts: sign up with an email and a password, sign in, sign out; and the one limit on password guessing."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from leaderboard.clients import client_address

from ..forms import SignInForm, SignUpForm
from ..services.addresses import MailNotSent, address_confirm, address_confirmation_send, address_confirmed
from ..services.limits import rate_limit_hit
from ..too_many import too_many_page


def _too_many_attempts(request: HttpRequest, what: str) -> HttpResponse | None:
    """ACCOUNT_RATE_LIMIT sign-in or sign-up attempts per address per VOTE_RATE_WINDOW_SECONDS (password
    guessing, account farming), answered with the 429 page."""
    window = settings.VOTE_RATE_WINDOW_SECONDS
    wait = rate_limit_hit(
        bucket=f"account-{what}",
        idents=[f"addr:{client_address(request)}"],
        limit=settings.ACCOUNT_RATE_LIMIT,
        window=window,
    )
    if not wait:
        return None
    return too_many_page(request, what=f"{what} attempts", limit=settings.ACCOUNT_RATE_LIMIT, window=window, wait=wait)


def sign_in_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Every way to check a password (this site's sign-in, the admin's login and its password change, whose
    form asks for the old password) counts against one limit: ACCOUNT_RATE_LIMIT attempts per address per
    window, all of them together, so an address cannot get more guesses by spreading them over the forms.
    Every attempt counts, the right password included: past the limit it waits like a wrong one."""

    @wraps(view)
    def limited(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.method == "POST" and (refused := _too_many_attempts(request, "sign-in")):
            return refused
        return view(request, *args, **kwargs)

    return limited


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return resolve_url(settings.LOGIN_REDIRECT_URL)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and (refused := _too_many_attempts(request, "sign-up")):
        return refused
    form = SignUpForm(request.POST or None)
    link_base = request.build_absolute_uri("/")
    if request.method == "POST" and form.is_valid() and (user := form.save(link_base=link_base)) is not None:
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.info(request, f"We sent a link to {user.email}: open it to confirm your address, so your votes count.")
        return redirect(_next_url(request))
    # The form again (with its errors): where the visitor was going stays with it.
    nxt = request.POST.get("next") or request.GET.get("next", "")
    context = {"form": form, "next": nxt, "delay_hours": settings.VOTE_NEW_ACCOUNT_DELAY_HOURS}
    return render(request, "accounts/signup.html", context)


@require_GET
def address_confirm_link(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed at sign-up: it confirms the address it was made for (anyone who can read the mailbox may
    open it; that is the proof)."""
    user = address_confirm(token)
    return render(request, "accounts/address_confirmed.html", {"confirmed": user}, status=200 if user else 400)


@require_POST
@login_required
def address_confirm_again(request: HttpRequest) -> HttpResponse:
    """Mail the confirmation link again (counted against the sign-up limit, so it cannot flood a mailbox)."""
    if refused := _too_many_attempts(request, "sign-up"):
        return refused
    if not address_confirmed(request.user):
        try:
            address_confirmation_send(user=request.user, link_base=request.build_absolute_uri("/"))
        except MailNotSent:
            messages.error(request, f"We could not send mail to {request.user.email}: try again in a few minutes.")
        else:
            messages.info(request, f"We sent a new link to {request.user.email}; earlier links no longer work.")
    return redirect("vote")


@require_http_methods(["GET", "POST"])
@sign_in_limited
def signin(request: HttpRequest) -> HttpResponse:
    form = SignInForm(request, data=request.POST or None)
    if request.method == "POST" and form.is_valid():
        login(request, form.get_user())
        return redirect(_next_url(request))
    nxt = request.POST.get("next") or request.GET.get("next", "")
    context = {
        "form": form,
        "next": nxt,
        # Sent here by "Vote": say what voting is and why it needs an account, with sign-up beside the form.
        "for_voting": nxt.startswith(resolve_url("vote")),
        "delay_hours": settings.VOTE_NEW_ACCOUNT_DELAY_HOURS,
    }
    return render(request, "accounts/signin.html", context)


@require_http_methods(["GET", "POST"])
def signout(request: HttpRequest) -> HttpResponse:
    """Signing out is a POST (a link could sign anyone out); a GET shows the button."""
    if request.method == "POST":
        logout(request)
        return redirect(settings.LOGOUT_REDIRECT_URL)
    return render(request, "accounts/signout.html")
