from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Benchmark
from submissions.models import Submission
from submissions.recheck import submission_recheck


class Command(BaseCommand):
    help = (
        "Check stored submissions again from the uploads kept as they were sent, by the checks the site runs today "
        "(a check added since they were taken may now fail). Each submission whose checks changed takes the new "
        "checks and its tier; its history and its round's changelog say so. Runs and figures stay as stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", help="only this benchmark's submissions (its slug)")
        parser.add_argument("--submission", type=int, action="append", default=[], help="only this one (repeatable)")
        parser.add_argument("--dry-run", action="store_true", help="say what would change, change nothing")

    def handle(self, *args, **options):
        subs = Submission.objects.select_related("benchmark", "round", "agent", "organization").order_by("id")
        if options["benchmark"]:
            if not Benchmark.objects.filter(slug=options["benchmark"]).exists():
                raise CommandError(f"no benchmark {options['benchmark']!r}")
            subs = subs.filter(benchmark__slug=options["benchmark"])
        if options["submission"]:
            subs = subs.filter(pk__in=options["submission"])
            missing = set(options["submission"]) - set(subs.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"no submission {', '.join(str(i) for i in sorted(missing))}")
        changed = 0
        for sub in subs:
            result = submission_recheck(sub, apply=not options["dry_run"])
            changed += bool(result.changes)
            self.stdout.write(str(result))
        verb = "would change" if options["dry_run"] else "changed"
        self.stdout.write(f"{subs.count()} submission(s) checked again, {changed} {verb}")
