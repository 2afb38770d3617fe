"""Accounts stored before the address rule (voting.mailbox) are brought under it by the migration that adds it,
on the database the site runs on: names in their canonical form, a row with the new key for every account (the
demo's and staff's too), and two accounts of one mailbox that both existed keep both, only the earlier holding
the key, so the database's uniqueness holds from then on."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from voting.mailbox import mailbox_key

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("voting", "0006_account_address")]
AFTER = [("voting", "0008_canonical_names_and_keys")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def old_apps():
    apps = _migrate(BEFORE)
    yield apps
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_migration_brings_stored_accounts_under_the_rule(old_apps):
    User = old_apps.get_model("auth", "User")
    AccountAddress = old_apps.get_model("voting", "AccountAddress")
    start = timezone.now() - timedelta(days=30)

    def account(name: str, days: int, *, row: str | None = None, confirmed: bool = True):
        user = User.objects.create(username=name, email=name, date_joined=start + timedelta(days=days))
        if row is not None:
            AccountAddress.objects.create(user=user, skeleton=row, confirmed_at=timezone.now() if confirmed else None)
        return user

    editor = account("editor@example.org", 0)  # the demo's: no row
    twin = account("editor@exam\u200bple.org", 1, row="editor@exam\u200bple.org")  # signed up past the old check
    cyrillic = account("voter@ex\u0430mple.org", 2, row="old key", confirmed=False)  # stored in Unicode form
    staff = account("Staff@Example.ORG", 3)  # made in the admin, as typed
    admin = account("admin", 4)  # createsuperuser

    _migrate(AFTER)
    from django.contrib.auth import get_user_model

    from voting.models import AccountAddress as Row

    names = dict(get_user_model().objects.values_list("pk", "username"))
    assert names == {
        editor.pk: "editor@example.org",
        twin.pk: "editor@exam\u200bple.org",  # its canonical name is the editor's: it keeps its own
        cyrillic.pk: "voter@xn--exmple-4nf.org",
        staff.pk: "staff@example.org",
        admin.pk: "admin",
    }
    assert get_user_model().objects.get(pk=staff.pk).email == "staff@example.org"
    rows = {row.user_id: row for row in Row.objects.all()}
    assert set(rows) == set(names)
    assert rows[editor.pk].skeleton == mailbox_key("editor@example.org")
    assert rows[twin.pk].skeleton is None  # the earlier account of the mailbox holds the key
    assert rows[cyrillic.pk].skeleton == mailbox_key("voter@xn--exmple-4nf.org")
    assert rows[cyrillic.pk].confirmed_at is None  # not confirmed before: still not
    assert rows[staff.pk].confirmed_at is not None and rows[editor.pk].confirmed_at is not None
    # and the database refuses a second holder of a key
    with pytest.raises(IntegrityError), transaction.atomic():
        Row.objects.filter(pk=twin.pk).update(skeleton=rows[editor.pk].skeleton)
