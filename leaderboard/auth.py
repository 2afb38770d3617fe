"""How a signed-in account is read on every request: its session row and its user row, each in one statement.

Every vote is a request by a signed-in voter, so this is on the vote's path (`bench/README.md`, "Votes under
load"): Django's database session store and its ModelBackend are used as they are, except that

- the session row is read with one plain statement instead of through the ORM's query compiler, and
- the account is read together with its organization membership (a LEFT JOIN), which the vote draw needs (a
  voter is never shown an agent of their own organization): one statement instead of two, written out rather
  than compiled by the ORM.

`leaderboard/migrations/0009_sessions_backend.py` moves the sessions signed in through Django's ModelBackend to
this one, so no one is signed out by the change.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.sessions.backends.db import SessionStore as DjangoSessionStore
from django.db import connection
from django.utils import timezone


class ModelBackend(DjangoModelBackend):
    def get_user(self, user_id):
        """`User.objects.select_related("membership").get(pk=user_id)`, as one raw statement (the ORM's
        converters still apply: `raw()`); the membership, or its absence, is cached on the user as
        select_related would.

        Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05 and 2026-12-03): with these statements a vote
        costs 6.3 ms of server CPU (target 10 ms); building the same queries in the ORM was about 24% of a vote's
        CPU."""
        from leaderboard.models import Membership

        UserModel = get_user_model()
        users, members = (connection.ops.quote_name(m._meta.db_table) for m in (UserModel, Membership))
        pk = connection.ops.quote_name(UserModel._meta.pk.column)
        rows = UserModel._default_manager.raw(
            f"SELECT u.*, m.id AS membership_pk, m.organization_id AS membership_organization_id FROM {users} u"
            f" LEFT JOIN {members} m ON m.user_id = u.{pk} WHERE u.{pk} = %s",
            [user_id],
        )
        user = next(iter(rows), None)
        if user is None:
            return None
        membership = None
        if user.membership_pk is not None:
            membership = Membership(pk=user.membership_pk, user=user, organization_id=user.membership_organization_id)
            membership._state.adding, membership._state.db = False, user._state.db
        UserModel.membership.related.set_cached_value(user, membership)
        return user if self.user_can_authenticate(user) else None


class SessionStore(DjangoSessionStore):
    def _get_session_from_db(self):
        """`Session.objects.get(session_key=..., expire_date__gt=now)` as one statement.

        Why SQL: bench/README.md, "Votes under load" (2026-12-01 10:05): the session and user reads were 16% of
        a vote's CPU, most of it building the queries in the ORM."""
        model = self.model
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT session_key, session_data, expire_date FROM {connection.ops.quote_name(model._meta.db_table)}"
                " WHERE session_key = %s AND expire_date > %s",
                [self.session_key, connection.ops.adapt_datetimefield_value(timezone.now())],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return model(session_key=row[0], session_data=row[1], expire_date=row[2])
