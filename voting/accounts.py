"""Accounts: sign up with an email and a password, sign in, sign out."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login, logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from .forms import SignInForm, SignUpForm


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return resolve_url(settings.LOGIN_REDIRECT_URL)


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request))
    return render(request, "accounts/signup.html", {"form": form, "next": request.GET.get("next", ""),
                                                    "delay_hours": settings.VOTE_NEW_ACCOUNT_DELAY_HOURS})


@require_http_methods(["GET", "POST"])
def signin(request: HttpRequest) -> HttpResponse:
    form = SignInForm(request, data=request.POST or None)
    if request.method == "POST" and form.is_valid():
        login(request, form.get_user())
        return redirect(_next_url(request))
    return render(request, "accounts/signin.html", {"form": form, "next": request.GET.get("next", "")})


@require_http_methods(["GET", "POST"])
def signout(request: HttpRequest) -> HttpResponse:
    """Signing out is a POST (a link could sign anyone out); a GET shows the button."""
    if request.method == "POST":
        logout(request)
        return redirect(settings.LOGOUT_REDIRECT_URL)
    return render(request, "accounts/signout.html")
