"""A published task version's wording is never edited in place (seed 000 §9, seed 004 "not rewritten after a
run looks hard"): a PostgreSQL trigger refuses an UPDATE that changes prompt, criteria, parameters or
interruption of a row whose published_at was already set, or that clears published_at. The admin makes those
fields read-only and runs.services.task_version_update refuses the same change; this is the guard for
everything else (a bundle import, a shell). SQLite, the no-configuration default, relies on those two.
"""

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION leaderboard_taskversion_frozen() RETURNS trigger AS $$
BEGIN
  IF OLD.published_at IS NOT NULL AND (
      NEW.published_at IS NULL
      OR NEW.prompt IS DISTINCT FROM OLD.prompt
      OR NEW.criteria::jsonb IS DISTINCT FROM OLD.criteria::jsonb
      OR NEW.parameters::jsonb IS DISTINCT FROM OLD.parameters::jsonb
      OR NEW.interruption IS DISTINCT FROM OLD.interruption) THEN
    RAISE EXCEPTION 'task version % is published: its wording is never edited in place; create a new version',
      NEW.version USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER leaderboard_taskversion_frozen BEFORE UPDATE ON leaderboard_taskversion
  FOR EACH ROW EXECUTE FUNCTION leaderboard_taskversion_frozen();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS leaderboard_taskversion_frozen ON leaderboard_taskversion;
DROP FUNCTION IF EXISTS leaderboard_taskversion_frozen();
"""


def _run(schema_editor, sql):
    # A plain cursor: the plpgsql body contains '%' placeholders of its own.
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql)


def forward(apps, schema_editor):
    _run(schema_editor, PG_FORWARD)


def backward(apps, schema_editor):
    _run(schema_editor, PG_BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0003_groups")]
    operations = [migrations.RunPython(forward, backward)]
