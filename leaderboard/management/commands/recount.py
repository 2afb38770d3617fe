import gzip
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scoring.bundle import BundleError
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
        parser.add_argument("-o", "--output", help="write to this file instead of standard output")

    def handle(self, *args, **options):
        path = Path(options["bundle"])
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CommandError(f"{path}: no such file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: not valid JSON ({exc})") from None
        try:
            if options["votes"]:
                with _votes_lines(options["votes"]) as votes:
                    result = recount(doc, options["round_key"], votes_file=votes)
            else:
                result = recount(doc, options["round_key"])
        except BundleError as exc:
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{path}: {len(exc.problems)} problem(s); nothing recounted") from None
        text = json.dumps(result, indent=1, ensure_ascii=False)
        if options["output"]:
            Path(options["output"]).write_text(text + "\n", encoding="utf-8")
        else:
            sys.stdout.write(text + "\n")


@contextmanager
def _votes_lines(name: str) -> Iterator[Iterator[Any]]:
    """The votes file's lines, parsed one at a time (gzip or plain JSON lines); a line that is not JSON is
    passed on as its text, so it is reported ("not a JSON object") with its line number."""
    path = Path(name)
    if not path.exists():
        raise CommandError(f"{path}: no such file")
    with path.open("rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    with opener(path, "rt", encoding="utf-8") as fh:

        def lines() -> Iterator[Any]:
            for line in fh:
                if line.strip():
                    try:
                        yield json.loads(line)
                    except json.JSONDecodeError:
                        yield line

        yield lines()
