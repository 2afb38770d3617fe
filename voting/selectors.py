"""Reads of the voting app: what can be voted on, what a matchup shows, and where a voter stands."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import EllipsisType

from django.conf import settings
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from leaderboard.roles import user_organization_id
from runs.models import Run

from . import queries
from .draw.rules import live_kind, preview_shots, with_previews
from .models import Matchup
from .pool import VotePool, vote_pool
from .standing import STANDING_OF_VOTER, standing_of, standing_read

# Matchup tokens are secrets.token_urlsafe; scopes are benchmark slugs and task keys (leaderboard key_validator).
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
SCOPE_RE = re.compile(r"[A-Za-z0-9_.-]{0,100}(/[A-Za-z0-9_.-]{1,100})?")


def is_token(value: str) -> bool:
    """Only token-shaped strings reach the database (a NUL byte in a query is a PostgreSQL error)."""
    return bool(TOKEN_RE.fullmatch(value or ""))


def scope_is_valid(scope: str) -> bool:
    return bool(SCOPE_RE.fullmatch(scope or ""))


def scope_tasks(scope: str, pool: VotePool | None = None) -> list[int]:
    """Task ids of a scope: '' (any task), 'benchmark' (any task of it) or 'benchmark/task'; none for a
    malformed scope. Read from the vote pool (`voting.pool`)."""
    if not scope_is_valid(scope):
        return []
    pool = pool or vote_pool()
    bench_slug, _, task_key = (scope or "").partition("/")
    return [
        task.id
        for bench in pool.benchmarks
        if not bench_slug or bench.slug == bench_slug
        for task in bench.tasks
        if not task_key or task.key == task_key
    ]


def pool_runs(
    *, voter, task_ids: list[int], pool: VotePool, organization_id: int | None | EllipsisType = ...
) -> list[tuple[int, int, int]]:
    """The runs that may be shown to `voter`, read from the vote pool: (run id, task id, agent id) of the runs
    that pass the draw rules (`drawable` and `run_is_drawable`), never of the voter's own organization
    (`organization_id` when the caller has read it with the voter's standing, else read here)."""
    org = user_organization_id(voter) if organization_id is ... else organization_id
    return [(run.id, run.task_id, run.agent_id) for run in pool.runs_of(task_ids, organization_id=org)]


@dataclass(frozen=True)
class ScopeChoice:
    value: str
    label: str


def vote_scopes(
    *, voter, pool: VotePool | None = None, organization_id: int | None | EllipsisType = ...
) -> list[tuple[str, list[ScopeChoice]]]:
    """The scope select: per votable benchmark, "any task" and each task with two agents to compare (worked out
    once per pool and organization: `VotePool.kept`)."""
    pool = pool or vote_pool()
    org = user_organization_id(voter) if organization_id is ... else organization_id
    return pool.kept(("scopes", org), lambda: _scopes(pool, org))


def _scopes(pool: VotePool, organization_id: int | None) -> list[tuple[str, list[ScopeChoice]]]:
    agents: dict[int, set[int]] = {}
    all_tasks = [t.id for b in pool.benchmarks for t in b.tasks]
    for run in pool.runs_of(all_tasks, organization_id=organization_id):
        agents.setdefault(run.task_id, set()).add(run.agent_id)
    groups = []
    for bench in pool.benchmarks:
        tasks = [t for t in bench.tasks if len(agents.get(t.id, ())) >= 2]
        if tasks:
            groups.append(
                (
                    bench.name,
                    [ScopeChoice(bench.slug, f"Any task of {bench.name}")]
                    + [ScopeChoice(f"{bench.slug}/{t.key}", t.title) for t in tasks],
                )
            )
    return groups


def matchup_open(*, voter, scope: str, now: datetime | None = None) -> Matchup | None:
    """The voter's latest unused, unexpired matchup for this scope (reloading the page shows the same pair,
    so a voter cannot reroll until a pair they like comes up). Its task is not read: the screen takes it from
    the vote pool (`screen_task`)."""
    return queries.matchup_open(voter_id=voter.pk, scope=scope, now=now or timezone.now())


@dataclass(frozen=True)
class Side:
    letter: str
    alias: str
    shot_count: int
    live: str  # live_kind(run)
    revealed: queries.RevealedRun | None = None  # set only once the vote is cast (`matchup_sides(reveal=...)`)
    run_url: str = ""  # the run's public page, with `revealed`

    @property
    def has_live(self) -> bool:
        return bool(self.live)

    @property
    def frame_src(self) -> str:
        """The address the side's frame loads: the app build through the alias (from PREVIEW_ORIGIN when set),
        or the alias's redirect to an opaque preview address."""
        if self.live == "build":
            return preview_origin() + reverse("vote_preview_app", args=[self.alias])
        return reverse("vote_preview_live", args=[self.alias])

    @property
    def shots(self) -> list[tuple[int, str]]:
        """(number, address) of each screenshot, served through the alias (the address of the first, reversed,
        with each one's index in place of its own: `vote/p/<alias>/<index>/`)."""
        if not self.shot_count:
            return []
        first = reverse("vote_preview_shot", args=[self.alias, 0])
        stem = first.removesuffix("0/")
        return [(i + 1, f"{stem}{i}/") for i in range(self.shot_count)]


def preview_origin() -> str:
    """Where app builds are served from: PREVIEW_ORIGIN (a separate origin) or this site ('')."""
    return settings.PREVIEW_ORIGIN


def matchup_sides(
    matchup: Matchup, *, reveal: queries.Reveal | None = None, pool: VotePool | None = None
) -> list[Side]:
    """The two sides of the screen: what each frame shows and how many screenshots, from the vote pool (no
    run is read; a run that has left the pool is read with `with_previews`), and with `reveal` (after the
    vote) who made each side and its run page."""
    pool = pool or vote_pool()
    pooled = {run_id: pool.run(run_id) for run_id in (matchup.run_a_id, matchup.run_b_id)}
    runs: dict[int, Run] = {}
    if not all(pooled.values()):
        runs = {r.pk: r for r in with_previews(Run.objects.filter(pk__in=[matchup.run_a_id, matchup.run_b_id]))}
    sides = []
    for letter, alias, run_id in (("A", matchup.alias_a, matchup.run_a_id), ("B", matchup.alias_b, matchup.run_b_id)):
        pooled_run = pooled[run_id]
        if pooled_run is not None:
            shots, live = pooled_run.shots, pooled_run.live
        else:
            shots, live = len(preview_shots(runs[run_id])), live_kind(runs[run_id])
        revealed = run_url = None
        if reveal is not None:
            revealed = reveal.side_a if letter == "A" else reveal.side_b
            run_url = reverse("run", args=[reveal.benchmark_slug, revealed.round_key, revealed.run_key])
        sides.append(Side(letter, alias, shots, live, revealed, run_url or ""))
    return sides


@dataclass(frozen=True)
class ScreenTask:
    """What the vote screen shows of the task: its benchmark, title, prompt and scenarios (current version)."""

    benchmark_name: str
    title: str
    prompt: str
    scenarios: tuple[str, ...]


def screen_task(matchup: Matchup, *, pool: VotePool | None = None) -> ScreenTask:
    """The matchup's task as the screen shows it: from the vote pool, or read when the task has left it."""
    pooled = (pool or vote_pool()).task(matchup.task_id)
    if pooled is not None:
        return ScreenTask(pooled.benchmark_name, pooled.title, pooled.prompt, pooled.scenarios)
    task = matchup.task
    version = task.current_version
    return ScreenTask(
        task.benchmark.name,
        task.title or task.key,
        version.prompt if version else "",
        tuple(version.scenarios or ()) if version else (),
    )


def matchup_for_alias(alias: str) -> tuple[Matchup | None, str | None]:
    if not is_token(alias):
        return None, None
    matchup = (
        Matchup.objects.select_related("task", "run_a__entry__agent__organization", "run_b__entry__agent__organization")
        .filter(Q(alias_a=alias) | Q(alias_b=alias))
        .first()
    )
    return matchup, (matchup.side_of(alias) if matchup else None)


def reveal_from_pool(matchup: Matchup, *, pool: VotePool, agent_ids: tuple[int, int]) -> queries.Reveal | None:
    """The matchup's reveal (without its vote) from the vote pool, when the pool still has both runs and their
    agents are the ones the database gives (`agent_ids`); None otherwise, and the caller reads it."""
    task, side_a, side_b = pool.task(matchup.task_id), pool.run(matchup.run_a_id), pool.run(matchup.run_b_id)
    if task is None or side_a is None or side_b is None or (side_a.agent_id, side_b.agent_id) != agent_ids:
        return None
    a, b = (
        queries.RevealedRun(r.id, r.key, r.round_key, r.agent_name, r.organization_name, r.model)
        for r in (side_a, side_b)
    )
    return queries.Reveal(matchup, task.benchmark_slug, a, b, None, "", None)


def matchup_reveal(key: str) -> queries.Reveal | None:
    """The matchup `key` with its vote and the names of both sides, in one statement (`queries.with_reveal`
    and the vote, a left join)."""
    if not is_token(key):
        return None
    matchup = (
        queries.with_reveal(Matchup.objects.filter(key=key))
        .annotate(
            reveal_vote_winner=F("vote__winner"),
            reveal_vote_held=F("vote__held"),
            reveal_vote_counts_from=F("vote__counts_from"),
        )
        .order_by()
        .first()
    )
    if matchup is None:
        return None
    return queries.reveal_of(
        matchup, (matchup.reveal_vote_winner, matchup.reveal_vote_held, matchup.reveal_vote_counts_from)
    )


# --- the voter ----------------------------------------------------------------------------------------------


def account_counts_from(user) -> datetime:
    """When a new account's votes start counting: sign-up + VOTE_NEW_ACCOUNT_DELAY_HOURS."""
    return user.date_joined + timedelta(hours=settings.VOTE_NEW_ACCOUNT_DELAY_HOURS)


@dataclass(frozen=True)
class VoterStatus:
    counts_from: datetime | None  # set while the account is too new for its votes to count
    flagged: bool
    counted_today: int
    daily_cap: int
    unconfirmed: bool = False  # the account's address is not confirmed: its votes do not count
    organization_id: int | None = None  # the voter's organization (never drawn), read with the standing

    @property
    def over_cap(self) -> bool:
        return self.counted_today >= self.daily_cap


def voter_status(*, voter, now: datetime | None = None, read_with: Matchup | None = None) -> VoterStatus:
    """Where the voter stands now (the screen's notice) and the voter's organization: from the standing read
    with the voter's open pair (`read_with`, `queries.matchup_open`), else read (`standing.standing_read`)."""
    now = now or timezone.now()
    counts_from = account_counts_from(voter)
    stored = None
    if read_with is not None:
        values = tuple(getattr(read_with, name) for name in STANDING_OF_VOTER)
        stored = standing_of(values, voter_id=voter.pk, now=now)
    stored = stored or standing_read(voter_id=voter.pk, now=now)
    today, flagged, unconfirmed, organization_id, _ = stored
    return VoterStatus(
        counts_from=counts_from if counts_from > now else None,
        flagged=flagged,
        counted_today=today,
        daily_cap=settings.VOTE_DAILY_CAP,
        unconfirmed=unconfirmed,
        organization_id=organization_id,
    )
