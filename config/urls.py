from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("", include("voting.urls")),
    path("", include("runs.urls")),
    path("", include("submissions.urls")),
    path("", include("pages.urls")),
]

handler403 = "pages.refusals.permission_denied"
handler404 = "pages.views.page_not_found"
handler500 = "pages.views.server_error"
