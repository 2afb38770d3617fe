"""The site's URLs plus /_floor/: a view that does no work, so a load run on it measures what every request
pays anyway (gunicorn, the whole middleware stack, a session cookie lookup when one is sent)."""

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("_floor/", floor),
    path("", include("config.urls")),
]

handler404 = "pages.views.page_not_found"
handler500 = "pages.views.server_error"
