"""Reads of the voting app: what can be voted on, what a matchup shows, and where a voter stands."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db.models import Prefetch, Q
from django.utils import timezone
from django.utils.text import slugify

from leaderboard.models import Benchmark, task_input
from runs.models import AppBuild, Evidence, EvidenceKind, Run, RunStatus, run_input
from scoring import checks as checks_rules

from .models import Held, Matchup, Vote, VoterFlag
from .pool import VotePool, vote_pool

# Matchup tokens are secrets.token_urlsafe; scopes are benchmark slugs and task keys (leaderboard key_validator).
TOKEN_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
SCOPE_RE = re.compile(r"[A-Za-z0-9_.-]{0,100}(/[A-Za-z0-9_.-]{1,100})?")


def is_token(value: str) -> bool:
    """Only token-shaped strings reach the database (a NUL byte in a query is a PostgreSQL error)."""
    return bool(TOKEN_RE.fullmatch(value or ""))


def scope_is_valid(scope: str) -> bool:
    return bool(SCOPE_RE.fullmatch(scope or ""))


def votable_benchmarks() -> list[Benchmark]:
    """Benchmarks open to votes: those whose agents build apps (the `checks` methodology) unless their params
    say `"votes": false`, and any other whose params say `"votes": true`."""
    return [b for b in Benchmark.objects.all() if (b.params or {}).get("votes", b.rules.votes_by_default) is True]


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


def _organization_id(voter) -> int | None:
    membership = getattr(voter, "membership", None) if voter.is_authenticated else None
    return membership.organization_id if membership else None


def drawable(runs):
    """The database part of the draw rules: runs of published rounds, not superseded by a re-run, that count,
    whose app did not fail to start."""
    return (
        runs.published()
        .filter(status__in=checks_rules.COUNTED, rerun__isnull=True)
        .exclude(status=RunStatus.NOT_STARTED)
        .exclude(app_started=False)
        .select_related("task__benchmark")
    )


def run_is_drawable(run: Run) -> bool:
    """The rest of the draw rules, on a run read through `drawable` and `with_previews`: on invent and
    startup tasks the checks admitted it (`scoring.checks.votable`), and it has something to show
    (`has_something_to_show`)."""
    return checks_rules.votable(run_input(run), task_input(run.task)) and has_something_to_show(run)


def drawable_runs(*, voter, task_ids: list[int], run_ids: list[int] | None = None) -> list[Run]:
    """The runs that may be shown to `voter`, read from the database: runs of published rounds, not superseded
    by a re-run, that count and whose app started (and, on invent and startup tasks, was admitted:
    `scoring.checks.votable`) and that have something to show (`has_something_to_show`), never of an agent of
    the voter's own organization. `run_ids` narrows it to those runs. Read with what the vote screen shows of
    them (`with_previews`, the task and its benchmark)."""
    runs = Run.objects.filter(task_id__in=task_ids)
    if run_ids is not None:
        runs = runs.filter(id__in=run_ids)
    runs = with_previews(drawable(runs))
    org_id = _organization_id(voter)
    if org_id is not None:
        runs = runs.exclude(entry__agent__organization_id=org_id)
    return [run for run in runs if run_is_drawable(run)]


def pool_runs(*, voter, task_ids: list[int], pool: VotePool) -> list[tuple[int, int, int]]:
    """`drawable_runs` read from the vote pool: (run id, task id, agent id), never of the voter's own
    organization."""
    wanted = set(task_ids)
    org_id = _organization_id(voter)
    return [
        (run.id, run.task_id, run.agent_id)
        for run in pool.runs
        if run.task_id in wanted and (org_id is None or run.organization_id != org_id)
    ]


@dataclass(frozen=True)
class ScopeChoice:
    value: str
    label: str


def vote_scopes(*, voter) -> list[tuple[str, list[ScopeChoice]]]:
    """The scope select: per votable benchmark, "any task" and each task with two agents to compare."""
    pool = vote_pool()
    agents: dict[int, set[int]] = {}
    all_tasks = [t.id for b in pool.benchmarks for t in b.tasks]
    for _, task_id, agent_id in pool_runs(voter=voter, task_ids=all_tasks, pool=pool):
        agents.setdefault(task_id, set()).add(agent_id)
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
    so a voter cannot reroll until a pair they like comes up)."""
    return Matchup.objects.open(now=now).filter(voter=voter, scope=scope).select_related("task__benchmark").first()


# --- previews -----------------------------------------------------------------------------------------------


def identifying_strings(run: Run) -> list[str]:
    """Strings that would name the run, its agent, model or vendor if they appeared on the vote page."""
    entry, agent = run.entry, run.entry.agent
    values = [run.key, agent.slug, agent.name, slugify(agent.name), entry.model, entry.cli, entry.product_version]
    if agent.organization_id:
        values += [agent.organization.name, agent.organization.slug]
    return [v.lower() for v in values if v and len(v) >= 3]


def url_is_opaque(url: str, run: Run) -> bool:
    """True when a URL names none of the run's identifying strings (nor its database id as a path part)."""
    low = url.lower()
    if any(s in low for s in identifying_strings(run)):
        return False
    return not re.search(rf"(^|[/=_.-]){run.pk}([/?&#=_.-]|$)", low.split("://", 1)[-1])


@dataclass(frozen=True)
class Shot:
    """One picture of a side: an uploaded file (streamed through the alias) or an external address that names
    nothing (redirected to). A screenshot at an address that names the agent is never shown."""

    kind: str  # "file" or "url"
    evidence: Evidence


def preview_shots(run: Run) -> list[Shot]:
    """The run's screenshots that can be shown blind (reads `run.evidence.all()`, so a prefetch serves it)."""
    shots: list[Shot] = []
    for ev in run.evidence.all():
        if ev.kind != EvidenceKind.SCREENSHOT:
            continue
        if ev.file:
            shots.append(Shot("file", ev))
        elif url_is_opaque(ev.url, run):
            shots.append(Shot("url", ev))
    return shots


def app_build_of(run: Run) -> AppBuild | None:
    try:
        return run.app_build
    except AppBuild.DoesNotExist:
        return None


def live_kind(run: Run) -> str:
    """What the side's frame shows: "build" (the run's static app, served sandboxed through the alias), "url"
    (an opaque preview address, redirected to through the alias) or "" (no live app)."""
    if app_build_of(run) is not None:
        return "build"
    if run.preview_url and url_is_opaque(run.preview_url, run):
        return "url"
    return ""


def has_something_to_show(run: Run) -> bool:
    """A run is drawn only with something a voter can look at: a build, an opaque preview address or at least
    one screenshot that can be shown blind."""
    return bool(live_kind(run)) or bool(preview_shots(run))


def with_previews(runs):
    """Runs with what `live_kind`, `preview_shots` and `identifying_strings` read, in a fixed number of queries."""
    return runs.select_related("entry__agent__organization", "round", "app_build").prefetch_related(
        Prefetch("evidence", queryset=Evidence.objects.filter(kind=EvidenceKind.SCREENSHOT).order_by("id"))
    )


@dataclass(frozen=True)
class Side:
    letter: str
    alias: str
    run: Run
    shot_count: int
    live: str  # live_kind(run)

    @property
    def shot_indexes(self) -> range:
        return range(self.shot_count)

    @property
    def has_live(self) -> bool:
        return bool(self.live)


def preview_origin() -> str:
    """Where app builds are served from: PREVIEW_ORIGIN (a separate origin) or this site ('')."""
    return settings.PREVIEW_ORIGIN


def matchup_sides(matchup: Matchup) -> list[Side]:
    if all(_read_with_previews(matchup, field) for field in ("run_a", "run_b")):
        runs = {matchup.run_a.pk: matchup.run_a, matchup.run_b.pk: matchup.run_b}  # a new draw's: already read
    else:
        runs = {r.pk: r for r in with_previews(Run.objects.filter(pk__in=[matchup.run_a_id, matchup.run_b_id]))}
    sides = []
    for letter, alias, run_id in (("A", matchup.alias_a, matchup.run_a_id), ("B", matchup.alias_b, matchup.run_b_id)):
        run = runs[run_id]
        sides.append(Side(letter, alias, run, len(preview_shots(run)), live_kind(run)))
    return sides


def _read_with_previews(matchup: Matchup, field: str) -> bool:
    """Whether the matchup holds that side's run as `with_previews` reads it (its screenshots prefetched)."""
    if not Matchup._meta.get_field(field).is_cached(matchup):
        return False
    return "evidence" in getattr(getattr(matchup, field), "_prefetched_objects_cache", {})


def matchup_for_alias(alias: str) -> tuple[Matchup | None, str | None]:
    if not is_token(alias):
        return None, None
    matchup = (
        Matchup.objects.select_related("task", "run_a__entry__agent__organization", "run_b__entry__agent__organization")
        .filter(Q(alias_a=alias) | Q(alias_b=alias))
        .first()
    )
    return matchup, (matchup.side_of(alias) if matchup else None)


def matchup_by_key(key: str) -> Matchup | None:
    if not is_token(key):
        return None
    return (
        Matchup.objects.select_related(
            "task__benchmark", "run_a__entry__agent__organization", "run_b__entry__agent__organization", "vote"
        )
        .filter(key=key)
        .first()
    )


# --- the voter ----------------------------------------------------------------------------------------------


def day_start(now: datetime) -> datetime:
    """The start of the UTC day: the daily cap counts votes cast since then."""
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def account_counts_from(user) -> datetime:
    """When a new account's votes start counting: sign-up + VOTE_NEW_ACCOUNT_DELAY_HOURS."""
    return user.date_joined + timedelta(hours=settings.VOTE_NEW_ACCOUNT_DELAY_HOURS)


@dataclass(frozen=True)
class VoterStatus:
    counts_from: datetime | None  # set while the account is too new for its votes to count
    flagged: bool
    counted_today: int
    daily_cap: int

    @property
    def over_cap(self) -> bool:
        return self.counted_today >= self.daily_cap


def voter_status(*, voter, now: datetime | None = None) -> VoterStatus:
    now = now or timezone.now()
    counts_from = account_counts_from(voter)
    today = Vote.objects.filter(voter=voter, cast_at__gte=day_start(now)).exclude(held=Held.DAILY_CAP).count()
    return VoterStatus(
        counts_from=counts_from if counts_from > now else None,
        flagged=VoterFlag.objects.active().filter(voter=voter).exists(),
        counted_today=today,
        daily_cap=settings.VOTE_DAILY_CAP,
    )
