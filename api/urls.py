"""URLs under /api/: the ninja API (its operations, /api/openapi.json and /api/docs), the docs page's own
assets, the docs it links to (docs/api.md and docs/inspect.md as site pages), and a JSON 404 for any other path
so API clients never get an HTML page."""

from django.http import HttpRequest, JsonResponse
from django.urls import path, re_path

from api import api, docs_asset
from api.common import api_guide


def api_not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    return JsonResponse({"detail": f"no API endpoint at {request.path}; see /api/docs"}, status=404)


urlpatterns = [
    path("docs/assets/<str:name>", docs_asset, name="api-docs-asset"),
    path("docs/<str:name>.md", api_guide, name="api-guide"),
    path("", api_not_found),
    path("", api.urls),
    re_path(r"^(?P<rest>[\s\S]*)\Z", api_not_found),  # any path, line breaks included
]
