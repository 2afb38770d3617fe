"""The four groups of people who work on the site and their permissions (see migration 0003_groups).

`groups_ensure()` recreates them when they are missing: a database flushed by a test, or one restored
without its migration data.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

# The groups' names: every check of a role and every place that makes one spells it with these (a test,
# tests/test_role_names.py, finds a literal name anywhere else in the code).
EDITORS = "Editors"
TESTERS = "Testers"
REVIEWERS = "Reviewers"
VENDORS = "Vendors"
ROLE_GROUPS = (EDITORS, TESTERS, REVIEWERS, VENDORS)

EDITOR_MODELS = {
    "leaderboard": [
        "organization",
        "membership",
        "joinrequest",
        "account",
        "agent",
        "benchmark",
        "task",
        "taskversion",
        "round",
        "entry",
        "roundparameter",
        "changelogentry",
    ],
    "runs": ["run", "verdict", "evidence", "checkresult", "dispute"],
    "voting": ["vote"],
    "snapshots": ["boardsnapshot"],
    "submissions": ["submissiontrack", "submission", "submissionevent"],
}
REVIEW_PERMISSIONS = [
    ("view", "leaderboard", "benchmark"),
    ("view", "leaderboard", "task"),
    ("view", "leaderboard", "taskversion"),
    ("view", "leaderboard", "round"),
    ("view", "leaderboard", "entry"),
    ("view", "leaderboard", "agent"),
    ("view", "runs", "run"),
    ("view", "runs", "evidence"),
    ("view", "runs", "checkresult"),
    ("view", "runs", "verdict"),
    ("add", "runs", "verdict"),
    ("change", "runs", "verdict"),
]
TESTER_EXTRA = [("add", "runs", "evidence"), ("change", "runs", "evidence")]


def groups_ensure() -> None:
    """Create Editors, Testers, Reviewers and Vendors with their permissions if they are missing."""
    from django.apps import apps
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        create_permissions(app_config, verbosity=0)

    def perms(triples):
        out = []
        for action, app, model in triples:
            perm = Permission.objects.filter(codename=f"{action}_{model}", content_type__app_label=app).first()
            if perm is not None:
                out.append(perm)
        return out

    editors, _ = Group.objects.get_or_create(name=EDITORS)
    editors.permissions.add(
        *perms(
            [
                (a, app, m)
                for app, models in EDITOR_MODELS.items()
                for m in models
                for a in ("add", "change", "delete", "view")
            ]
        )
    )
    extra = [
        p
        for p in Permission.objects.filter(content_type__app_label__in=["voting", "runs", "leaderboard"])
        if p.codename
        not in {f"{a}_{m}" for a in ("add", "change", "delete", "view") for ms in EDITOR_MODELS.values() for m in ms}
    ]
    editors.permissions.add(*extra)
    testers, _ = Group.objects.get_or_create(name=TESTERS)
    reviewers, _ = Group.objects.get_or_create(name=REVIEWERS)
    testers.permissions.add(*perms(REVIEW_PERMISSIONS + TESTER_EXTRA))
    reviewers.permissions.add(*perms(REVIEW_PERMISSIONS))
    Group.objects.get_or_create(name=VENDORS)
