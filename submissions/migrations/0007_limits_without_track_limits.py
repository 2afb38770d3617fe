"""A bundle's or an Inspect log's submission was flagged by the limits check although its track reads no limits
for those formats (only a τ² submission's runs carry `info.max_steps`/`max_errors`): the check now passes for a
track without limits ("the track sets no limits", `scoring.submission_checks.limits_respected`). This gives the
submissions stored before the same answer: their failed limits check passes, a live one's tier is worked out
again from its checks (`scoring.tiers.tier`) and copied to its entry, and its round's boards turn stale, so the
sweep recounts them."""

from django.db import migrations
from django.utils import timezone

# The formats whose track reads no limits when this was written (every format but τ²'s own, which reads them;
# Terminal-Bench runs have checks of their own, without this one).
NO_LIMITS = ("bundle", "inspect")
PASSED = "the track sets no limits"


def _limits_passed(apps, schema_editor):
    from scoring.tiers import tier

    Submission = apps.get_model("submissions", "Submission")
    Entry = apps.get_model("leaderboard", "Entry")
    BoardSnapshot = apps.get_model("snapshots", "BoardSnapshot")
    rounds = set()
    for sub in Submission.objects.filter(format__in=NO_LIMITS).iterator():
        checks = [dict(c) for c in sub.checks or []]
        changed = False
        for c in checks:
            if c.get("name") == "limits_respected" and not c.get("passed"):
                c.update(passed=True, detail=PASSED)
                changed = True
        if not changed:
            continue
        sub.checks = checks
        fields = ["checks"]
        if sub.status == "live":
            sub.tier = tier(
                checks,
                sub.figures or [],
                flagged=bool(sub.flag_reason),
                verified=bool(sub.verified_note),
                acknowledged=bool(sub.disclosure_note),
            )
            fields.append("tier")
            Entry.objects.filter(round_id=sub.round_id, agent_id=sub.agent_id).update(tier=sub.tier)
            rounds.add(sub.round_id)
        sub.save(update_fields=fields)
    if rounds:
        BoardSnapshot.objects.filter(round_id__in=rounds, kind="boards").update(stale=True, stale_since=timezone.now())


class Migration(migrations.Migration):
    dependencies = [
        ("submissions", "0006_platform_failures"),
        ("leaderboard", "0017_account_names"),
        ("snapshots", "0002_label_snapshots"),
    ]

    operations = [migrations.RunPython(_limits_passed, migrations.RunPython.noop)]
