"""Compare each voter's stored standing (voting.standing) with a fresh count of the votes, flags and addresses:
`manage.py voter_standings` reports every difference and retires the rows that differ (the next read counts them
afresh); `--check` only reports (exit status 1 when there is any). After any sequence of the site's writes there
should be none."""

from django.core.management.base import BaseCommand, CommandError

from voting.standing import standings_differences, standings_rebuild


class Command(BaseCommand):
    help = "Compare the voters' stored standings with a fresh count, retiring those that differ."

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only report differences; change nothing")

    def handle(self, *args, check: bool = False, **options):
        differences = standings_differences() if check else standings_rebuild()
        for difference in differences:
            self.stdout.write(str(difference))
        if not differences:
            self.stdout.write("voter standings: no difference from a fresh count")
            return
        if check:
            raise CommandError(f"voter standings: {len(differences)} standing(s) differ from a fresh count")
        self.stdout.write(f"voter standings: retired {len(differences)} standing(s), counted afresh when next read")
