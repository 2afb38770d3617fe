class ContentSecurityPolicyMiddleware:
    """A strict CSP: scripts only from this site, no inline script. Views may loosen `frame-src` (the vote
    screen frames sandboxed app previews) by setting `response.csp_frame_src`."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" in response:
            return response
        frame_src = getattr(response, "csp_frame_src", "'none'")
        policy = (
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
            f"font-src 'self'; connect-src 'self'; frame-src {frame_src}; frame-ancestors 'none'; "
            "object-src 'none'; base-uri 'self'; form-action 'self'"
        )
        if request.path.startswith("/admin/"):
            # The Django admin uses a few inline styles of its own (staff only, same origin).
            policy = policy.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        response["Content-Security-Policy"] = policy
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
            return render(request, "400.html", {"message": "The address holds a character that cannot be used."},
                          status=400)
        return self.get_response(request)
