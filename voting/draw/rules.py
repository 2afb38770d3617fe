"""Which runs a vote screen may draw, and what each shows blind: the draw rules, in one place.

The vote pool (`voting.pool`) reads them to work out the drawable runs once; a draw checks its two picked runs
with `drawable_run_ids`; the pages and the admin read `live_kind` and `preview_shots`. What a methodology lets a
vote draw is a field of its registry entry (`scoring.methodologies.Methodology.vote_statuses`, `vote_admits`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from types import EllipsisType

from django.db.models import Prefetch, Q, QuerySet
from django.utils.text import slugify

from leaderboard.models import Benchmark, task_input
from leaderboard.roles import user_organization_id
from runs.inputs import run_input
from runs.models import AppBuild, Evidence, EvidenceKind, Run
from scoring import methodologies
from scoring.addresses import is_web_address
from scoring.common import is_stale


def votable_benchmarks() -> list[Benchmark]:
    """Benchmarks open to votes (`Benchmark.takes_votes`): by their methodology's default (the `checks` one takes
    votes) unless their params say otherwise."""
    return [b for b in Benchmark.objects.all() if b.takes_votes]


def _statuses_drawn(methodology: str | None = None) -> Q:
    """The statuses a vote may draw, by each methodology's rule (`Methodology.vote_statuses`); with
    `methodology`, only runs of that methodology's benchmarks."""
    q = Q(pk__in=[])
    for key, m in methodologies.REGISTRY.items():
        branch = Q(task__benchmark__methodology=key, status__in=sorted(m.vote_statuses))
        if key == methodology:
            return branch
        q |= branch
    return q


def drawable(runs, *, methodology: str | None = None):
    """The database part of the draw rules: runs of published rounds, not superseded by a re-run, whose status
    the benchmark's methodology draws (`Methodology.vote_statuses`), whose app did not fail to start. With
    `methodology`, only runs of benchmarks of that methodology (a check of runs of one task says which)."""
    return (
        runs.published()
        .filter(_statuses_drawn(methodology), rerun__isnull=True)
        .exclude(app_started=False)
        .select_related("task__benchmark")
    )


def run_is_drawable(run: Run) -> bool:
    """The rest of the draw rules, on a run read through `drawable` and `with_previews`: its methodology admits
    it (`Methodology.run_votable`: on checks' invent and startup tasks, the checks admitted it), it was made
    under the task's current
    major version (a stale run answered an older wording: the screen shows the current prompt and scenarios,
    so both sides must have been asked the same; `scoring.common.is_stale`), and it has something to show
    (`has_something_to_show`)."""
    run_in, task_in = run_input(run), task_input(run.task)
    rules = run.task.benchmark.rules
    return rules.run_votable(run_in, task_in) and not is_stale(run_in, task_in) and has_something_to_show(run)


@cache
def _drawable_ids(methodology: str | None) -> QuerySet:
    """`drawable` as ids, unordered (a run's default order would join its benchmark, entry and agent): built
    once per process and methodology, and filtered by each check (the methodologies' rules do not change while
    it runs)."""
    runs = drawable(Run.objects.all(), methodology=methodology)
    return runs.select_related(None).order_by().values_list("id", flat=True)


def drawable_run_ids(
    *,
    voter,
    task_id: int,
    run_ids: list[int],
    organization_id: int | None | EllipsisType = ...,
    methodology: str | None = None,
) -> set[int]:
    """Which of `run_ids` (runs of one task) pass the database part of the draw rules (`drawable`) and are not
    of an agent of the voter's own organization (`organization_id` when the caller has read it with the voter's
    standing, else read here): one small query. A draw checks the two runs it picked from the vote pool with
    it, since these are the rules a write without a signal (a queryset update of a round, a run or an agent)
    can change; the rest (admission, something to show) is kept in the pool, which every save of a run, its
    evidence or its build retires. `methodology` is the task's benchmark's as the pool has it: a benchmark whose
    methodology has changed since fails the check, and the draw works the pool out again."""
    if not run_ids:
        return set()
    runs = _drawable_ids(methodology).filter(task_id=task_id, id__in=run_ids)
    org = user_organization_id(voter) if organization_id is ... else organization_id
    if org is not None:
        runs = runs.exclude(entry__agent__organization_id=org)
    return set(runs)


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
    """One picture of a side: a screenshot stored on the site, streamed through the alias. A screenshot kept
    only as an external address is never shown blind: the address is listed on the run's public page and in
    the download, so the voter could look it up (seed 003: "the page never gets run ids")."""

    evidence: Evidence


def preview_shots(run: Run) -> list[Shot]:
    """The run's screenshots that can be shown blind (reads `run.evidence.all()`, so a prefetch serves it)."""
    return [Shot(ev) for ev in run.evidence.all() if ev.kind == EvidenceKind.SCREENSHOT and ev.file]


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
    if run.preview_url and is_web_address(run.preview_url) and url_is_opaque(run.preview_url, run):
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
