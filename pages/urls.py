"""The public site. Board, run and task pages read published rounds only (see pages.selectors)."""

from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("agents/<str:slug>/", views.agent_detail, name="agent"),
    path("b/<str:bench>/", views.board, name="board"),
    path("b/<str:bench>/tradeoffs/", views.tradeoffs, name="tradeoffs"),
    path("b/<str:bench>/compare/", views.compare, name="compare"),
    path("b/<str:bench>/methodology/", views.methodology, name="methodology"),
    path("b/<str:bench>/search/", views.search, name="search"),
    path("b/<str:bench>/tasks/<str:task>/", views.task_detail, name="task"),
    path("b/<str:bench>/download/runs.csv", views.runs_csv, name="runs_csv"),
    path("b/<str:bench>/download/bundle.json", views.bundle_json, name="bundle_json"),
    path("b/<str:bench>/download/votes.jsonl.gz", views.votes_file, name="votes_file"),
    path("b/<str:bench>/r/<str:round>/", views.board, name="board_round"),
    path("b/<str:bench>/r/<str:round>/board.csv", views.board_csv, name="board_csv"),
    path("b/<str:bench>/r/<str:round>/tasks/", views.round_tasks, name="round_tasks"),
    path("b/<str:bench>/r/<str:round>/tasks.csv", views.round_tasks_csv, name="round_tasks_csv"),
    path("b/<str:bench>/r/<str:round>/changelog/", views.changelog, name="changelog"),
    path("b/<str:bench>/r/<str:round>/readings/", views.readings, name="readings"),
    path("b/<str:bench>/r/<str:round>/agents/<str:agent>/", views.round_agent, name="round_agent"),
    path("b/<str:bench>/r/<str:round>/runs/<str:run>.json", views.run_json, name="run_json"),
    path("b/<str:bench>/r/<str:round>/runs/<str:run>/", views.run_detail, name="run"),
]
