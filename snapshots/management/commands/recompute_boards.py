from django.core.management.base import BaseCommand

from leaderboard.progress import progress
from recompute.boards import snapshot_recompute, snapshots_sweep
from snapshots.models import BoardSnapshot


class Command(BaseCommand):
    help = "Recompute every board snapshot now, in this process (no worker needed)."

    def handle(self, *args, **options):
        snapshots_sweep(older_than_seconds=0)
        changed = 0
        ids = list(BoardSnapshot.objects.values_list("id", flat=True))
        with progress("recomputing boards", len(ids)) as advance:
            for snapshot_id in ids:
                changed += snapshot_recompute(snapshot_id=snapshot_id)
                advance()
        self.stdout.write(f"{len(ids)} snapshots, {changed} changed")
