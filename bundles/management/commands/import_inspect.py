import json
import re
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bundles.inspect_import import inspect_import
from bundles.inspect_logs import InspectLogError, read_logs
from leaderboard.progress import progress
from scoring.bundle import BundleError
from scoring.types import KEY_PATTERN

AGENT_FROM_HELP = "what names the agent: the eval's model (default), its solver, or tag:NAME (a tag NAME=value)"


def agent_from(value: str) -> str:
    if value in ("model", "solver") or (value.startswith("tag:") and len(value) > 4):
        return value
    raise ValueError(value)


class Command(BaseCommand):
    help = (
        "Import Inspect eval logs (.eval or .json) into a `scored` benchmark's round: a task per sample, a trial "
        "per epoch, an entry per model. Creates the benchmark and the round (a draft) when missing; validates "
        "everything first and writes nothing on any problem. Importing the same logs again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("logs", nargs="+", help="Inspect log files (.eval or .json)")
        parser.add_argument("--benchmark", required=True, help="benchmark slug (created when missing)")
        parser.add_argument("--round", required=True, dest="round_key", help="round key (created as a draft)")
        parser.add_argument("--agent-from", default="model", type=agent_from, help=AGENT_FROM_HELP)
        parser.add_argument("--scorer", help="the scorer whose score counts when a log has several (default: first)")
        parser.add_argument(
            "--title", help="the benchmark's title, its board's heading (default: the slug, for a new benchmark)"
        )
        parser.add_argument("--description", help="one or two sentences shown under the title on its board")
        parser.add_argument("--dry-run", action="store_true", help="print the bundle the logs make; write nothing")

    def handle(self, *args, **options):
        for name in ("benchmark", "round_key"):
            if not re.match(KEY_PATTERN, options[name]) or len(options[name]) > 100:
                raise CommandError(
                    f"--{name.removesuffix('_key')}: {options[name]!r} is not a key (letters, digits, - _ .)"
                )
        paths = [Path(p) for p in options["logs"]]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise CommandError(f"no such file: {', '.join(missing)}")
        try:
            logs = self.read(paths)
            result = inspect_import(
                logs=logs,
                benchmark=options["benchmark"],
                round_key=options["round_key"],
                agent_from=options["agent_from"],
                scorer=options["scorer"],
                dry_run=options["dry_run"],
                title=options["title"] or None,
                description=options["description"],
            )
        except (InspectLogError, BundleError) as exc:
            for problem in exc.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{len(exc.problems)} problem(s); nothing was written") from None
        if result.report is None:
            self.stdout.write(json.dumps(result.doc, indent=1, ensure_ascii=False))
            return
        runs = len(result.doc["runs"])
        self.stdout.write(f"{len(logs)} log(s), {runs} run(s): {result.report.summary()}")
        if result.report.created.get("benchmarks") and not options["title"]:
            slug = options["benchmark"]
            self.stdout.write(
                f"The new benchmark is titled {slug!r}, its slug, with no description. Name it: run the same "
                f'command again with --title "..." --description "..." (the runs stay as they are), or edit it '
                "on the admin's Benchmarks page."
            )

    def read(self, paths: list[Path]) -> list:
        """Every log, one at a time (with progress: a log can take a while); every unreadable one reported."""
        logs, problems = [], []
        with progress("reading logs", len(paths)) as advance:
            for path in paths:
                try:
                    logs.extend(read_logs([(path.name, path)]))
                except InspectLogError as exc:
                    problems.extend(exc.problems)
                advance(note=path.name)
        if problems:
            raise InspectLogError(problems)
        return logs
