"""Recount the vote cells from the votes: `manage.py vote_cells` reports every difference and corrects it;
`--check` only reports (exit status 1 when there is any). After any sequence of writes there should be none."""

from django.core.management.base import BaseCommand, CommandError

from voting.cells import cells_differences, cells_rebuild


class Command(BaseCommand):
    help = "Rebuild the vote cells (counted votes per task, pair and outcome) from the votes, reporting differences."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only report differences; change nothing")

    def handle(self, *args, check: bool = False, **options):
        differences = cells_differences() if check else cells_rebuild()
        for difference in differences:
            self.stdout.write(str(difference))
        if not differences:
            self.stdout.write("vote cells: no difference from the votes")
            return
        if check:
            raise CommandError(f"vote cells: {len(differences)} cell(s) differ from the votes")
        self.stdout.write(f"vote cells: corrected {len(differences)} cell(s)")
