"""The site's URLs plus /_floor/: a view that does no work, so a load run on it measures what every request
pays anyway (gunicorn, the whole middleware stack); and /_floor/signed-in/, the same for a signed-in visitor:
the session read from the cache and the account from the database, as every signed-in page reads them."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def floor(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


@login_required
def floor_signed_in(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("_floor/", floor),
    path("_floor/signed-in/", floor_signed_in),
    path("", include("config.urls")),
]

handler404 = "pages.views.page_not_found"
handler500 = "pages.views.server_error"
