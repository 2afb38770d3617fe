"""Full-text search over SearchEntry.text on PostgreSQL: a stored tsvector column kept by the database itself and
a GIN index on it (pages/search.py reads it; bench/bench_search.py measures it). Angle brackets are read as
spaces: PostgreSQL's parser would otherwise take "<script>alert(1)</script>" in an agent's output for a tag and
index none of its words. SQLite, the embedded default,
has neither: there the search falls back to matching each word (pages/search.py), and this migration does
nothing."""

from django.db import migrations

FORWARD = [
    "ALTER TABLE runs_searchentry ADD COLUMN search tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', translate(text, '<>', '  '))) STORED",
    "CREATE INDEX runs_searchentry_search ON runs_searchentry USING GIN (search)",
]
BACKWARD = ["DROP INDEX IF EXISTS runs_searchentry_search", "ALTER TABLE runs_searchentry DROP COLUMN IF EXISTS search"]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for sql in statements:
            schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("runs", "0005_transcripts_search")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
