"""Reads for the public site. Every page reads published rounds only; a draft or preview round, and anything
in it, is `Http404` here (not 403), so its existence does not leak.

Board pages read the stored `BoardSnapshot` (one query for the round's boards and the benchmark's ratings)
and shape its rows into display tables (`pages.tables`). Scores are never computed here: they come from the
snapshot, or, for a single run, from the same `scoring` function the snapshot used. Every page runs a fixed
number of queries, whatever the number of agents and runs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db.models import Avg, Count, Prefetch, Q
from django.http import Http404

from bundles.export import run_doc
from leaderboard.models import (
    Agent,
    Benchmark,
    Entry,
    Round,
    RoundParameter,
    RoundStatus,
    Task,
    fill_prompt,
    task_input,
)
from runs.models import Run, run_input
from scoring import boards as board_rules
from scoring import methodologies
from scoring import scored as scored_rules
from scoring.boards import boards_as_shown
from snapshots.models import BoardSnapshot, SnapshotKind

from .charts import line_chart, scatter_chart
from .formatting import OUTCOME_BADGE, OUTCOME_LABEL, fmt_money, fmt_range, fmt_rating, fmt_score, fmt_seconds
from .links import round_agent_url, run_url, task_url
from .tables import BoardContext, board_table, table_sort

PUBLISHED = RoundStatus.PUBLISHED


# --- lookups that 404 ------------------------------------------------------------------------------------------

def benchmark_get(slug: str) -> Benchmark:
    bench = Benchmark.objects.filter(slug=slug).first()
    if bench is None:
        raise Http404("No such benchmark")
    return bench


def rounds_published(bench: Benchmark) -> list[Round]:
    return list(Round.objects.published().filter(benchmark=bench)
                .order_by("-starts_on", "-published_at", "-key"))


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


def snapshots_for(bench: Benchmark, round_ids: list[int]) -> tuple[dict[int, BoardSnapshot], BoardSnapshot | None]:
    """The boards snapshots of these rounds and the benchmark's ratings snapshot, in one query."""
    found = list(BoardSnapshot.objects.filter(
        Q(round_id__in=round_ids, kind=SnapshotKind.BOARDS)
        | Q(benchmark=bench, round__isnull=True, kind=SnapshotKind.RATINGS)))
    boards = {s.round_id: s for s in found if s.kind == SnapshotKind.BOARDS}
    ratings = next((s for s in found if s.kind == SnapshotKind.RATINGS), None)
    return boards, ratings


def ratings_maps(ratings: BoardSnapshot | None) -> tuple[dict[str, dict], dict[str, dict[str, dict]]]:
    data = (ratings.data if ratings else None) or {}
    overall = {r["agent"]: r for r in data.get("all") or []}
    tasks = {t: {r["agent"]: r for r in rows} for t, rows in (data.get("tasks") or {}).items()}
    return overall, tasks


def snapshot_state(snap: BoardSnapshot | None) -> str:
    """fresh, updating (stale: a recompute is queued) or computing (never computed yet)."""
    if snap is None or snap.data is None:
        return "computing"
    return "updating" if snap.stale else "fresh"


# --- single runs, scored by the same rules as the boards ---------------------------------------------------------

def run_score(run: Run, methodology: str) -> float | None:
    """The run's own score on its benchmark's scale (checks 0-100, scored 0-1), None for outcome boards."""
    return methodologies.get(methodology).run_score(run_input(run), task_input(run.task))


def run_counts(run: Run, methodology: str, replaced: bool) -> bool:
    """Whether a run can go into the rankings by its methodology's rules (a run replaced by its re-run never
    does)."""
    if replaced:
        return False
    return methodologies.get(methodology).run_counts(run_input(run), task_input(run.task))


def standing_runs(methodology: str, data: dict | None) -> set[str]:
    """Run ids that stand for an agent on a task in a round's boards: the median run (checks), the best
    trial (scored), the counted run (outcomes, weekly)."""
    return methodologies.get(methodology).standing_runs(data)


def checks_passed(run: Run) -> tuple[int | None, int | None]:
    parts = [(run.api_checks_passed, run.api_checks_total), (run.browser_steps_passed, run.browser_steps_total)]
    recorded = [(p, t) for p, t in parts if t is not None]
    if not recorded:
        return None, None
    return sum(p or 0 for p, _ in recorded), sum(t for _, t in recorded)


def run_summary(run: Run, methodology: str) -> dict[str, Any]:
    """What a list of runs shows for one run: its result on the benchmark's own scale."""
    score = run_score(run, methodology)
    passed, total = checks_passed(run)
    outcome, label = None, ""
    if methodologies.get(methodology).counts_outcomes:
        # The outcome the board counted, by the board's own per-run rule; the label the run was given is
        # shown beside it when the rule overrode it (a weekly run at the cap is a fail whatever its label).
        if run_counts(run, methodology, replaced=False):
            outcome = board_rules.counted_outcome(methodology, run_input(run, with_verdicts=True),
                                                    task_input(run.task))
            text = outcome or "in review"
            label = run.outcome if run.outcome and outcome and run.outcome != outcome else ""
        else:
            text = OUTCOME_LABEL.get(run.status, run.get_status_display())
    else:
        text = fmt_score(score, methodology)
    return {"score": score, "text": text, "outcome": outcome, "label": label,
            "badge": OUTCOME_BADGE.get(outcome or "", ""),
            "checks": f"{passed}/{total}" if total else None, "tokens": run.tokens}


# --- pages -----------------------------------------------------------------------------------------------------

def home_page() -> dict[str, Any]:
    """Every benchmark with its latest published round's top agents: three queries in all."""
    benches = list(Benchmark.objects.all())
    latest: dict[int, Round] = {}
    for rnd in Round.objects.published().order_by("-starts_on", "-published_at", "-key"):
        latest.setdefault(rnd.benchmark_id, rnd)
    snaps = {s.round_id: s for s in BoardSnapshot.objects.filter(
        round_id__in=[r.id for r in latest.values()], kind=SnapshotKind.BOARDS)}
    cards = []
    for b in benches:
        rnd = latest.get(b.id)
        snap = snaps.get(rnd.id) if rnd else None
        rows = ((snap.data or {}).get("overall") or []) if snap and snap.data else []
        key = b.rules.headline_key
        top = [{"rank": r.get("rank"), "name": r["name"], "agent": r["agent"],
                "score": fmt_score(r.get(key), b.methodology),
                "href": round_agent_url(b.slug, rnd.key, r["agent"]) if rnd else None} for r in rows[:3]]
        cards.append({"bench": b, "round": rnd, "top": top, "state": snapshot_state(snap) if rnd else None,
                      "headline": b.rules.headline_label, "agents": len(rows)})
    return {"cards": cards}


def board_page(*, bench_slug: str, round_key: str | None, params: Mapping[str, str]) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    rounds = rounds_published(bench)
    rnd = round_pick(rounds, round_key)
    snaps, ratings_snap = snapshots_for(bench, [rnd.id])
    snap = snaps.get(rnd.id)
    entries = {e.agent.slug: e for e in Entry.objects.filter(round=rnd).select_related("agent")}
    tasks = list(bench.tasks.all())
    tabs = bench.rules.tabs
    tab = params.get("tab") if params.get("tab") in dict(tabs) else tabs[0][0]
    ratings, task_ratings = ratings_maps(ratings_snap)
    state = snapshot_state(snap)
    data = boards_as_shown(bench.methodology, snap.data if snap else None, ratings_snap.data if ratings_snap else None)
    ctx = BoardContext(bench, rnd, data, entries, ratings, task_ratings, tasks)
    task_key = params.get("task")
    table = board_table(ctx, tab, task_key) if data else None
    task_tabs = []
    if tab == "tasks" and isinstance(data.get("tasks"), dict):  # boards per task (checks)
        present = data.get("tasks") or {}
        task_key = task_key if task_key in present else next(iter(present), None)
        task_tabs = [{"key": t.key, "label": t.title or t.key, "query": "?" + urlencode({"tab": tab, "task": t.key})}
                     for t in tasks if t.key in present]
    base = {"tab": tab, **({"task": task_key} if task_tabs and task_key else {})}
    direction = "desc" if params.get("dir") == "desc" else "asc"
    sort, direction = table_sort(table, params.get("sort"), direction, base) if table else ("rank", "asc")
    tab_links = [{"key": k, "label": label, "query": "?" + urlencode({"tab": k})} for k, label in tabs]
    return {"bench": bench, "round": rnd, "rounds": rounds, "is_latest": rnd == rounds[0], "snapshot": snap,
            "state": state, "tab": tab, "tabs": tab_links, "table": table, "sort": sort, "dir": direction,
            "task_key": task_key, "task_tabs": task_tabs, "tasks": tasks,
            "has_tradeoffs": True, "entries": sorted(entries.values(), key=lambda e: e.agent.name)}


def run_page(*, bench_slug: str, round_key: str, run_key: str) -> dict[str, Any]:
    run = (Run.objects.published()
           .filter(round__benchmark__slug=bench_slug, round__key=round_key, key=run_key)
           .select_related("round__benchmark", "entry__agent", "task", "rerun_of", "rerun")
           .prefetch_related("verdicts", "evidence", "checks", "disputes").first())
    if run is None:
        raise Http404("No such run")
    bench, rnd = run.round.benchmark, run.round
    version = run.task.versions.filter(version=run.task_version).first()
    interruption = version.interruption if version else ""
    params = {p.name: p.value for p in RoundParameter.objects.filter(round=rnd, task=run.task)}
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    standing = run.key in standing_runs(bench.methodology, snap.data if snap else None)
    order = ["tester", "second", "third"]
    verdicts = sorted(run.verdicts.all(), key=lambda v: order.index(v.role) if v.role in order else 9)
    passed, total = checks_passed(run)
    rerun = run.rerun if _has_rerun(run) else None
    return {"bench": bench, "round": rnd, "run": run, "agent": run.entry.agent, "entry": run.entry,
            "task": run.task, "version": version, "prompt": fill_prompt(version.prompt if version else "", params),
            "params": params, "interruption": fill_prompt(interruption, params), "verdicts": verdicts,
            "evidence": list(run.evidence.all()),
            "checks": list(run.checks.all()), "disputes": list(run.disputes.all()), "standing": standing,
            "summary": run_summary(run, bench.methodology), "checks_passed": passed, "checks_total": total,
            "counts": run_counts(run, bench.methodology, rerun is not None), "rerun": rerun,
            "third_decided": any(v.role == "third" for v in verdicts),
            "standing_label": methodologies.get(bench.methodology).standing_label}


def _has_rerun(run: Run) -> bool:
    try:
        run.rerun  # noqa: B018 - the reverse one-to-one raises when there is none
    except Run.DoesNotExist:
        return False
    return True


def run_document(*, bench_slug: str, round_key: str, run_key: str) -> dict[str, Any]:
    """One run in the bundle format (the same shape as in the download): no reviewer or owner identity."""
    run = (Run.objects.published()
           .filter(round__benchmark__slug=bench_slug, round__key=round_key, key=run_key)
           .select_related("round", "entry__agent", "task", "rerun_of")
           .prefetch_related("verdicts", "evidence", "checks", "disputes").first())
    if run is None:
        raise Http404("No such run")
    return run_doc(run)


def round_agent_page(*, bench_slug: str, round_key: str, agent_slug: str) -> dict[str, Any]:
    """An agent's runs in one round: the runs behind every number of its board row."""
    bench = benchmark_get(bench_slug)
    rnd = round_pick(rounds_published(bench), round_key)
    entry = Entry.objects.filter(round=rnd, agent__slug=agent_slug).select_related("agent").first()
    if entry is None:
        raise Http404("No such agent in this round")
    runs = list(Run.objects.filter(round=rnd, entry=entry).select_related("task", "rerun_of")
                .prefetch_related("verdicts").order_by("task__position", "task__key", "trial", "key"))
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    data = snap.data if snap and snap.data else {}
    standing = standing_runs(bench.methodology, data)
    replaced = {r.rerun_of_id for r in runs if r.rerun_of_id}
    rows = []
    for run in runs:
        rows.append({"run": run, "href": run_url(bench.slug, rnd.key, run.key), "standing": run.key in standing,
                     "summary": run_summary(run, bench.methodology),
                     "counts": run_counts(run, bench.methodology, run.id in replaced), "stale": run.is_stale,
                     "task_href": task_url(bench.slug, run.task.key, agent_slug)})
    boards = []
    for name, label in bench.rules.tabs:
        board = data.get(name)
        if isinstance(board, list):
            row = next((r for r in board if r["agent"] == agent_slug), None)
            if row:
                boards.append({"label": label, "rank": row.get("rank"), "of": len(board),
                               "score": fmt_score(row.get(bench.rules.headline_key), bench.methodology)})
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["run"].task.get_kind_display(), []).append(row)
    return {"bench": bench, "round": rnd, "entry": entry, "agent": entry.agent, "groups": groups,
            "boards": boards, "state": snapshot_state(snap),
            "standing_label": methodologies.get(bench.methodology).standing_label}


def task_page(*, bench_slug: str, task_key: str, agent: str | None) -> dict[str, Any]:
    """A task: its current wording (parameters only from published rounds), version history, and every
    agent's runs on it in each published round, the standing run marked, with the range."""
    task = (Task.objects.filter(benchmark__slug=bench_slug, key=task_key).select_related("benchmark")
            .prefetch_related("versions").first())
    if task is None:
        raise Http404("No such task")
    bench = task.benchmark
    runs = list(Run.objects.published().filter(task=task).select_related("round", "entry__agent", "task")
                .prefetch_related("verdicts")
                .order_by("-round__starts_on", "-round__published_at", "entry__agent__name", "trial", "key"))
    rounds = {r.round_id: r.round for r in runs}
    snaps, ratings_snap = snapshots_for(bench, list(rounds))
    params = list(RoundParameter.objects.filter(task=task, round__status=PUBLISHED).select_related("round")
                  .order_by("-round__starts_on", "name"))
    _, task_ratings = ratings_maps(ratings_snap)
    ratings = task_ratings.get(task.key, {})
    m = bench.methodology
    by_round: dict[int, dict[str, list[Run]]] = {}
    for run in runs:
        by_round.setdefault(run.round_id, {}).setdefault(run.entry.agent.slug, []).append(run)
    replaced = {r.rerun_of_id for r in runs if r.rerun_of_id}
    names = {r.entry.agent.slug: r.entry.agent.name for r in runs}
    sections = []
    for round_id, agents in by_round.items():
        rnd = rounds[round_id]
        snap = snaps.get(round_id)
        standing = standing_runs(m, snap.data if snap else None)
        checks_rows = {r["agent"]: r for r in ((snap.data or {}).get("tasks") or {}).get(task.key, [])} \
            if snap and bench.rules.task_medians else {}
        items = []
        for slug, agent_runs in agents.items():
            summaries = [{"run": r, "summary": run_summary(r, m), "standing": r.key in standing,
                          "counts": run_counts(r, m, r.id in replaced),
                          "href": run_url(bench.slug, rnd.key, r.key)} for r in agent_runs]
            scores = [s["summary"]["score"] for s in summaries if s["counts"] and s["summary"]["score"] is not None]
            crow = checks_rows.get(slug)
            items.append({"agent": agent_runs[0].entry.agent, "slug": slug, "runs": summaries,
                          "range": fmt_range(min(scores), max(scores)) if len(scores) > 1 else "",
                          "median": fmt_score(crow.get("median"), m) if crow else None,
                          "rating": fmt_rating(ratings.get(slug)) if bench.rules.task_medians else None,
                          "selected": slug == agent})
        sections.append({"round": rnd, "items": items,
                         "params": [p for p in params if p.round_id == round_id]})
    versions = sorted(task.versions.all(), key=lambda v: [int(x) for x in v.version.split(".") if x.isdigit()],
                      reverse=True)
    current = next((v for v in versions if v.version == task.version), None)
    return {"bench": bench, "task": task, "versions": versions, "current": current, "sections": sections,
            "agent": agent, "ratings": [
                {"agent": r["agent"], "name": names.get(r["agent"], r["agent"]), **(fmt_rating(r) or {})}
                for r in (ratings_snap.data or {}).get("tasks", {})
                .get(task.key, [])] if ratings_snap and ratings_snap.data else [],
            "standing_label": methodologies.get(m).standing_label}


def agent_page(*, slug: str) -> dict[str, Any]:
    """An agent's entries across published rounds, with its score and rank on each round's main board."""
    agent = Agent.objects.filter(slug=slug).select_related("organization").first()
    if agent is None:
        raise Http404("No such agent")
    entries = list(Entry.objects.filter(agent=agent, round__status=PUBLISHED).select_related("round__benchmark")
                   .order_by("round__benchmark__position", "round__benchmark__name", "round__starts_on",
                             "round__published_at"))
    snaps = {s.round_id: s for s in BoardSnapshot.objects.filter(
        round_id__in=[e.round_id for e in entries], kind=SnapshotKind.BOARDS)}
    if not entries:
        raise Http404("No published results for this agent")
    benches: dict[int, dict[str, Any]] = {}
    for e in entries:
        b = e.round.benchmark
        group = benches.setdefault(b.id, {"bench": b, "rows": [], "headline": b.rules.headline_label})
        snap = snaps.get(e.round_id)
        rows = ((snap.data or {}).get("overall") or []) if snap and snap.data else []
        row = next((r for r in rows if r["agent"] == slug), None)
        value = row.get(b.rules.headline_key) if row else None
        group["rows"].append({"entry": e, "round": e.round, "value": value, "rank": row.get("rank") if row else None,
                              "of": len(rows), "score": fmt_score(value, b.methodology),
                              "href": round_agent_url(b.slug, e.round.key, slug)})
    for group in benches.values():
        b = group["bench"]
        scale = b.rules.scale
        group["chart"] = line_chart([(r["round"].name or r["round"].key, r["value"], r["score"], r["href"])
                                     for r in group["rows"]], scale)
        group["rows"].reverse()
    return {"agent": agent, "benches": list(benches.values())}


def changelog_page(*, bench_slug: str, round_key: str) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    rnd = round_pick(rounds_published(bench), round_key)
    entries = list(rnd.changelog.select_related("run").order_by("created_at", "id"))
    reruns = list(Run.objects.filter(round=rnd, rerun_of__isnull=False)
                  .select_related("rerun_of", "entry__agent", "task")
                  .prefetch_related(Prefetch("rerun_of__disputes")))
    return {"bench": bench, "round": rnd, "entries": entries, "reruns": reruns}


def methodology_page(*, bench_slug: str) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    tasks = list(bench.tasks.all())
    kinds: dict[str, int] = {}
    for t in tasks:
        kinds[t.get_kind_display()] = kinds.get(t.get_kind_display(), 0) + 1
    rounds = rounds_published(bench)
    return {"bench": bench, "tasks": tasks, "kinds": kinds, "round": rounds[0] if rounds else None,
            "template": f"leaderboard/methodology/{bench.methodology}.html"}


# --- score x cost x time ------------------------------------------------------------------------------------------

def tradeoff_rows(bench: Benchmark, rnd: Round, data: dict) -> list[dict[str, Any]]:
    """Rows with the three axes: score (the board's headline), cost and time. Scored and weekly boards carry
    cost and time; for checks and outcomes they are the mean list-price cost and mean wall time of the
    agent's completed runs in the round (missing stays None)."""
    rows = (data.get("overall") or []) if data else []
    carried = bench.rules.tradeoff_axes
    if carried is not None:
        return [_axes_row(r, *carried(r)) for r in rows]
    agg = {a["entry__agent__slug"]: a for a in Run.objects.filter(round=rnd, status="completed")
           .values("entry__agent__slug").annotate(cost=Avg("cost_usd"), seconds=Avg("wall_seconds"), runs=Count("id"),
                                                  cost_runs=Count("cost_usd"), time_runs=Count("wall_seconds"))}
    out = []
    for r in rows:
        a = agg.get(r["agent"], {})
        cost = a.get("cost")
        out.append(_axes_row(r, r.get(bench.rules.headline_key), float(cost) if cost is not None else None,
                             a.get("seconds"), a.get("runs", 0), a.get("cost_runs", 0), a.get("time_runs", 0)))
    return out


def _axes_row(r: dict[str, Any], score: float | None, cost: float | None, seconds: float | None, runs: int,
              cost_runs: int, time_runs: int) -> dict[str, Any]:
    """One agent on the trade-offs page. An axis reported on only some runs is partial: its mean may rest on
    the cheap or fast runs, so the re-rank scores it as missing (seed 002: missing data is never an
    advantage)."""
    partial = [axis for axis, n in (("cost_usd", cost_runs), ("wall_seconds", time_runs)) if 0 < n < runs]
    return {"agent": r["agent"], "name": r["name"], "rank": r.get("rank"), "score": score, "cost_usd": cost,
            "wall_seconds": seconds, "runs": runs, "axis_runs": {"cost_usd": cost_runs, "wall_seconds": time_runs},
            "partial_axes": partial}


def _weight(params: Mapping[str, str], name: str) -> float:
    try:
        value = float(params.get(name, "1"))
    except ValueError:
        return 1.0
    return min(max(value, 0.0), 10.0) if math.isfinite(value) else 1.0


AXIS_WORD = {"score": "score", "cost_usd": "cost", "wall_seconds": "time"}


def _partial_name(row: dict[str, Any], axis: str) -> str:
    return f"{row['name']} ({AXIS_WORD[axis]} on {row['axis_runs'][axis]} of {row['runs']} runs)"


def _axis_gaps(row: dict[str, Any]) -> list[str]:
    """What a re-ranked row lacks, in words: "no cost", "cost on 3 of 10 runs", and whether the weights made
    it count as the worst value."""
    gaps = []
    for axis in scored_rules.AXES:
        if axis in row["missing_axes"]:
            text = f"no {AXIS_WORD[axis]}"
        elif axis in row["partial_axes"]:
            text = f"{AXIS_WORD[axis]} on {row['axis_runs'][axis]} of {row['runs']} runs"
        else:
            continue
        gaps.append(text + (", counted as the worst" if axis in row["worst_axes"] else ""))
    return gaps


def tradeoffs_page(*, bench_slug: str, params: Mapping[str, str]) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    rounds = rounds_published(bench)
    rnd = round_pick(rounds, params.get("round") or None)
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    data = snap.data if snap and snap.data else {}
    rows = tradeoff_rows(bench, rnd, data)
    weights = {k: _weight(params, k) for k in ("w_score", "w_cost", "w_time")}
    ranked = scored_rules.rerank(rows, weights["w_score"], weights["w_cost"], weights["w_time"])
    m = bench.methodology
    hrefs = {r["agent"]: round_agent_url(bench.slug, rnd.key, r["agent"]) for r in rows}

    def score_fmt(v: float) -> str:
        return fmt_score(v, m)

    table = [{"agent": r["agent"], "name": r["name"], "href": hrefs[r["agent"]], "weighted_rank": r["weighted_rank"],
              "rank": r["rank"], "weighted": "–" if r["weighted"] is None else f"{r['weighted']:.3f}",
              "score": score_fmt(r["score"]) if r["score"] is not None else "–", "cost": fmt_money(r["cost_usd"]),
              "time": fmt_seconds(r["wall_seconds"]), "gaps": _axis_gaps(r)} for r in ranked]
    # A partial mean is not plotted either: it could put an agent on the frontier with its cheap runs only.
    plotted = [{**r, **{a: None for a in r["partial_axes"]}} for r in rows]
    return {"bench": bench, "round": rnd, "rounds": rounds, "weights": weights, "table": table,
            "state": snapshot_state(snap),
            "cost_chart": scatter_chart(plotted, "cost_usd", fmt_money, score_fmt, hrefs),
            "time_chart": scatter_chart(plotted, "wall_seconds", fmt_seconds, score_fmt, hrefs),
            "missing_cost": [r["name"] for r in rows if r["cost_usd"] is None],
            "missing_time": [r["name"] for r in rows if r["wall_seconds"] is None],
            "partial_cost": [_partial_name(r, "cost_usd") for r in rows if "cost_usd" in r["partial_axes"]],
            "partial_time": [_partial_name(r, "wall_seconds") for r in rows if "wall_seconds" in r["partial_axes"]],
            "derived_axes": bench.rules.tradeoff_axes is None, "headline": bench.rules.headline_label}
