from django.urls import path

from . import views

urlpatterns = [
    path("b/<str:bench>/submit/", views.submit, name="submission_submit"),
    path("b/<str:bench>/submissions/<int:pk>/", views.detail, name="submission"),
    path("b/<str:bench>/submissions/<int:pk>/<str:action>/", views.act, name="submission_action"),
    path("join/", views.join, name="join"),
    path("join/withdraw/<int:pk>/", views.join_withdraw, name="join_withdraw"),
    path("join/accept/<int:pk>/", views.join_accept, name="join_accept"),
]
