from django.db import migrations, models

import leaderboard.models


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0009_sessions_backend")]

    operations = [
        migrations.AddField(
            model_name="benchmark",
            name="preview_hours",
            field=models.PositiveIntegerField(
                default=leaderboard.models.default_preview_hours,
                help_text="The vendor fact-check window: hours vendors see their results before a round may be "
                "published (ARTB's rule is 48, seed 000 §6). 0: no vendor window, a round is published straight "
                "from draft (a team that runs its own evals).",
            ),
        ),
    ]
