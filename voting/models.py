"""Blind pairwise votes between two agents' apps for one task, and the matchups they are cast on."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from leaderboard.models import Entry, Task, in_published_round, task_in_published_round


class Winner(models.TextChoices):
    A = "a", "A is better"
    B = "b", "B is better"
    TIE = "tie", "Tie"


class Held(models.TextChoices):
    """Why a stored vote does not count (blank: it counts)."""

    NONE = "", "counts"
    NEW_ACCOUNT = "new-account", "new account (counts later)"
    DAILY_CAP = "daily-cap", "over the daily cap"
    FLAGGED = "flagged", "voter flagged"
    UNCONFIRMED = "unconfirmed", "address not confirmed"


class MatchupQuerySet(models.QuerySet):
    def open(self, *, now=None) -> MatchupQuerySet:
        return self.filter(used_at__isnull=True, expires_at__gt=now or timezone.now())


class Matchup(models.Model):
    """Two runs of one task shown to one voter as "A" and "B".

    The page only ever holds the three random tokens: `key` (the vote is cast on it, once) and `alias_a` /
    `alias_b` (the previews are served through them, to the issuing voter, until the matchup expires). None
    of them is derived from the runs, so nothing on the page names a run before the vote.
    """

    key = models.CharField(max_length=64, unique=True)
    alias_a = models.CharField(max_length=64, unique=True)
    alias_b = models.CharField(max_length=64, unique=True)
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="matchups")
    task = models.ForeignKey("leaderboard.Task", on_delete=models.CASCADE, related_name="matchups")
    run_a = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="+")
    run_b = models.ForeignKey("runs.Run", on_delete=models.CASCADE, related_name="+")
    scope = models.CharField(
        max_length=250, blank=True, help_text="What the voter picked: '', a benchmark slug, or 'benchmark/task'."
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    objects = MatchupQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(run_a=F("run_b")), name="matchup_two_different_runs"),
            models.CheckConstraint(condition=Q(expires_at__gt=F("created_at")), name="matchup_expires_after_created"),
        ]
        indexes = [models.Index(fields=["voter", "used_at", "expires_at"])]

    def __str__(self) -> str:
        return f"matchup {self.pk} on {self.task_id}"

    def side_of(self, alias: str) -> str | None:
        if alias == self.alias_a:
            return "a"
        if alias == self.alias_b:
            return "b"
        return None


def new_vote_key() -> str:
    """A site vote's identity in bundles: random, so it says nothing about the voter or the matchup."""
    return f"v-{secrets.token_hex(8)}"


def _published_entry(side: str) -> models.Exists:
    """The agent in field `side` has an entry in a published round of the row's task's benchmark."""
    return models.Exists(
        Entry.objects.filter(
            in_published_round(), agent=models.OuterRef(side), round__benchmark=models.OuterRef("task__benchmark")
        )
    )


class VoteQuerySet(models.QuerySet):
    def public(self) -> VoteQuerySet:
        """Votes between two public agents of the vote's benchmark (each with an entry in one of its published
        rounds) on a public task (one a published round holds). A vote naming an agent or a task that is not
        public yet is stored and counted for the team's own fit (`export_bundle --all` then `recount`), but no
        public rating, download, API or page shows it."""
        return self.filter(_published_entry("agent_a"), _published_entry("agent_b"), task_in_published_round("task"))

    def public_of(self, benchmark_id: int) -> VoteQuerySet:
        """`public()` for the votes of one benchmark, with its public agents read once (a short list) instead
        of a lookup per vote: what a scan of millions of votes uses."""
        agents = list(
            Entry.objects.filter(in_published_round(), round__benchmark_id=benchmark_id)
            .values_list("agent_id", flat=True)
            .distinct()
        )
        tasks = list(Task.objects.public().filter(benchmark_id=benchmark_id).values_list("id", flat=True))
        return self.filter(task_id__in=tasks, agent_a_id__in=agents, agent_b_id__in=agents)


class Vote(models.Model):
    """One vote. `counts` is decided when it is cast (a new account's vote is stored but does not count
    until the account is old enough; a flagged voter's votes stop counting until an editor clears them);
    `held` says why a vote does not count, so the rules can be re-applied later."""

    key = models.CharField(
        max_length=100,
        default=new_vote_key,
        help_text="The vote's identity in bundles (`votes[].id`), kept on import and export.",
    )
    task = models.ForeignKey("leaderboard.Task", on_delete=models.CASCADE, related_name="votes")
    agent_a = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    agent_b = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    run_a = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    run_b = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    winner = models.CharField(max_length=3, choices=Winner.choices)
    voter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="votes"
    )
    voter_label = models.CharField(max_length=100, blank=True, help_text="A stable pseudonym, never the account.")
    cast_at = models.DateTimeField(default=timezone.now)
    counts = models.BooleanField(default=True)
    held = models.CharField(max_length=20, choices=Held.choices, blank=True, default=Held.NONE)
    counts_from = models.DateTimeField(
        null=True, blank=True, help_text="A new account's vote starts counting at this time."
    )
    matchup = models.OneToOneField(Matchup, null=True, blank=True, on_delete=models.SET_NULL, related_name="vote")

    objects = VoteQuerySet.as_manager()

    class Meta:
        ordering = ["cast_at", "id"]
        constraints = [
            models.CheckConstraint(condition=~Q(agent_a=F("agent_b")), name="vote_two_different_agents"),
            # One stored row per bundle vote id: a re-import finds the row instead of adding a copy.
            models.UniqueConstraint(fields=["task", "key"], name="vote_key_unique_per_task"),
            models.CheckConstraint(condition=Q(winner__in=["a", "b", "tie"]), name="vote_winner_valid"),
            models.CheckConstraint(condition=Q(held__in=[h.value for h in Held]), name="vote_held_valid"),
            # A held vote never counts (a counting vote may have held="" only).
            models.CheckConstraint(condition=Q(held="") | Q(counts=False), name="vote_held_does_not_count"),
        ]
        indexes = [
            models.Index(fields=["task", "counts"]),
            models.Index(fields=["voter", "cast_at"]),
            models.Index(fields=["held", "counts_from"]),
            # The pairs a voter has voted on in a task (`queries.voter_pairs`, read by every draw on an invent or
            # startup task), read from the index alone however many votes the voter has.
            models.Index(fields=["voter", "task", "agent_a", "agent_b"], name="vote_voter_pairs"),
        ]

    def __str__(self) -> str:
        return f"{self.agent_a} vs {self.agent_b}: {self.winner}"


class AccountAddress(models.Model):
    """An account's email address as the site checks it (`voting.services.addresses`): the key of its mailbox
    (`skeleton`: `voting.mailbox.mailbox_key`, one account per mailbox however its address is written), when its
    owner proved the mailbox theirs by the link mailed at sign-up (`confirmed_at`), and that link's token (only
    its digest) with the address it was sent to. A vote of an account whose address is unconfirmed never counts.
    Sign-up, the admin and `load_demo` make the row; an account made elsewhere (`createsuperuser`) gets its row,
    confirmed, the next time someone signs up; until then it has none, and counts as confirmed."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="account_address"
    )
    # Null for an account made before the check whose key an older account already had.
    skeleton = models.CharField(max_length=600, unique=True, null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    link_digest = models.CharField(max_length=64, unique=True, null=True, blank=True, editable=False)
    link_address = models.CharField(max_length=254, blank=True, default="", editable=False)
    link_sent_at = models.DateTimeField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"{self.user} ({'confirmed' if self.confirmed_at else 'unconfirmed'})"


class VoterStanding(models.Model):
    """Where a voter stands, stored so that a vote reads it instead of counting it (`voting.standing`): the
    votes the voter cast on `day` (UTC) that count or will count (not held for the daily cap or the address),
    whether an active flag holds the voter's votes, and whether the account's address is unconfirmed.

    A vote adds itself in its own transaction; every other write that changes what the row sums (a flag raised
    or cleared, an address confirmed, an editor's change to a vote, votes stored in bulk) deletes the row, and
    the next read counts it afresh. `manage.py voter_standings --check` compares the rows with a fresh count."""

    voter = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="vote_standing"
    )
    day = models.DateField(help_text="The UTC day `today` counts.")
    today = models.PositiveIntegerField(default=0)
    flagged = models.BooleanField(default=False)
    unconfirmed = models.BooleanField(default=False)

    class Meta:
        db_table = "voting_voter_standing"

    def __str__(self) -> str:
        return f"{self.voter_id} on {self.day}: {self.today}"


class VoterFlagQuerySet(models.QuerySet):
    def active(self) -> VoterFlagQuerySet:
        return self.filter(cleared_at__isnull=True)


class VoterFlag(models.Model):
    """A voter whose choices disagree with the fitted ratings far beyond chance. While the flag is active
    (not cleared) the voter's votes do not count; an editor clears it in the admin."""

    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vote_flags")
    benchmark = models.ForeignKey(
        "leaderboard.Benchmark", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_votes = models.PositiveIntegerField(help_text="The voter's non-tie votes compared with the fit.")
    agreed = models.PositiveIntegerField(help_text="How many of them picked the fit's predicted winner.")
    p_value = models.FloatField(help_text="P(agreeing this rarely or less) for a voter at chance (one-sided).")
    flagged_at = models.DateTimeField(default=timezone.now)
    cleared_at = models.DateTimeField(null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    objects = VoterFlagQuerySet.as_manager()

    class Meta:
        ordering = ["-flagged_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["voter"], condition=Q(cleared_at__isnull=True), name="voter_flag_one_active_per_voter"
            ),
            models.CheckConstraint(condition=Q(agreed__lte=F("decided_votes")), name="voter_flag_agreed_le_votes"),
        ]

    def __str__(self) -> str:
        return f"{self.voter} flagged {self.flagged_at:%Y-%m-%d}"

    @property
    def is_active(self) -> bool:
        return self.cleared_at is None


class Outcome(models.TextChoices):
    """A vote's outcome seen from a vote cell's fixed order of the two agents."""

    LO = "lo", "the agent with the lower id won"
    HI = "hi", "the agent with the higher id won"
    TIE = "tie", "tie"


class VoteCellQuerySet(models.QuerySet):
    def public(self) -> VoteCellQuerySet:
        """Cells between two public agents on a public task: exactly the counted `Vote.objects.public()` votes,
        tallied."""
        return self.filter(_published_entry("agent_lo"), _published_entry("agent_hi"), task_in_published_round("task"))


class VoteCell(models.Model):
    """How many counted votes one task has for one pair of agents and one outcome.

    The pair is stored in a fixed order (`agent_lo` has the lower id), so the vote (x, y, "a") and the vote
    (y, x, "b") land in the same cell. Cells change in the same transaction as the votes they count
    (voting.cells), which is what lets ratings be fitted, and digested, from a few hundred rows whatever
    the number of votes. `manage.py vote_cells --check` recounts them from the votes."""

    task = models.ForeignKey("leaderboard.Task", on_delete=models.CASCADE, related_name="vote_cells")
    agent_lo = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    agent_hi = models.ForeignKey("leaderboard.Agent", on_delete=models.CASCADE, related_name="+")
    outcome = models.CharField(max_length=3, choices=Outcome.choices)
    n = models.PositiveBigIntegerField(default=0)

    objects = VoteCellQuerySet.as_manager()

    class Meta:
        db_table = "voting_vote_cell"
        ordering = ["task", "agent_lo", "agent_hi", "outcome"]
        constraints = [
            models.UniqueConstraint(fields=["task", "agent_lo", "agent_hi", "outcome"], name="vote_cell_unique"),
            models.CheckConstraint(condition=Q(agent_lo__lt=F("agent_hi")), name="vote_cell_pair_in_order"),
            models.CheckConstraint(condition=Q(outcome__in=["lo", "hi", "tie"]), name="vote_cell_outcome_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.task_id}: {self.agent_lo_id} vs {self.agent_hi_id} {self.outcome} x{self.n}"
