from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from submissions.catalogue import TaskSetError, tau2_tasks_import


class Command(BaseCommand):
    help = (
        "Load a τ²-bench task set (its domain's tasks.json) as one task family of one version of a benchmark's "
        "task set (created when missing: scored, τ²'s success as its pass threshold). Each task is keyed "
        "{domain}-{id} and each version of it carries the task's fingerprint; the same file again changes "
        "nothing. In the current version a changed task gets a new major version; --version names another "
        "version of the set (an older release), which changes no task's current version."
    )

    def add_base_argument(self, parser, *args, **kwargs):
        # --version names the task set's version here, not Django's.
        if "--version" not in args:
            super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("path", help="τ²'s tasks.json of one domain")
        parser.add_argument("--benchmark", required=True, help="benchmark slug (created when missing)")
        parser.add_argument("--domain", required=True, help="the domain's name (the task family), e.g. airline")
        parser.add_argument(
            "--version",
            help="the task set's version, e.g. 2025-06-10 (default: the benchmark's current one; a new benchmark "
            "takes this one as current)",
        )
        parser.add_argument("--title", help="the benchmark's name on its pages, e.g. τ²-bench")

    def handle(self, *args, **options):
        try:
            report = tau2_tasks_import(
                data=Path(options["path"]).read_bytes(),
                benchmark=options["benchmark"],
                domain=options["domain"],
                version=options["version"],
                title=options["title"],
            )
        except (OSError, TaskSetError) as exc:
            raise CommandError(f"{options['path']}: {exc}") from exc
        self.stdout.write(
            f"{options['benchmark']} {options['domain']} (task set {report.version}): "
            f"{len(report.created)} tasks created, "
            f"{len(report.new_versions)} new versions, {report.unchanged} unchanged"
        )
