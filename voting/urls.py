from django.urls import path

from . import views
from .views import accounts

urlpatterns = [
    path("vote/", views.vote, name="vote"),
    path("vote/m/<str:key>/", views.vote_post, name="vote_cast"),
    path("vote/r/<str:key>/", views.vote_reveal, name="vote_reveal"),
    path("vote/p/<str:alias>/<int:index>/", views.preview_shot, name="vote_preview_shot"),
    path("vote/p/<str:alias>/live/", views.preview_live, name="vote_preview_live"),
    path("vote/app/<str:alias>/", views.preview_app, name="vote_preview_app"),
    path("vote/app/<str:alias>/<path:path>", views.preview_app, name="vote_preview_app_file"),
    path("signup/", accounts.signup, name="signup"),
    path("signup/confirm/", accounts.address_confirm_again, name="address_confirm_again"),
    path("signup/confirm/<str:token>/", accounts.address_confirm_link, name="address_confirm"),
    path("signin/", accounts.signin, name="signin"),
    path("signout/", accounts.signout, name="signout"),
]
