"""Every vote gets a stable identity (`key`, the bundle's `votes[].id`).

Votes stored before this migration get `v<pk>`: their position in the bundle they came from is not known any
more, so re-importing that same id-less bundle once more would add its votes again; export the benchmark and
import the export instead (it carries the ids)."""

from django.db import migrations, models

import voting.models


def fill_keys(apps, schema_editor):
    Vote = apps.get_model("voting", "Vote")
    batch = []
    for vote in Vote.objects.only("id").iterator(chunk_size=2000):
        vote.key = f"v{vote.pk}"
        batch.append(vote)
        if len(batch) >= 2000:
            Vote.objects.bulk_update(batch, ["key"])
            batch = []
    if batch:
        Vote.objects.bulk_update(batch, ["key"])


class Migration(migrations.Migration):
    dependencies = [("voting", "0002_matchups_held_votes_flags")]

    operations = [
        migrations.AddField(model_name="vote", name="key", field=models.CharField(default="", max_length=100)),
        migrations.RunPython(fill_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="vote", name="key",
            field=models.CharField(default=voting.models.new_vote_key, max_length=100,
                                   help_text="The vote's identity in bundles (`votes[].id`), kept on import and export."),
        ),
        migrations.AddConstraint(
            model_name="vote",
            constraint=models.UniqueConstraint(fields=("task", "key"), name="vote_key_unique_per_task"),
        ),
    ]
