from django.conf import settings
from django.utils.csp import CSP


class AdminStylesCSPMiddleware:
    """The Django admin uses inline styles of its own (staff only, same origin): its pages get the site's policy
    (settings.SECURE_CSP, applied by Django's ContentSecurityPolicyMiddleware) with 'unsafe-inline' styles."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith("/admin/") and not hasattr(response, "_csp_config"):
            response._csp_config = {**settings.SECURE_CSP, "style-src": [CSP.SELF, CSP.UNSAFE_INLINE]}
        return response


class RejectNulMiddleware:
    """A NUL byte never names anything here, and PostgreSQL refuses it in text: a path holding one is a 404
    and a query string holding one a 400, before any view or query sees it. The API (/api/) answers such
    input itself, in JSON."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.http import Http404
        from django.shortcuts import render

        if request.path.startswith("/api/"):
            return self.get_response(request)
        if "\x00" in request.path:
            raise Http404("No such page.")
        if any("\x00" in key or any("\x00" in v for v in values) for key, values in request.GET.lists()):
            return render(
                request, "400.html", {"message": "The address holds a character that cannot be used."}, status=400
            )
        return self.get_response(request)
