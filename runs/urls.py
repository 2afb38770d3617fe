from django.urls import path

from . import views

urlpatterns = [
    path("preview/", views.preview_index, name="preview_index"),
    path("preview/<str:bench>/<str:round_key>/", views.preview_round, name="preview_round"),
    path("media/evidence/<path:name>", views.evidence_file, name="evidence_file"),
    path(
        "preview/<str:bench>/<str:round_key>/runs/<str:run_key>/dispute/", views.dispute_create, name="dispute_create"
    ),
]
