from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("leaderboard.api_urls")),
    path("", include("voting.urls")),
    path("", include("runs.urls")),
    path("", include("leaderboard.site_urls")),
]

handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"
