# Every account under the canonical form of its address, with its row and its mailbox key (voting.mailbox).

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import migrations
from django.utils import timezone

from voting.mailbox import address_canonical, name_key


def _canonical(text):
    try:
        return address_canonical(text)
    except ValidationError:
        return None


def canonical_names_and_keys(apps, schema_editor):
    """Names are rewritten to their canonical form (`editor@exаmple.org`, stored in its Unicode form before, is
    `editor@xn--exmple-4nf.org`: sign-in looks the canonical form up) unless an account has that name already;
    each account gets its row (confirmed for those made by staff or the demo), and the rows their keys by the new
    rule, the earliest account first: a later one whose key is taken keeps none (the admin lists both)."""
    User = apps.get_model(settings.AUTH_USER_MODEL)
    AccountAddress = apps.get_model("voting", "AccountAddress")
    users = list(User.objects.order_by("date_joined", "pk").only("pk", "username", "email", "date_joined"))
    names = {user.username for user in users}
    for user in users:
        canonical = _canonical(user.username)
        if canonical is None or canonical == user.username or canonical in names:
            continue
        names.discard(user.username)
        names.add(canonical)
        if not user.email or _canonical(user.email) == canonical:
            user.email = canonical
        user.username = canonical
        user.save(update_fields=["username", "email"])
    rows = {row.user_id: row for row in AccountAddress.objects.all()}
    AccountAddress.objects.update(skeleton=None)  # cleared first: no key is held twice while they are rewritten
    taken = set()
    now = timezone.now()
    for user in users:
        key = name_key(user.username)
        row = rows.get(user.pk) or AccountAddress(user_id=user.pk, confirmed_at=now)
        row.skeleton = None if key in taken else key
        taken.add(key)
        row.save()


class Migration(migrations.Migration):
    # Its own migration: PostgreSQL creates the new fields' indexes at the end of theirs, which it refuses
    # while rows written in the same transaction have pending (deferred) foreign-key checks.

    dependencies = [
        ('voting', '0007_address_link'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(canonical_names_and_keys, migrations.RunPython.noop),
    ]
