from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bundles.importer import bundle_import
from bundles.management.files import read_json
from leaderboard.progress import progress
from scoring.bundle import BundleError


class Command(BaseCommand):
    help = "Validate a results bundle (JSON) and write it in one transaction; on bad input write nothing."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", help="bundle files (JSON)")
        parser.add_argument(
            "--update-shared-agents",
            action="store_true",
            help="confirm changes to agents, organizations, the benchmark's settings or tasks that published "
            "rounds read (without it such a bundle is refused); those rounds are recomputed and logged",
        )

    def handle(self, *args, **options):
        failed = False
        with progress("importing bundles", len(options["files"])) as advance:
            for name in options["files"]:
                failed |= self.import_one(name, update_shared=options["update_shared_agents"])
                advance(note=name)
        if failed:
            raise CommandError("some bundles were not imported")

    def import_one(self, name: str, *, update_shared: bool) -> bool:
        """Import one file; True when it was refused."""
        doc = read_json(name)
        try:
            report = bundle_import(doc=doc, folder=Path(name).parent, update_shared=update_shared)
        except BundleError as exc:
            self.stderr.write(f"{name}: {len(exc.problems)} problem(s), nothing written:")
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            return True
        self.stdout.write(f"{name}: {report.summary()}")
        return False
