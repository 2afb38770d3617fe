"""A Terminal-Bench submission's recomputed at-least-one-of-k figures are named any-of-k, as on the boards: the
stored "pass@k" (k >= 2) becomes "any-of-k" and "pass@1", the same figure as "pass^1", goes. On this site pass@k
is seed 002's share of an agent's trials of a task that pass, one name for one figure. These figures are never
claimed (a Terminal-Bench claim is accuracy or its standard error), so no tier changes."""

import re

from django.db import migrations

OLD = re.compile(r"pass@(\d+)")


def _renamed(figures: list[dict]) -> list[dict]:
    kept, any_of = [], []
    for f in figures:
        m = OLD.fullmatch(f.get("name", ""))
        if m is None:
            kept.append(f)
        elif int(m.group(1)) >= 2:
            any_of.append({**f, "name": f"any-of-{m.group(1)}"})
    return kept + any_of


def _back(figures: list[dict]) -> list[dict]:
    out = []
    for f in figures:
        name = f.get("name", "")
        if name == "pass^1":
            out.append({**f, "name": "pass@1"})
        if name.startswith("any-of-"):
            out.append({**f, "name": "pass@" + name.removeprefix("any-of-")})
        else:
            out.append(f)
    return out


def forwards(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    for sub in Submission.objects.filter(format="tbench").only("pk", "figures"):
        renamed = _renamed(sub.figures or [])
        if renamed != sub.figures:
            Submission.objects.filter(pk=sub.pk).update(figures=renamed)


def backwards(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    for sub in Submission.objects.filter(format="tbench").only("pk", "figures"):
        Submission.objects.filter(pk=sub.pk).update(figures=_back(sub.figures or []))


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0004_format_registry"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
