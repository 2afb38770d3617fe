import json
import sys

from django.core.management.base import BaseCommand, CommandError

from bundles.export import bundle_export
from bundles.votes_file import votes_file_chunks
from leaderboard.models import Benchmark
from leaderboard.progress import progress


class Command(BaseCommand):
    help = "Write a benchmark as a results bundle (published rounds only unless --all)."

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="benchmark slug (required when there are several)")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")
        parser.add_argument("--all", action="store_true", help="include draft and preview rounds")
        parser.add_argument(
            "--votes-file",
            help="write the votes to this file (gzip JSON lines, as /b/<benchmark>/download/votes.jsonl.gz, streamed: "
            "memory stays flat at millions of votes) and refer to it from the bundle instead of inlining them",
        )

    def handle(self, *args, **options):
        slug = options["benchmark"]
        if slug:
            benchmark = Benchmark.objects.filter(slug=slug).first()
            if benchmark is None:
                known = ", ".join(Benchmark.objects.values_list("slug", flat=True)) or "none"
                raise CommandError(f"no benchmark {slug!r} (known: {known})")
        else:
            benchmarks = list(Benchmark.objects.all()[:2])
            if len(benchmarks) != 1:
                known = ", ".join(Benchmark.objects.values_list("slug", flat=True)) or "none"
                raise CommandError(f"say which benchmark with --benchmark (known: {known})")
            benchmark = benchmarks[0]
        with progress(f"exporting {benchmark.slug}: read, write", 2) as advance:
            votes_path = options["votes_file"]
            if votes_path:
                doc = bundle_export(
                    benchmark=benchmark,
                    include_unpublished=options["all"],
                    votes_inline_limit=-1,
                    votes_file_url=votes_path,
                )
                with open(votes_path, "wb") as fh:
                    for piece in votes_file_chunks(benchmark, include_unpublished=options["all"]):
                        fh.write(piece)
            else:
                doc = bundle_export(benchmark=benchmark, include_unpublished=options["all"])
            advance(note=f"({len(doc['runs'])} runs)")
            text = json.dumps(doc, indent=1, ensure_ascii=False)
            advance()
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            self.stderr.write(f"wrote {options['output']}: {len(doc['runs'])} runs, {len(doc['votes'])} votes")
        else:
            sys.stdout.write(text + "\n")
