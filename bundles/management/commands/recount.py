import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bundles.management.files import read_json, read_line_blocks
from scoring.bundle import BundleError
from scoring.readings import parse_readings, questions_of
from scoring.recount import recount


class Command(BaseCommand):
    help = (
        "Compute every board of a downloaded bundle with no database and print JSON: the way anyone can "
        "check a published board."
    )
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument(
            "bundle", help="a bundle file (JSON), e.g. a download of /b/<benchmark>/download/bundle.json"
        )
        parser.add_argument("--round", dest="round_key", help="only this round")
        parser.add_argument(
            "--votes", help="the bundle's votes file (votes.jsonl.gz), for a bundle whose votes are not inlined"
        )
        parser.add_argument(
            "--reading",
            action="append",
            default=[],
            metavar="ID=VALUE",
            help="compute the boards under another reading of one of the methodology's open questions (repeatable; "
            "docs/readings.md lists them, e.g. infra-error=zero)",
        )
        parser.add_argument(
            "--all-readings",
            action="store_true",
            help="also compute every round's boards under each other reading, alone and all together",
        )
        parser.add_argument("-o", "--output", help="write to this file instead of standard output")

    def handle(self, *args, **options):
        path = Path(options["bundle"])
        doc = read_json(path)
        readings = self._readings(doc, options["reading"], options["all_readings"])
        try:
            votes = read_line_blocks(options["votes"]) if options["votes"] else None
            result = recount(
                doc, options["round_key"], votes_file=votes, readings=readings, all_readings=options["all_readings"]
            )
        except BundleError as exc:
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{path}: {len(exc.problems)} problem(s); nothing recounted") from None
        text = json.dumps(result, indent=1, ensure_ascii=False)
        if options["output"]:
            Path(options["output"]).write_text(text + "\n", encoding="utf-8")
        else:
            sys.stdout.write(text + "\n")

    def _readings(self, doc, pairs, all_readings):
        """The readings asked for, each an open question of the bundle's methodology (`scoring.readings`)."""
        bench = doc.get("benchmark") if isinstance(doc, dict) else None
        methodology = str(bench.get("methodology") or "") if isinstance(bench, dict) else ""
        if pairs and all_readings:
            raise CommandError("--reading and --all-readings: give one or the other")
        if all_readings and not questions_of(methodology):
            raise CommandError(f"--all-readings: the {methodology or 'unknown'} methodology has no open questions")
        try:
            return parse_readings(pairs, methodology)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
