"""Database guards that a CHECK constraint cannot express because they look at other rows:

- a run's round must be its entry's round (no run outside its round's entries);
- a re-run cannot be re-run, and a run that has a re-run cannot itself become one.

They are PostgreSQL triggers: PostgreSQL is the production database. SQLite, the no-configuration default,
rebuilds tables on schema changes in a way that breaks triggers naming other tables, so there the same
rules are checked by bundle validation before anything is written, by the services that make re-runs, and
by the run form (`Run.clean`).
"""

from django.db import migrations

PG_FORWARD = """
CREATE OR REPLACE FUNCTION runs_run_guard() RETURNS trigger AS $$
BEGIN
  IF (SELECT round_id FROM leaderboard_entry WHERE id = NEW.entry_id) IS DISTINCT FROM NEW.round_id THEN
    RAISE EXCEPTION 'run % is outside its round''s entries', NEW.key USING ERRCODE = '23514';
  END IF;
  IF NEW.rerun_of_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM runs_run WHERE id = NEW.rerun_of_id AND rerun_of_id IS NOT NULL) THEN
    RAISE EXCEPTION 'run % would re-run a re-run', NEW.key USING ERRCODE = '23514';
  END IF;
  IF NEW.rerun_of_id IS NOT NULL AND EXISTS (SELECT 1 FROM runs_run WHERE rerun_of_id = NEW.id) THEN
    RAISE EXCEPTION 'run % has a re-run and cannot be a re-run itself', NEW.key USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER runs_run_guard BEFORE INSERT OR UPDATE ON runs_run
  FOR EACH ROW EXECUTE FUNCTION runs_run_guard();
CREATE OR REPLACE FUNCTION leaderboard_entry_guard() RETURNS trigger AS $$
BEGIN
  IF NEW.round_id IS DISTINCT FROM OLD.round_id AND EXISTS (SELECT 1 FROM runs_run WHERE entry_id = NEW.id) THEN
    RAISE EXCEPTION 'entry % has runs and cannot move to another round', NEW.id USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER leaderboard_entry_guard BEFORE UPDATE ON leaderboard_entry
  FOR EACH ROW EXECUTE FUNCTION leaderboard_entry_guard();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS runs_run_guard ON runs_run;
DROP FUNCTION IF EXISTS runs_run_guard();
DROP TRIGGER IF EXISTS leaderboard_entry_guard ON leaderboard_entry;
DROP FUNCTION IF EXISTS leaderboard_entry_guard();
"""

def _run(schema_editor, sql):
    # A plain cursor: the plpgsql bodies contain '%' placeholders of their own.
    if schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql)


def forward(apps, schema_editor):
    _run(schema_editor, PG_FORWARD)


def backward(apps, schema_editor):
    _run(schema_editor, PG_BACKWARD)


class Migration(migrations.Migration):
    dependencies = [("runs", "0001_initial"), ("leaderboard", "0001_initial")]
    operations = [migrations.RunPython(forward, backward)]
