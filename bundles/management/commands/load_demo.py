import json
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.files import File
from django.core.management.base import BaseCommand

from bundles.importer import bundle_import
from bundles.inspect_logs import InspectLogError, logs_to_bundle, read_logs
from leaderboard.groups import EDITORS, REVIEWERS, TESTERS, VENDORS
from leaderboard.models import Membership, Organization
from recompute.boards import snapshot_recompute, snapshots_sweep
from runs.models import Evidence
from snapshots.models import BoardSnapshot
from voting.services.addresses import addresses_fill

DEMO_BUNDLES = ["artb.json", "appbench.json", "weekly.json", "agentbench-live.json"]
# The fifth benchmark: a real Inspect eval log (the scripted quiz of tests/inspect_logs), published.
DEMO_INSPECT_LOG = "inspect-quiz.eval"
DEMO_PASSWORD = "demo-pass-2026"
# The host the demo bundles' evidence names, and the real file of each kind that stands in for it.
DEMO_MEDIA_HOST = "https://media.example.org/"
DEMO_EVIDENCE = {
    "recording": "recording.webm",
    "screenshot": "screenshot.png",
    "audio": "call.wav",
    "log": "timeline.txt",
}
DEMO_USERS = [
    # username, group, staff, organization name. The vendor's is Cirrus Labs, whose Nimbus Agent has runs in
    # ARTB's round in preview (fixtures/make_demo.py): the vendor has a preview to read and dispute.
    ("editor", EDITORS, True, None),
    ("tester", TESTERS, True, None),
    ("reviewer", REVIEWERS, True, None),
    ("reviewer2", REVIEWERS, True, None),
    ("vendor", VENDORS, False, "Cirrus Labs"),
]


class Command(BaseCommand):
    help = "Load the demo bundles in fixtures/, create demo accounts, and compute every board."

    def add_arguments(self, parser):
        parser.add_argument("--no-users", action="store_true", help="do not create the demo accounts")

    def handle(self, *args, **options):
        fixtures = Path(settings.BASE_DIR) / "fixtures"
        for name in DEMO_BUNDLES:
            path = fixtures / name
            if not path.exists():
                self.stderr.write(f"skipping {name}: not found")
                continue
            report = bundle_import(doc=json.loads(path.read_text(encoding="utf-8")), folder=path.parent)
            self.stdout.write(report.summary())
        self._demo_evidence(fixtures / "evidence")
        self._inspect(fixtures / DEMO_INSPECT_LOG)
        if not options["no_users"]:
            self._users()
        snapshots_sweep(older_than_seconds=0)
        for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
            snapshot_recompute(snapshot_id=snapshot_id)
        self.stdout.write(f"boards computed: {BoardSnapshot.objects.filter(stale=False).count()}")

    def _demo_evidence(self, folder: Path) -> None:
        """The demo bundles' evidence names a host that does not exist (media.example.org): every such link
        becomes a small real file of its kind (fixtures/evidence/: a 31-minute screen recording, as long as the
        marks on it, made by fixtures/make_recording.sh; a screenshot, a call's audio, a tester's timeline),
        stored once and served by the site like any evidence (inert, and only where its run may be seen). A
        stored copy that no longer matches its fixture is replaced. Run again, it changes nothing."""
        storage = Evidence._meta.get_field("file").storage
        names = {}
        for kind, filename in DEMO_EVIDENCE.items():
            name = f"evidence/demo/{filename}"
            if storage.exists(name) and storage.size(name) != (folder / filename).stat().st_size:
                storage.delete(name)
            if not storage.exists(name):
                with open(folder / filename, "rb") as f:
                    name = storage.save(name, File(f))
            names[kind] = name
        moved = 0
        for ev in Evidence.objects.filter(url__startswith=DEMO_MEDIA_HOST, kind__in=list(names)):
            if Evidence.objects.filter(
                run_id=ev.run_id, kind=ev.kind, caption=ev.caption, file=names[ev.kind]
            ).exists():
                ev.delete()  # a second load: the file is there already
                continue
            ev.url, ev.file = "", names[ev.kind]
            ev.save(update_fields=["url", "file"])
            moved += 1
        self.stdout.write(f"demo evidence: {moved} links to {DEMO_MEDIA_HOST} now files served by the site")

    def _inspect(self, path: Path) -> None:
        """The Inspect log as a published round of its own `scored` benchmark (needs the inspect extra)."""
        try:
            logs = read_logs([(path.name, path)])
        except InspectLogError as exc:
            self.stderr.write(f"skipping {path.name}: {exc}")
            return
        # The benchmark has no vendor window (preview_hours 0, as a team running its own evals sets it), and
        # its second round is a draft an editor can publish in the admin ("Publish"): the demo's one
        # publication left to finish.
        for key, name, status in (("2026-r1", "2026 round 1", "published"), ("2026-r2", "2026 round 2", "draft")):
            doc = logs_to_bundle(logs, benchmark="inspect-quiz", round_key=key).doc
            doc["benchmark"].update(
                name="Inspect quiz",
                description="Imported from an Inspect eval log (fixtures/inspect-quiz.eval).",
                params={"preview_hours": 0},
            )
            doc["rounds"][0].update(name=name, status=status)
            if status == "published":
                doc["rounds"][0]["published_at"] = "2026-03-02T12:00:00Z"
            self.stdout.write(bundle_import(doc=doc).summary())

    def _users(self) -> None:
        lines = []
        for name, group, staff, org_name in DEMO_USERS:
            # Site accounts sign in by email, and their username is that email (voting.views.accounts).
            username = f"{name}@example.org"
            user, created = User.objects.get_or_create(
                username=username, defaults={"email": username, "is_staff": staff}
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            user.groups.add(Group.objects.get(name=group))
            org = Organization.objects.filter(name=org_name).first() if org_name else None
            if org is not None:
                Membership.objects.update_or_create(user=user, defaults={"organization": org})
            lines.append(f"{username} ({group})")
        addresses_fill()  # each demo account holds its mailbox, confirmed, like an account staff made
        self.stdout.write(
            f"demo accounts (sign in with the email, on the site and in /admin/), password "
            f"{DEMO_PASSWORD!r}: " + ", ".join(lines)
        )
