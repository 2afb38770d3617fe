"""The guard on published task versions (migration 0004) names the task as well as the version in its refusal
("task t1 version 1.0 is published: ..."): an import answers with the guard's own words when no earlier check
foresaw the write (`bundles.importer.guard_refusal`), and "version 1.0" alone names no task. The rule is
unchanged: the function is migration 0004's with only its message replaced. PostgreSQL only, as before.
"""

import importlib

from django.db import migrations

frozen = importlib.import_module("leaderboard.migrations.0004_taskversion_frozen")

OLD_MESSAGE = """    RAISE EXCEPTION 'task version % is published: its wording is never edited in place; create a new version',
      NEW.version USING ERRCODE = '23514';"""
NEW_MESSAGE = """    RAISE EXCEPTION 'task % version % is published: its wording is never edited in place and it stays published; '
      'create a new version', (SELECT key FROM leaderboard_task WHERE id = NEW.task_id), NEW.version
      USING ERRCODE = '23514';"""

# The function alone (CREATE OR REPLACE), without 0004's CREATE TRIGGER, which stays as it is.
OLD_FUNCTION = frozen.PG_FORWARD.partition("CREATE TRIGGER")[0]
assert OLD_MESSAGE in OLD_FUNCTION
NEW_FUNCTION = OLD_FUNCTION.replace(OLD_MESSAGE, NEW_MESSAGE)


def forward(apps, schema_editor):
    frozen._run(schema_editor, NEW_FUNCTION)


def backward(apps, schema_editor):
    frozen._run(schema_editor, OLD_FUNCTION)


class Migration(migrations.Migration):
    dependencies = [("leaderboard", "0011_task_family")]
    operations = [migrations.RunPython(forward, backward)]
