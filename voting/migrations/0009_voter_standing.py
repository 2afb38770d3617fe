# Where each voter stands, stored (voting.standing): the row a vote reads instead of counting the day's votes.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('voting', '0008_canonical_names_and_keys'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='VoterStanding',
            fields=[
                ('voter', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='vote_standing', serialize=False, to=settings.AUTH_USER_MODEL)),
                ('day', models.DateField(help_text='The UTC day `today` counts.')),
                ('today', models.PositiveIntegerField(default=0)),
                ('flagged', models.BooleanField(default=False)),
                ('unconfirmed', models.BooleanField(default=False)),
            ],
            options={
                'db_table': 'voting_voter_standing',
            },
        ),
    ]
