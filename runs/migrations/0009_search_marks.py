from django.db import migrations, models


def _at(seconds):
    hours, rest = divmod(int(round(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def index_marks(apps, schema_editor):
    """The marks of runs imported before marks were searchable, as `runs.services.search.notes_index` writes them."""
    Run = apps.get_model("runs", "Run")
    SearchEntry = apps.get_model("runs", "SearchEntry")
    entries = [
        SearchEntry(
            run_id=run_id, kind="mark", anchor=f"mark-{int(m['at_seconds'])}", text=f"{_at(m['at_seconds'])} {m['label']}"
        )
        for run_id, marks in Run.objects.exclude(marks=[]).values_list("id", "marks").iterator()
        for m in (marks if isinstance(marks, list) else [])
        if isinstance(m, dict) and m.get("label") and m.get("at_seconds") is not None
    ]
    SearchEntry.objects.filter(kind="mark").delete()
    SearchEntry.objects.bulk_create(entries, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0008_evidence_storage"),
    ]

    operations = [
        migrations.AlterField(
            model_name="searchentry",
            name="kind",
            field=models.CharField(
                choices=[("message", "Message"), ("judge", "Judge"), ("note", "Note"), ("mark", "Mark")], max_length=10
            ),
        ),
        migrations.RunPython(index_marks, migrations.RunPython.noop),
    ]
