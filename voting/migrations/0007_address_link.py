# The confirmation link's token, stored as a digest, and the address it was sent to.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('voting', '0006_account_address'),
    ]

    operations = [
        migrations.AddField(
            model_name='accountaddress',
            name='link_address',
            field=models.CharField(blank=True, default='', editable=False, max_length=254),
        ),
        migrations.AddField(
            model_name='accountaddress',
            name='link_digest',
            field=models.CharField(blank=True, editable=False, max_length=64, null=True, unique=True),
        ),
        migrations.AddField(
            model_name='accountaddress',
            name='link_sent_at',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
