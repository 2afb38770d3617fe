from django.core.management.base import BaseCommand, CommandError

from leaderboard.models import Benchmark
from submissions import formats
from submissions.catalogue import COMMUNITY_ROUND, track_open


class Command(BaseCommand):
    help = (
        "Open a benchmark's submission track on a round: a new round is the published "
        '"Community submissions" round, its task set frozen to the chosen families\' tasks.'
    )

    def add_arguments(self, parser):
        parser.add_argument("--benchmark", required=True)
        parser.add_argument("--round", default=COMMUNITY_ROUND, dest="round_key")
        parser.add_argument("--families", default="", help="comma-separated task families (default: every task)")
        parser.add_argument("--trials-min", type=int, default=1)
        parser.add_argument(
            "--accept-older-versions", action="store_true", help="take runs of any version of the task set it holds"
        )
        parser.add_argument(
            "--formats",
            default="",
            help="comma-separated formats the track takes, e.g. tau2,bundle,inspect (default: every format the site "
            "reads)",
        )
        parser.add_argument(
            "--task-set-versions",
            default="",
            help="comma-separated versions of the task set taken besides the round's own, e.g. 2025-06-10",
        )

    def handle(self, *args, **options):
        bench = Benchmark.objects.filter(slug=options["benchmark"]).first()
        if bench is None:
            raise CommandError(f"no benchmark {options['benchmark']!r}")
        families = [f.strip() for f in options["families"].split(",") if f.strip()] or None
        versions = [v.strip() for v in options["task_set_versions"].split(",") if v.strip()]
        held = set(bench.task_sets.values_list("version", flat=True)) | {bench.task_set_version}
        unknown = [v for v in versions if v not in held]
        if unknown:
            raise CommandError(f"{bench.slug} holds no task set {', '.join(unknown)} (import_tau2_tasks --version)")
        taken = [f.strip() for f in options["formats"].split(",") if f.strip()]
        unknown = [f for f in taken if f not in formats.REGISTRY]
        if unknown:
            raise CommandError(f"no format {', '.join(unknown)} (the site reads {', '.join(formats.REGISTRY)})")
        track = track_open(
            benchmark=bench,
            round_key=options["round_key"],
            families=families,
            trials_min=options["trials_min"],
            accept_older_versions=options["accept_older_versions"],
            task_set_versions=versions,
            formats=taken,
        )
        self.stdout.write(
            f"{bench.slug}: track open on round {track.round.key} ({len(track.round.task_keys)} tasks of task set "
            f"{track.round.task_set_version})"
        )
