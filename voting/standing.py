"""Where a voter stands, stored (`VoterStanding`): the votes the voter cast today (UTC) that count or will
count, whether an active flag holds the voter's votes, and whether the account's address is unconfirmed; the
voter's organization is read with it. Every vote applies the counting rules to it (`services.counting`) and
every vote screen shows it; counting the day's votes and looking the flag and the address up on each vote cost
more than the rest of the vote's statements together (bench/README.md, "Votes under load").

The row is kept in step with what it sums:

- a vote adds itself to the row first (`standing_take`, one update that also locks the row: one voter's votes
  wait for each other, so two cannot both pass the daily cap at cap - 1), reads the row with its matchup
  (`STANDING_OF_VOTER`, `standing_taken`) and, when the counting rules hold it for the cap or the address, takes
  itself back out (`standing_give_back`), all in its own transaction;
- a write that changes what the row sums (a flag raised or cleared, an address confirmed or changed, an editor's
  change to a vote, votes stored in bulk) retires the voter's row first in its own transaction
  (`standings_retire`): the account's row is locked and the standing deleted;
- a read that finds no row counts it afresh from the votes, the flags and the address and stores it, with the
  account's row locked: a recount and a retirement wait for each other, so a recount never stores a row from
  before a write that retired it.

A write outside these (a vote deleted in a shell) leaves the row behind until it is retired;
`manage.py voter_standings --check` lists every row that differs from a fresh count, and without `--check`
retires them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F
from django.db.models.functions import TruncDate

from .models import AccountAddress, Held, Vote, VoterFlag, VoterStanding
from .screens import voter_screens_retire

# What a voter's day leaves out: votes held for the cap or for the address never count, so they do not fill it.
NOT_IN_THE_DAY = (Held.DAILY_CAP, Held.UNCONFIRMED)
# Built once; each read and update filters a copy by the voter.
_rows = VoterStanding.objects.order_by()
_read_rows = _rows.values_list("day", "today", "flagged", "unconfirmed", "voter__membership__organization_id")
_locked_rows = _read_rows.select_for_update(of=("self",))


class StandingRow(NamedTuple):
    today: int  # the voter's votes cast on the day asked (UTC) that count or will count
    flagged: bool  # an active flag
    unconfirmed: bool  # the account's address is not confirmed (`services.addresses`)
    organization_id: int | None  # the voter's organization (its membership), read with the row
    stored_day: date  # the day the stored row counts


def day_of(now: datetime) -> date:
    return now.astimezone(UTC).date()


def _day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(), tzinfo=UTC)
    return start, start + timedelta(days=1)


def standing_read(*, voter_id: int, now: datetime, lock: bool = False) -> StandingRow:
    """Where the voter stands on `now`'s day (UTC), and the voter's organization, in one statement; with `lock`,
    the row stays locked until the caller's transaction ends. A missing row is counted afresh and stored."""
    row = _read(voter_id, lock)
    if row is None:
        with transaction.atomic():
            _store_counted(voter_id, day_of(now))
            row = _read(voter_id, lock)
    stored_day, *values = row
    standing = standing_of((*values, stored_day), voter_id=voter_id, now=now)
    assert standing is not None
    return standing


def standing_of(values: tuple, *, voter_id: int, now: datetime) -> StandingRow | None:
    """Where the voter stands on `now`'s day from `STANDING_OF_VOTER`'s values read with another row (the open
    pair: `queries.matchup_open`); None when the voter has no stored standing (`standing_read` then)."""
    today, flagged, unconfirmed, organization_id, stored_day = values
    if stored_day is None:
        return None
    day = day_of(now)
    if stored_day < day:
        today = 0
    elif stored_day > day:  # a clock behind the row's (a vote dated in the past): that day's own count
        today = _today_counted(voter_id, day)
    return StandingRow(today, flagged, unconfirmed, organization_id, stored_day)


def _read(voter_id: int, lock: bool) -> tuple | None:
    return next(iter((_locked_rows if lock else _read_rows).filter(pk=voter_id)), None)


# What a query whose `voter` is the voter reads of the voter's standing (the vote's claim reads it with the
# matchup: `queries.claim_target`), in `StandingRow`'s order without the count's day.
STANDING_OF_VOTER = {
    "standing_today": F("voter__vote_standing__today"),
    "standing_flagged": F("voter__vote_standing__flagged"),
    "standing_unconfirmed": F("voter__vote_standing__unconfirmed"),
    "standing_organization_id": F("voter__membership__organization_id"),
    "standing_day": F("voter__vote_standing__day"),
}


def standing_take(*, voter_id: int, now: datetime) -> bool:
    """Add a vote about to be cast to the voter's day, in one update that locks the row until the transaction
    ends (usually the first statement of the vote's; a missing row is counted afresh first). False when the row
    counts a day after `now`'s (a clock behind it, a vote dated in the past): the row is then locked, not
    changed, and `standing_taken` counts that day afresh."""
    day = day_of(now)
    for _attempt in range(2):
        if _rows.filter(pk=voter_id, day=day).update(today=F("today") + 1):
            return True
        if _rows.filter(pk=voter_id, day__lt=day).update(day=day, today=1):  # the voter's first vote of the day
            return True
        if _read(voter_id, lock=True) is not None:
            return False
        with transaction.atomic():
            _store_counted(voter_id, day)
    raise AssertionError("a standing stored in this transaction cannot be missing")


def standing_taken(values: tuple, *, taken: bool, voter_id: int, now: datetime) -> StandingRow:
    """Where the voter stood before the vote `standing_take` added, from the row read in the same transaction
    (`values`: `STANDING_OF_VOTER`'s)."""
    today, flagged, unconfirmed, organization_id, stored_day = values
    today = today - 1 if taken else _today_counted(voter_id, day_of(now))
    return StandingRow(today, flagged, unconfirmed, organization_id, stored_day)


def standing_give_back(*, voter_id: int) -> None:
    """Take a vote added by `standing_take` back out of the voter's day: the counting rules held it for the
    daily cap or the address, which leave it out of the day."""
    _rows.filter(pk=voter_id).update(today=F("today") - 1)


def _lock_accounts(voter_ids: list[int]) -> None:
    """Lock the accounts' rows (in id order) until the transaction ends, where the database has row locks. The
    lock leaves the key alone (FOR NO KEY UPDATE): a vote's insert, which holds the standing's row and checks its
    voter's key, does not wait for it (a deadlock with a retirement waiting for the standing's row otherwise)."""
    accounts = get_user_model().objects.select_for_update(no_key=True).filter(pk__in=voter_ids).order_by("pk")
    list(accounts.values_list("pk"))


def _store_counted(voter_id: int, day: date) -> None:
    _lock_accounts([voter_id])
    today = _today_counted(voter_id, day)
    flagged = VoterFlag.objects.active().filter(voter_id=voter_id).exists()
    unconfirmed = AccountAddress.objects.filter(user_id=voter_id, confirmed_at__isnull=True).exists()
    row = VoterStanding(voter_id=voter_id, day=day, today=today, flagged=flagged, unconfirmed=unconfirmed)
    VoterStanding.objects.bulk_create([row], ignore_conflicts=True)


def _today_counted(voter_id: int, day: date) -> int:
    start, end = _day_bounds(day)
    votes = Vote.objects.filter(voter_id=voter_id, cast_at__gte=start, cast_at__lt=end)
    return votes.exclude(held__in=NOT_IN_THE_DAY).count()


def standings_retire(voter_ids: Iterable[int | None]) -> None:
    """Retire the stored standing of these voters (None is skipped): call it first in the transaction of a write
    that changes what a standing sums, before the write. The accounts' rows stay locked until that transaction
    ends, so a read that counts the standing afresh sees the write."""
    ids = sorted({i for i in voter_ids if i is not None})
    if not ids:
        return
    with transaction.atomic():
        _lock_accounts(ids)
        VoterStanding.objects.filter(voter_id__in=ids).delete()
        voter_screens_retire(ids)  # their screens' notices, once the write commits


# --- checking ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StandingDifference:
    voter_id: int
    day: date
    stored: tuple[int, bool, bool]  # (today, flagged, unconfirmed)
    counted: tuple[int, bool, bool]

    def __str__(self) -> str:
        return (
            f"voter {self.voter_id} on {self.day}: stored (today, flagged, unconfirmed) {self.stored}, "
            f"counted {self.counted}"
        )


def standings_differences() -> list[StandingDifference]:
    """Every stored standing that differs from a fresh count (none when all is well): three grouped queries."""
    rows = VoterStanding.objects.values_list("voter_id", "day", "today", "flagged", "unconfirmed")
    stored = {v: (day, (n, f, u)) for v, day, n, f, u in rows}
    if not stored:
        return []
    first = min(day for day, _ in stored.values())
    per_day = (
        Vote.objects.filter(voter_id__in=list(stored), cast_at__gte=_day_bounds(first)[0])
        .exclude(held__in=NOT_IN_THE_DAY)
        .annotate(day=TruncDate("cast_at", tzinfo=UTC))
        .order_by()
        .values_list("voter_id", "day")
        .annotate(n=Count("id"))
    )
    counts = {(v, day): n for v, day, n in per_day}
    flagged = set(VoterFlag.objects.active().filter(voter_id__in=list(stored)).values_list("voter_id", flat=True))
    unconfirmed = set(
        AccountAddress.objects.filter(user_id__in=list(stored), confirmed_at__isnull=True).values_list(
            "user_id", flat=True
        )
    )
    out = []
    for voter_id, (day, row) in sorted(stored.items()):
        counted = (counts.get((voter_id, day), 0), voter_id in flagged, voter_id in unconfirmed)
        if counted != row:
            out.append(StandingDifference(voter_id, day, row, counted))
    return out


def standings_rebuild() -> list[StandingDifference]:
    """Retire every stored standing that differs from a fresh count (the next read counts it afresh); returns
    the differences found."""
    differences = standings_differences()
    standings_retire(d.voter_id for d in differences)
    return differences
