from django.core.management.base import BaseCommand, CommandError

from bundles.importer import bundle_import
from leaderboard.progress import progress
from runs.agentbench_live import ConversionError, convert_directory
from scoring.bundle import BundleError


class Command(BaseCommand):
    help = (
        "Import the AgentBench-Live task definitions and result files (as published, unedited) as a "
        "`scored` benchmark, one round per run session. Re-importing the same directory changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="folder holding tasks/ and results/")

    def handle(self, *args, **options):
        try:
            with progress("AgentBench-Live: convert, import", 2) as advance:
                doc = convert_directory(options["directory"])
                advance(note=f"({len(doc['runs'])} runs)")
                report = bundle_import(doc=doc)
                advance()
        except (ConversionError, BundleError) as exc:
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{len(exc.problems)} problem(s); nothing was written") from None
        except FileNotFoundError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(report.summary())
