"""Sessions signed in through Django's ModelBackend now name leaderboard.auth.ModelBackend (the same rules, the
account read with its membership): without this, every account signed in before the change would be signed
out by it (Django only loads a session's user through a backend listed in AUTHENTICATION_BACKENDS)."""

from django.db import migrations

OLD = "django.contrib.auth.backends.ModelBackend"
NEW = "leaderboard.auth.ModelBackend"


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
        ("leaderboard", "0008_taskversion_scenarios"),
        ("sessions", "0001_initial"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
