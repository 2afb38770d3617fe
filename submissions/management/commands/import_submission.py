import io
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from leaderboard.models import Benchmark
from pages.submissions import figure_rows
from submissions import formats
from submissions.files import folder_files, of_folder, zip_files, zipped
from submissions.joining import organization_named
from submissions.reading import SubmissionRefused
from submissions.services import Upload, submit


class Command(BaseCommand):
    help = (
        "Take a submission from an outside team into a benchmark's open submission track: a folder or its zip, or "
        "files, in any format the site reads (told by its files: "
        + "; ".join(f"{label}" for _, label in formats.choices())
        + "). Its checks, claimed and recomputed figures and tier are printed; a refused one writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="+", help="a folder or its zip, or files (a bundle, Inspect logs)")
        parser.add_argument("--benchmark", required=True)
        parser.add_argument(
            "--organization",
            required=True,
            help="the submitting organization: its slug or name (one that looks like it is the same one); made when "
            "there is none, as an approved join request makes it",
        )
        parser.add_argument("--agent", help="the agent's slug (default: from --agent-name)")
        parser.add_argument("--agent-name", help="a new agent's name on the boards (default: model_name)")
        parser.add_argument("--round", dest="round_key", help="the track's round (default: the newest open one)")
        parser.add_argument(
            "--claim",
            action="append",
            default=[],
            metavar="NAME=NUMBER",
            help='a figure claimed, as published (e.g. --claim accuracy=0.505 --claim "accuracy stderr=0.0135"), over '
            "what the files claim",
        )

    def handle(self, *args, **options):
        bench = Benchmark.objects.filter(slug=options["benchmark"]).first()
        if bench is None:
            raise CommandError("no such benchmark")
        try:
            upload = _upload([Path(p) for p in options["path"]])
            upload.claims = _claims(options["claim"])
            with transaction.atomic():  # a refused submission leaves no organization made for it either
                sub = submit(
                    benchmark=bench,
                    organization=organization_named(options["organization"]),
                    upload=upload,
                    via="command",
                    agent=options["agent"],
                    agent_name=options["agent_name"],
                    round_key=options["round_key"],
                )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        except (OSError, SubmissionRefused) as exc:
            problems = getattr(exc, "problems", [str(exc)])
            raise CommandError("refused, nothing written:\n  " + "\n  ".join(problems)) from exc
        self.stdout.write(f"submission {sub.pk}: {sub.agent.slug} in {sub.round.key}, {sub.tier}")
        for c in sub.checks:
            self.stdout.write(f"  {'pass' if c['passed'] else 'FAIL'} {c['name']}: {c['detail']}")
        if sub.platform_failures_said:
            self.stdout.write(f"  {sub.platform_failures_said}")
        for f in figure_rows(sub):  # rounded as the submission's page gives them
            if f["verdict"] == "not claimed":
                self.stdout.write(f"  {f['name']}: recomputed {f['recomputed']} (not claimed)")
                continue
            verdict = {"agrees": "agrees", "differs": "DIFFERS"}.get(f["verdict"], f["verdict"])
            self.stdout.write(f"  {f['name']}: claimed {f['claimed']}, recomputed {f['recomputed']}: {verdict}")


def _upload(paths: list[Path]) -> Upload:
    """The files sent and their format, told by the files (`submissions.formats.recognised`)."""
    first = paths[0]
    if first.is_dir():
        fmt, files = of_folder(folder_files(first))
        return Upload(fmt.key, files, zipped(files), counted=True)
    if first.suffix == ".zip":
        data = first.read_bytes()
        fmt, files = of_folder(zip_files(io.BytesIO(data)))
        return Upload(fmt.key, files, data, counted=True)
    files = {p.name: p.read_bytes() for p in paths}
    return Upload(formats.recognised(files, folder=False).key, files, None)


def _claims(given: list[str]) -> dict[str, str]:
    pairs = [item.partition("=") for item in given]
    bad = [item for item, (_, eq, value) in zip(given, pairs, strict=True) if not eq or not value.strip()]
    if bad:
        raise SubmissionRefused([f"--claim {b!r}: NAME=NUMBER, e.g. accuracy=0.505" for b in bad])
    return {name.strip(): value.strip() for name, _, value in pairs}
