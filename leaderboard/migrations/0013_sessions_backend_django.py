"""Sessions signed in through leaderboard.auth.ModelBackend (a ModelBackend that read the account and its
membership in one hand-written statement, 0009) name Django's own ModelBackend again: the rules were the same,
and Django only loads a session's user through a backend listed in AUTHENTICATION_BACKENDS, so without this
every account signed in before the change would be signed out by it.

The sessions stay in the same table (django_session): the session engine is now Django's cached_db, which
reads that table through the cache, so the rows need no other change."""

from django.db import migrations

OLD = "leaderboard.auth.ModelBackend"
NEW = "django.contrib.auth.backends.ModelBackend"


def _move(apps, schema_editor, old: str, new: str) -> None:
    from django.contrib.auth import BACKEND_SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    Session = apps.get_model("sessions", "Session")
    store = SessionStore()
    for session in Session.objects.all().iterator():
        data = store.decode(session.session_data)
        if data.get(BACKEND_SESSION_KEY) == old:
            data[BACKEND_SESSION_KEY] = new
            Session.objects.filter(pk=session.pk).update(session_data=store.encode(data))


def forwards(apps, schema_editor):
    _move(apps, schema_editor, OLD, NEW)


def backwards(apps, schema_editor):
    _move(apps, schema_editor, NEW, OLD)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0012_taskversion_frozen_names_the_task"),
        ("sessions", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
