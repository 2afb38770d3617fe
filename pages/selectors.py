"""Reads for the public site. Every page reads published rounds only; a draft or preview round, and anything
in it, is `Http404` here (not 403), so its existence does not leak.

Board pages read the stored `BoardSnapshot` (one query for the round's boards and the benchmark's ratings)
and shape its rows into display tables (`pages.tables`). Scores are never computed here: they come from the
snapshot, or, for a single run, from the same `scoring` function the snapshot used. Every page runs a fixed
number of queries, whatever the number of agents and runs.

The lookups and single-run reads here are shared with the pages of one run, task or agent (`pages.details`),
the score x cost x time page (`pages.tradeoffs`) and the downloads.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import Http404
from django.urls import reverse

from leaderboard.models import Benchmark, Entry, Round, RoundStatus, Task
from recompute.boards import round_standings_now
from runs.models import Outcome, Run
from scoring import methodologies
from scoring.boards import boards_as_shown
from scoring.common import alphabetical
from scoring.run_figures import OTHER_LANGUAGE, VIOLATION, marks_of
from scoring.standings import COUNTS, IN_REVIEW, REPLACED, UPDATING, standing_of
from scoring.submission_checks import ran_instead
from scoring.types import CHECK_COUNT_PAIRS, RatingRow, RunStanding, Standings
from snapshots.models import BoardSnapshot, SnapshotKind
from submissions import formats
from submissions.models import Submission, SubmissionTrack

from . import tiers
from .figures import cap_minutes, mark_badges, time_view
from .formatting import OUTCOME_BADGE, fmt_score, fmt_score_beside
from .intervals import board_charts
from .links import methodology_template, round_agent_url
from .rank_ranges import add_rank_ranges
from .statistics import round_statistics, task_rows, vote_margins
from .tables import BoardContext, Table, board_table, table_sort

# --- lookups that 404 ------------------------------------------------------------------------------------------


def with_open_track(benchmarks: QuerySet[Benchmark]) -> QuerySet[Benchmark]:
    """Each benchmark with `takes_submissions`: whether a submission track of it is open (its "Submit
    results" link), read in the same query."""
    open_tracks = SubmissionTrack.objects.open().filter(round__benchmark=OuterRef("pk"))
    return benchmarks.annotate(takes_submissions=Exists(open_tracks))


def benchmark_get(slug: str) -> Benchmark:
    bench = with_open_track(Benchmark.objects.filter(slug=slug)).first()
    if bench is None:
        raise Http404("No such benchmark")
    return bench


def rounds_published(bench: Benchmark) -> list[Round]:
    return list(Round.objects.published().filter(benchmark=bench).newest_first())


def round_pick(rounds: list[Round], key: str | None) -> Round:
    """The published round `key`, or the latest published one; 404 for anything else (a draft or preview
    round is answered exactly like a round that does not exist)."""
    if key is None:
        if not rounds:
            raise Http404("No published round yet")
        return rounds[0]
    for rnd in rounds:
        if rnd.key == key:
            return rnd
    raise Http404("No such round")


def sees_unpublished(viewer) -> bool:
    """Staff (editors, testers, reviewers) see a draft or preview round's boards at their public address before
    the public does, marked "not public"; anyone else gets the 404 of a round that does not exist."""
    return bool(viewer is not None and getattr(viewer, "is_authenticated", False) and viewer.is_staff)


def round_for(bench: Benchmark, rounds: list[Round], key: str | None, viewer=None) -> Round:
    """`round_pick` among the published rounds; for staff (`sees_unpublished`) also an unpublished round of
    `bench` by its key, or, when nothing is published yet, its latest round."""
    try:
        return round_pick(rounds, key)
    except Http404:
        if not sees_unpublished(viewer) or "\x00" in (key or ""):
            raise
    unpublished = Round.objects.filter(benchmark=bench).exclude(status=RoundStatus.PUBLISHED)
    found = unpublished.filter(key=key).first() if key is not None else unpublished.order_by("-id").first()
    if found is None:
        raise Http404("No such round")
    return found


def round_and_rounds(bench: Benchmark, key: str | None, viewer=None) -> tuple[Round, list[Round]]:
    """The round a page of one round shows (`round_for`) and the rounds its picker offers: the published ones,
    and for staff an unpublished round they opened, first."""
    rounds = rounds_published(bench)
    rnd = round_for(bench, rounds, key, viewer)
    return rnd, rounds if rnd in rounds else [rnd, *rounds]


def snapshots_for(bench: Benchmark, round_ids: list[int]) -> tuple[dict[int, BoardSnapshot], BoardSnapshot | None]:
    """The boards snapshots of these rounds and the benchmark's ratings snapshot, in one query."""
    found = list(
        BoardSnapshot.objects.filter(
            Q(round_id__in=round_ids, kind=SnapshotKind.BOARDS)
            | Q(benchmark=bench, round__isnull=True, kind=SnapshotKind.RATINGS)
        )
    )
    boards = {s.round_id: s for s in found if s.kind == SnapshotKind.BOARDS}
    ratings = next((s for s in found if s.kind == SnapshotKind.RATINGS), None)
    return boards, ratings


def ratings_maps(ratings: BoardSnapshot | None) -> tuple[dict[str, RatingRow], dict[str, dict[str, RatingRow]]]:
    """The benchmark's vote ratings by agent, over all its tasks and in each task."""
    data = (ratings.data if ratings else None) or {}
    every: list[RatingRow] = data.get("all") or []
    by_task: dict[str, list[RatingRow]] = data.get("tasks") or {}
    overall = {r["agent"]: r for r in every}
    tasks = {t: {r["agent"]: r for r in rows} for t, rows in by_task.items()}
    return overall, tasks


def snapshot_state(snap: BoardSnapshot | None) -> str:
    """fresh, updating (stale: a recompute is queued) or computing (never computed yet)."""
    if snap is None or snap.data is None:
        return "computing"
    return "updating" if snap.stale else "fresh"


def board_state(snap: BoardSnapshot | None, ratings: BoardSnapshot | None) -> str:
    """The state of a board page, which shows the round's boards and the benchmark's vote ratings beside them:
    the boards' own state, or "updating" while the ratings are being refitted (a vote counted, a voter flagged
    or cleared), so ratings that no longer match the counted votes are never shown as final."""
    state = snapshot_state(snap)
    if state == "fresh" and ratings is not None and ratings.stale:
        return "updating"
    return state


# --- single runs, as their round's stored boards say ---------------------------------------------------------


def standings_for_round(snap: BoardSnapshot | None, round_id: int) -> Standings:
    """Every run's standing in one round, as its boards decide it (`scoring.standings`): the standings stored
    with the boards while they are current; while a recompute is queued (the snapshot is stale), before the
    first one, or from boards stored before standings were, the same standings computed now by the worker's
    own functions (`recompute.boards.round_standings_now`), so a page never shows a standing the board is
    about to drop (a correction that sends a counted run back to review)."""
    if snap is not None and not snap.stale and snap.data and "standings" in snap.data:
        return snap.data["standings"]
    return round_standings_now(round_id)


def run_standing(run: Run, standings: Mapping[str, RunStanding] | None) -> RunStanding:
    """The run's standing among its round's (`standings_for_round`): whether it counts, with what, or why not.
    Every page, download and API answer asks this or `runs_standings`; none decides it again."""
    return standing_of(standings, run.key)


def snapshot_data(snap: BoardSnapshot | None) -> dict[str, Any] | None:
    return snap.data if snap else None


def runs_standings(runs: list[Run]) -> dict[int, RunStanding]:
    """Each run's standing (`run_standing`) by its id, for runs of any rounds: one query reads the standings
    stored with their rounds' boards (only those, not the boards); a round whose boards are being recomputed
    has its standings computed now (`standings_for_round`)."""
    stored = {
        round_id: found
        for round_id, stale, found in BoardSnapshot.objects.filter(
            round_id__in={r.round_id for r in runs}, kind=SnapshotKind.BOARDS
        ).values_list("round_id", "stale", "data__standings")
        if not stale and found is not None
    }
    for round_id in {r.round_id for r in runs} - set(stored):
        stored[round_id] = round_standings_now(round_id)
    return {r.pk: run_standing(r, stored[r.round_id]) for r in runs}


def checks_passed(run: Run) -> tuple[int | None, int | None]:
    """A run's checks passed of its checks, API and page checks and browser steps together (`CHECK_COUNT_PAIRS`);
    (None, None) when it recorded none."""
    parts = [(getattr(run, passed), getattr(run, total)) for passed, total in CHECK_COUNT_PAIRS]
    recorded = [(p, t) for p, t in parts if t is not None]
    if not recorded:
        return None, None
    return sum(p or 0 for p, _ in recorded), sum(t for _, t in recorded)


# What a run's result says while the board has no outcome for it (its own review not decided, or the board
# not yet computed).
WAITING = {IN_REVIEW: "in review", REPLACED: "in review", UPDATING: "updating"}


def run_label(run: Run, methodology: str, standing: RunStanding) -> str:
    """The outcome label the run was stored with, as the public reads it: none while its standing is not yet
    computed, nor, where the board counts outcomes, while the board has no outcome for it (its review under
    way: a label imported beside it is the first reviewer's outcome, and the review stays blind)."""
    if standing["standing"] == UPDATING or (
        methodologies.get(methodology).counts_outcomes and standing["outcome"] is None
    ):
        return ""
    return run.outcome


def run_summary(run: Run, methodology: str, standing: RunStanding, threshold: float | None = None) -> dict[str, Any]:
    """What a list of runs shows for one run, read from its standing (`run_standing`): its result on the
    benchmark's own scale (the outcome the board counts it with, or its score), whether it counts and why not,
    and the label the run was given beside the outcome when the board's rule overrode it (a weekly run at the
    cap is a fail whatever its label). A run whose review is not decided shows no outcome and no label. Its time
    as published and its marks (`pages.figures`) come with it, as every list of runs shows them."""
    score = standing["score"]
    state = standing["standing"]
    passed, total = checks_passed(run)
    outcome, label = None, ""
    if methodologies.get(methodology).counts_outcomes:
        outcome = standing["outcome"]
        text = outcome or WAITING.get(state) or standing["why"] or "not scored"
        stored = run_label(run, methodology, standing)
        label = stored if stored != outcome else ""
    elif score is not None:
        text = fmt_score_beside(score, methodology, threshold)  # `threshold`: its benchmark's pass mark
    else:
        text = "updating" if state == UPDATING else "not scored"
    cap = cap_minutes(methodologies.get(methodology))
    # Beside its result, the "violation" mark is left out where the outcome shown is a violation: it would read
    # "violation violation". Boards, head-to-heads and the downloads, which show no outcome, keep it.
    said_by_outcome = VIOLATION if outcome == Outcome.VIOLATION else None
    return {
        "score": score,
        "text": text,
        "time": time_view(standing, run.wall_seconds),
        "marks": [b for b in mark_badges(standing, run.language, cap) if b[0] != said_by_outcome],
        "apart": OTHER_LANGUAGE in marks_of(standing),
        "language": run.language,
        "outcome": outcome,
        "label": label,
        "badge": OUTCOME_BADGE.get(outcome or "", ""),
        "checks": f"{passed}/{total}" if total else None,
        "tokens": run.tokens,
        "counts": state == COUNTS,
        "updating": state == UPDATING,
        "why_not_counted": standing["why"],
        "stands": standing["stands"],
        "replaced_by": standing["replaced_by"],
        "standing": state,
    }


# --- pages -----------------------------------------------------------------------------------------------------


def home_page() -> dict[str, Any]:
    """Every benchmark with its latest published round's top agents: three queries in all."""
    benches = list(with_open_track(Benchmark.objects.all()))
    latest: dict[int, Round] = {}
    for rnd in Round.objects.published().newest_first():
        latest.setdefault(rnd.benchmark_id, rnd)
    snaps = {
        s.round_id: s
        for s in BoardSnapshot.objects.filter(round_id__in=[r.id for r in latest.values()], kind=SnapshotKind.BOARDS)
    }
    cards = []
    for b in benches:
        rnd = latest.get(b.id)
        snap = snaps.get(rnd.id) if rnd else None
        rows = ((snap.data or {}).get("overall") or []) if snap and snap.data else []
        key = b.rules.headline_key
        top = [
            {
                "rank": r.get("rank"),
                "name": r["name"],
                "agent": r["agent"],
                "score": fmt_score(r.get(key), b.methodology),
                "href": round_agent_url(b.slug, rnd.key, r["agent"]) if rnd else None,
            }
            for r in rows[:3]
        ]
        cards.append(
            {
                "bench": b,
                "round": rnd,
                "top": top,
                "state": snapshot_state(snap) if rnd else None,
                "headline": b.rules.headline_label,
                "agents": len(rows),
            }
        )
    return {"cards": cards}


def round_tasks(bench: Benchmark, rnd: Round) -> list[Task]:
    """The round's task set (`Round.task_set`) in the benchmark's order, so a board never lists a column for
    a task the round did not have."""
    keys = rnd.task_set()
    return [t for t in bench.tasks.public() if t.key in keys]


def round_picker(bench: Benchmark, rounds: list[Round], viewer=None) -> list[dict[str, Any]]:
    """The rounds a board's picker offers: the published ones, the latest marked; for staff (`sees_unpublished`)
    also the draft and preview rounds, first and each marked not public. The public never sees those."""
    latest = rounds[0] if rounds else None
    picks = [{"round": r, "latest": r == latest, "public": True} for r in rounds]
    if sees_unpublished(viewer):
        unpublished = Round.objects.filter(benchmark=bench).exclude(status=RoundStatus.PUBLISHED).order_by("-id")
        picks = [{"round": r, "latest": False, "public": False} for r in unpublished] + picks
    return picks


def board_page(*, bench_slug: str, round_key: str | None, params: Mapping[str, str], viewer=None) -> dict[str, Any]:
    """A round's board, any tab; an unpublished round's only for staff (`round_for`), marked `not_public`."""
    bench = benchmark_get(bench_slug)
    rounds = rounds_published(bench)
    rnd = round_for(bench, rounds, round_key, viewer)
    snaps, ratings_snap = snapshots_for(bench, [rnd.id])
    snap = snaps.get(rnd.id)
    entries = {e.agent.slug: e for e in Entry.objects.filter(round=rnd).select_related("agent")}
    tasks = round_tasks(bench, rnd)
    tabs = bench.rules.tabs
    tab: str = params["tab"] if params.get("tab") in dict(tabs) else tabs[0][0]
    ratings, task_ratings = ratings_maps(ratings_snap)
    state = board_state(snap, ratings_snap)
    full = boards_as_shown(bench.methodology, snap.data if snap else None, ratings_snap.data if ratings_snap else None)
    view, data = _tier_view(full, entries, params)
    ctx = BoardContext(bench, rnd, data, entries, ratings, task_ratings, tasks)
    task_key = params.get("task")
    table = _with_tiers(board_table(ctx, tab, task_key) if data else None, view, full, entries, rnd, tab)
    task_key, task_tabs = _task_tabs(tab, data, task_key, tasks)
    add_rank_ranges(table, full or {}, tab, task_key, reverse("readings", args=[bench.slug, rnd.key]))
    kept = tiers.kept_params(view)
    base = {"tab": tab, **({"task": task_key} if task_tabs and task_key else {}), **kept}
    by_votes = bench.rules.ranked_by_votes(data, task_key if task_tabs else None)
    direction = "desc" if params.get("dir") == "desc" else "asc"
    sort, direction = table_sort(table, params.get("sort"), direction, base) if table else ("rank", "asc")
    tab_links = [{"key": k, "label": label, "query": "?" + urlencode({"tab": k, **kept})} for k, label in tabs]
    return {
        "bench": bench,
        "round": rnd,
        "rounds": rounds,
        "picker": round_picker(bench, rounds, viewer),
        # An older round: a published one with a newer published round. A benchmark's only round, or one not yet
        # published (staff see it before the public), is no older round.
        "is_older": rnd.is_published and bool(rounds) and rnd != rounds[0],
        "not_public": not rnd.is_published,
        "snapshot": snap,
        "state": state,
        "tab": tab,
        "tabs": tab_links,
        "table": table,
        "charts": board_charts(ctx, tab) if data and not task_tabs else [],
        "sort": sort,
        "dir": direction,
        "task_key": task_key,
        "task_tabs": task_tabs,
        "statistics": round_statistics(bench, full, published=rnd.is_published, by_votes=by_votes) if full else None,
        "tier_links": tiers.tier_links(view, {"tab": tab}) if view else [],
        "margins": _board_margins(ratings_snap, entries, task_key if task_tabs else None),
        "by_votes": by_votes,
        "tasks": tasks,
        "has_tradeoffs": True,
        "entries": sorted(entries.values(), key=lambda e: (alphabetical(e.agent.name), e.agent.slug)),
    }


def _task_tabs(tab: str, data: dict[str, Any], task_key: str | None, tasks: list[Task]) -> tuple[str | None, list]:
    """On a tab of boards per task (checks), the task shown (the one asked for, else the first) and a link to each."""
    if tab != "tasks" or not isinstance(data.get("tasks"), dict):
        return task_key, []
    present = data.get("tasks") or {}
    task_key = task_key if task_key in present else next(iter(present), None)
    links = [
        {"key": t.key, "label": t.title or t.key, "query": "?" + urlencode({"tab": tab, "task": t.key})}
        for t in tasks
        if t.key in present
    ]
    return task_key, links


def _tier_view(full: dict[str, Any], entries: dict[str, Entry], params: Mapping[str, str]) -> tuple[str, dict]:
    """The tier view asked for and the board's rows in it; no view ("") on a board of the team's rows only."""
    if not full or not tiers.board_has_tiers(full, entries):
        return "", full
    view = tiers.view_of(params)
    return view, tiers.filter_rows(full, entries, view)


def _with_tiers(
    table: Table | None, view: str, full: dict[str, Any], entries: dict[str, Entry], rnd: Round, tab: str
) -> Table | None:
    """The table with its Tier column and each submitted agent's organization (and, where its runs ran other
    models than it declares, what ran beside what it declares), on a board with tiers (`_tier_view`); a view that
    hides every row says which tiers hold them."""
    if table is not None and view:
        tiers.say_what_is_hidden(table, tiers.tiers_of(full, entries), view, tiers.tier_links(view, {"tab": tab}))
        live = live_submissions(rnd)
        links = {slug: reverse("submission", args=[rnd.benchmark.slug, s.pk]) for slug, s in live.items()}
        tiers.add_tier_column(table, tiers.tiers_of(full, entries), links)
        tiers.add_as_ran(table, {slug: ran_instead(s.checks or []) for slug, s in live.items()})
        tiers.add_submitters(table, {slug: s.organization.name for slug, s in live.items()})
    return table


def live_submissions(rnd: Round) -> dict[str, Submission]:
    """Each agent's live submission in the round, by agent (none for the team's entries)."""
    live = Submission.objects.live().filter(round=rnd).select_related("agent", "organization")
    return {s.agent.slug: s for s in live}


def _board_margins(ratings: BoardSnapshot | None, entries: dict[str, Entry], task: str | None) -> Any:
    """How many votes hold the top place of the vote ratings shown on this board: the benchmark's, or the
    task's when a task's board ranks by votes."""
    margins = ((ratings.data if ratings else None) or {}).get("margins") or {}
    board = (margins.get("tasks") or {}).get(task) if task else margins.get("all")
    return vote_margins(board, {slug: e.agent.name for slug, e in entries.items()})


def round_tasks_page(*, bench_slug: str, round_key: str, params: Mapping[str, str], viewer=None) -> dict[str, Any]:
    """The round's Tasks page: which tasks separate its agents, the split-half reliability of its ranking, its
    noise floor and, where reviewers double-review, how often they agreed. Read from the round's snapshot; an
    unpublished round's for staff only (`round_for`)."""
    bench = benchmark_get(bench_slug)
    rnd, rounds = round_and_rounds(bench, round_key, viewer)
    snaps, _ = snapshots_for(bench, [rnd.id])
    snap = snaps.get(rnd.id)
    data = snap.data if snap else None
    titles = {t.key: t.title or t.key for t in bench.tasks.public()}
    rows = task_rows(bench, data, titles)
    order = params.get("sort")
    if order == "discrimination":  # the weakest separators first: what a benchmark team looks at
        rows.sort(key=lambda r: (r["discrimination"] is None, r["discrimination"] or 0.0, r["title"]))
    return {
        "bench": bench,
        "round": rnd,
        "rounds": rounds,
        "state": snapshot_state(snap),
        "statistics": round_statistics(bench, data, published=rnd.is_published) if data else None,
        "rows": rows,
        "sort": "discrimination" if order == "discrimination" else "task",
        "flagged": sum(1 for r in rows if r["flag"]),
    }


def changelog_page(*, bench_slug: str, round_key: str, viewer=None) -> dict[str, Any]:
    """The corrections made to a round since its publication and its re-runs; an unpublished round's for staff
    only (`round_for`)."""
    bench = benchmark_get(bench_slug)
    rnd, _ = round_and_rounds(bench, round_key, viewer)
    entries = list(rnd.changelog.select_related("run").order_by("created_at", "id"))
    reruns = list(
        Run.objects.filter(round=rnd, rerun_of__isnull=False)
        .select_related("task", "rerun_of", "entry__agent")
        .prefetch_related(Prefetch("rerun_of__disputes"))
    )
    standings = standings_for_round(snapshots_for(bench, [rnd.id])[0].get(rnd.id), rnd.id)
    rows = [
        {"run": r, "counting": run_standing(r, standings), "original": run_standing(r.rerun_of, standings)}
        for r in reruns
    ]
    return {"bench": bench, "round": rnd, "entries": entries, "reruns": rows}


def submission_tracks(bench: Benchmark, tasks: list[Task], rounds: list[Round]) -> list[dict[str, Any]]:
    """The benchmark's submission tracks on its published rounds, each with what it requires: the round's tasks
    by family, their versions, the trials, the limits and what a submitter declares."""
    found = SubmissionTrack.objects.filter(round__in=rounds).select_related("round").order_by("-is_open", "-opened_at")
    by_key = {t.key: t for t in tasks}
    out = []
    for track in found:
        keys = sorted(track.round.task_set())
        families: dict[str, int] = {}
        for key in keys:
            task = by_key.get(key)
            family = (task.family if task else "") or "(no family)"
            families[family] = families.get(family, 0) + 1
        out.append(
            {
                "track": track,
                "round": track.round,
                "tasks": len(keys),
                "families": sorted(families.items()),
                "required": track.families_required or [],
                "limits": sorted((track.limits or {}).items()),
                "protocol": track.protocol or [],
                "formats": [label for _, label in formats.choices(track.formats)],
            }
        )
    return out


def methodology_page(*, bench_slug: str) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    tasks = list(bench.tasks.public())
    kinds: dict[str, int] = {}
    for t in tasks:
        kinds[t.get_kind_display()] = kinds.get(t.get_kind_display(), 0) + 1
    rounds = rounds_published(bench)
    snap = snapshots_for(bench, [rounds[0].id])[0].get(rounds[0].id) if rounds else None
    return {
        "bench": bench,
        "tasks": tasks,
        "kinds": kinds,
        "tracks": (tracks := submission_tracks(bench, tasks, rounds)),
        "tier_rule": tiers.RULE
        if tracks or Entry.objects.filter(round__benchmark=bench).exclude(tier=tiers.TEAM).exists()
        else "",
        "round": rounds[0] if rounds else None,
        "statistics": round_statistics(bench, snap.data) if snap and snap.data else None,
        "template": methodology_template(bench.methodology),
    }
