"""The catalogue in the admin. Rules that matter here:

- a round's status moves only through the actions "Enter preview" and "Publish" (runs.services), which refuse
  with the reasons (preview window, runs in review, open disputes); status and dates are read-only;
- a published task version's prompt, criteria, parameters and interruption are read-only: a change is a
  new version ("New version" on the version's page, leaderboard.services.task_version_create);
- round parameters are editor-only (no other group has a permission on them).

Importing this package registers every model admin of its modules: `catalogue` (organizations,
memberships, agents, benchmarks), `accounts` (the Accounts page and join requests), `tasks` (tasks and their
versions) and `rounds` (rounds with their entries, parameters and changelog).
"""

from __future__ import annotations

from django.contrib import admin

from . import accounts, api_keys, catalogue, rounds, tasks

__all__ = ["accounts", "api_keys", "catalogue", "rounds", "tasks"]

admin.site.site_header = "Leaderboard administration"
admin.site.site_title = "Leaderboard admin"
admin.site.index_title = "Benchmarks, runs and reviews"
