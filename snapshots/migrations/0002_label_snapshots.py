"""The app's label is "snapshots" (it was "scoring", the name of the pure scoring package beside it): the
snapshot table takes the label's name and the content type moves with it, so the permissions given on
board snapshots (the Editors' group) and the admin's history keep pointing at them."""

from django.db import migrations


def _content_type_move(apps, old: str, new: str) -> None:
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=new, model="boardsnapshot").exists():
        ContentType.objects.filter(app_label=old, model="boardsnapshot").update(app_label=new)


def forward(apps, schema_editor):
    _content_type_move(apps, "scoring", "snapshots")


def backward(apps, schema_editor):
    _content_type_move(apps, "snapshots", "scoring")


class Migration(migrations.Migration):
    dependencies = [
        ("snapshots", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [
        migrations.AlterModelTable(name="boardsnapshot", table=None),
        migrations.RunPython(forward, backward),
    ]
