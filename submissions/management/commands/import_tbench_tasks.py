from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from submissions.catalogue import TaskSetError, tbench_tasks_import


class Command(BaseCommand):
    help = (
        "Load a Terminal-Bench dataset's task ids and version as one task family (named for the dataset) of one "
        "version of a benchmark's task set (created when missing: scored, a trial passing when resolved): from a "
        "run's run_metadata.json or tb.lock, a list {dataset, version, task_ids}, or a bare JSON list of ids with "
        "--dataset and --version. The same ids again change nothing."
    )

    def add_base_argument(self, parser, *args, **kwargs):
        # --version names the dataset's version here, not Django's.
        if "--version" not in args:
            super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("path", help="run_metadata.json, tb.lock, or a list of task ids (JSON)")
        parser.add_argument("--benchmark", required=True, help="benchmark slug (created when missing)")
        parser.add_argument("--dataset", help="the dataset's name, e.g. terminal-bench-core (default: from the file)")
        parser.add_argument("--version", help="the dataset's version, e.g. 0.1.1 (default: from the file)")
        parser.add_argument("--title", help="the benchmark's name on its pages, e.g. Terminal-Bench")

    def handle(self, *args, **options):
        try:
            report = tbench_tasks_import(
                data=Path(options["path"]).read_bytes(),
                benchmark=options["benchmark"],
                title=options["title"],
                dataset=options["dataset"],
                version=options["version"],
            )
        except (OSError, TaskSetError) as exc:
            raise CommandError(f"{options['path']}: {exc}") from exc
        self.stdout.write(
            f"{options['benchmark']} (task set {report.version}): {len(report.created)} tasks created, "
            f"{report.unchanged} unchanged"
        )
