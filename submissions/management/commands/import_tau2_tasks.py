from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from submissions.catalogue import TaskSetError, tau2_tasks_import


class Command(BaseCommand):
    help = (
        "Load a τ²-bench task set (its domain's tasks.json) as one task family of a benchmark (created when "
        "missing: scored, τ²'s success as its pass threshold). Each task is keyed {domain}-{id} and its version "
        "carries the task's fingerprint; the same file again changes nothing, a changed task gets a new major "
        "version."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="τ²'s tasks.json of one domain")
        parser.add_argument("--benchmark", required=True, help="benchmark slug (created when missing)")
        parser.add_argument("--domain", required=True, help="the domain's name (the task family), e.g. airline")

    def handle(self, *args, **options):
        try:
            report = tau2_tasks_import(
                data=Path(options["path"]).read_bytes(), benchmark=options["benchmark"], domain=options["domain"]
            )
        except (OSError, TaskSetError) as exc:
            raise CommandError(f"{options['path']}: {exc}") from exc
        self.stdout.write(
            f"{options['benchmark']} {options['domain']}: {len(report.created)} tasks created, "
            f"{len(report.new_versions)} new versions, {report.unchanged} unchanged"
        )
