"""The four groups of people who work on the site, with their permissions.

- Editors run the benchmark: everything in the catalogue, runs, verdicts, disputes and votes.
- Testers record the first outcome of a run; Reviewers give the blind second or the deciding third verdict.
  Both see runs and evidence; which verdicts each may see is decided in the admin (runs.admin).
- Vendors are not staff: during a round's preview they see their own agents' results on the site and may
  file disputes there.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUPS = {
    "Editors": {
        "leaderboard": ["organization", "membership", "agent", "benchmark", "task", "taskversion", "round",
                        "entry", "roundparameter", "changelogentry"],
        "runs": ["run", "verdict", "evidence", "checkresult", "dispute"],
        "voting": ["vote"],
        "snapshots": ["boardsnapshot"],
    },
}
READ_AND_REVIEW = [
    ("view", "leaderboard", "benchmark"), ("view", "leaderboard", "task"), ("view", "leaderboard", "taskversion"),
    ("view", "leaderboard", "round"), ("view", "leaderboard", "entry"), ("view", "leaderboard", "agent"),
    ("view", "runs", "run"), ("view", "runs", "evidence"), ("view", "runs", "checkresult"),
    ("view", "runs", "verdict"), ("add", "runs", "verdict"), ("change", "runs", "verdict"),
]


def forward(apps, schema_editor):
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")

    def perm(action, app, model):
        return Permission.objects.get(codename=f"{action}_{model}", content_type__app_label=app)

    editors, _ = Group.objects.get_or_create(name="Editors")
    for app, models in GROUPS["Editors"].items():
        for model in models:
            for action in ("add", "change", "delete", "view"):
                editors.permissions.add(perm(action, app, model))
    testers, _ = Group.objects.get_or_create(name="Testers")
    reviewers, _ = Group.objects.get_or_create(name="Reviewers")
    for group in (testers, reviewers):
        for action, app, model in READ_AND_REVIEW:
            group.permissions.add(perm(action, app, model))
    testers.permissions.add(perm("add", "runs", "evidence"), perm("change", "runs", "evidence"))
    Group.objects.get_or_create(name="Vendors")


def backward(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["Editors", "Testers", "Reviewers", "Vendors"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0002_initial"),
        ("runs", "0002_run_guards"),
        ("voting", "0001_initial"),
        ("snapshots", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [migrations.RunPython(forward, backward)]
