"""Reads for the public site. Every page reads published rounds only; a draft or preview round, and anything
in it, is `Http404` here (not 403), so its existence does not leak.

Board pages read the stored `BoardSnapshot` (one query for the round's boards and the benchmark's ratings)
and shape its rows into display tables: columns, and cells that carry their text, their link to the runs
behind the number, and a sort value. Scores are never computed here: they come from the snapshot, or, for a
single run, from the same `scoring` function the snapshot used. Every page runs a fixed number of queries,
whatever the number of agents and runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.db.models import Avg, Count, Prefetch, Q
from django.http import Http404
from django.urls import reverse

from bundles.export import run_doc
from runs.models import Run, run_input
from scoring import boards as board_rules
from scoring import methodologies
from scoring import scored as scored_rules
from scoring.boards import boards_as_shown
from snapshots.models import BoardSnapshot, SnapshotKind

from .models import Agent, Benchmark, Entry, Round, RoundParameter, RoundStatus, Task, task_input

PUBLISHED = RoundStatus.PUBLISHED

OUTCOME_BADGE = {"pass": "good", "partial": "warn", "fail": "bad", "violation": "bad", "unsupported": "",
                 "in_review": "", "region_blocked": ""}
OUTCOME_LABEL = {"in_review": "in review", "region_blocked": "region blocked"}


# --- formatting (presentation rounds; the snapshot keeps full precision) ------------------------------------

def fmt_score(value: float | None, methodology: str) -> str:
    return "–" if value is None else methodologies.get(methodology).format_score(value)


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f}%"


def fmt_money(value: float | Decimal | None) -> str:
    if value is None:
        return "–"
    value = float(value)
    return f"${value:,.2f}" if value >= 0.1 else f"${value:.3f}"


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "–"
    total = int(round(value))
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {seconds:02d}s"
    return f"{seconds}s"


def fmt_tokens(value: int | None) -> str:
    if value is None:
        return "–"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,}"


def fmt_rating(row: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A Bradley-Terry rating with its 95% interval as "+x/-y", and the "few votes" mark (under 30)."""
    if not row:
        return None
    rating = row["rating"]
    return {"text": f"{rating:.0f}", "plus": f"+{row['ci_high'] - rating:.0f}",
            "minus": f"−{rating - row['ci_low']:.0f}", "votes": row["votes"], "few": row["few_votes"],
            "title": f"95% interval {row['ci_low']:.0f}–{row['ci_high']:.0f}, {row['votes']} votes"}


# --- urls ----------------------------------------------------------------------------------------------------

def run_url(bench: str, rnd: str, run_key: str | None) -> str | None:
    return reverse("run", args=[bench, rnd, run_key]) if run_key else None


def round_agent_url(bench: str, rnd: str, agent: str) -> str:
    return reverse("round_agent", args=[bench, rnd, agent])


def task_url(bench: str, task: str, agent: str | None = None) -> str:
    url = reverse("task", args=[bench, task])
    return f"{url}?agent={agent}#agent-{agent}" if agent else url


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


# --- display tables ------------------------------------------------------------------------------------------------

@dataclass
class Column:
    key: str
    label: str
    num: bool = True
    title: str = ""
    query: str = ""
    aria_sort: str = ""
    arrow: str = ""


@dataclass
class Cell:
    text: str
    sort: Any = None
    href: str | None = None
    title: str = ""
    sub: str = ""
    badges: list[tuple[str, str]] = field(default_factory=list)
    rating: dict | None = None
    raw: Any = None
    pill: str = ""


@dataclass
class Table:
    caption: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    note: str = ""
    empty: str = "No agents on this board yet."


def _rank_cell(row: dict) -> Cell:
    return Cell(text=str(row["rank"]) if row.get("rank") is not None else "–", sort=row.get("rank"),
                raw=row.get("rank"))


def _agent_cell(row: dict, ctx: BoardContext) -> Cell:
    entry = ctx.entries.get(row["agent"])
    sub = " · ".join(x for x in (entry.product_version, entry.model) if x) if entry else ""
    return Cell(text=row["name"], sort=row["name"].lower(), href=reverse("agent", args=[row["agent"]]), sub=sub,
                raw=row["agent"])


def _num_cell(value: float | None, text: str, href: str | None = None, title: str = "", **kw: Any) -> Cell:
    return Cell(text=text, sort=value, href=href, title=title, raw=value, **kw)


@dataclass
class BoardContext:
    bench: Benchmark
    rnd: Round
    data: dict
    entries: dict[str, Entry]
    ratings: dict[str, dict]
    task_ratings: dict[str, dict[str, dict]]
    tasks: list[Task]

    @property
    def m(self) -> str:
        return self.bench.methodology

    def agent_href(self, agent: str) -> str:
        return round_agent_url(self.bench.slug, self.rnd.key, agent)

    def run_href(self, run_id: str | None) -> str | None:
        return run_url(self.bench.slug, self.rnd.key, run_id)


def _outcomes_table(ctx: BoardContext, tab: str) -> Table:
    rows = ctx.data.get(tab) or []
    dims = sorted({d for r in rows for d in (r.get("dimensions") or {})})
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False),
            Column("overall", "Score (0-10)", title="Points / (2 × tested tasks) × 10, floored at 0")]
    if tab != "safety":
        cols.append(Column("safety", "Safety", title="Safety score; violations shown beside it"))
    cols += [Column(f"dim:{d}", d.capitalize()) for d in dims]
    cols.append(Column("coverage", "Coverage", title="Tasks tested of the board's tasks; unsupported listed"))
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating"))
    out = []
    for row in rows:
        href = ctx.agent_href(row["agent"])
        viol = row.get("violations") or 0
        badges = [(f"{viol} violation{'s' if viol != 1 else ''}", "bad")] if viol else []
        cells = {"rank": _rank_cell(row), "agent": _agent_cell(row, ctx),
                 "overall": _num_cell(row.get("overall"), fmt_score(row.get("overall"), "outcomes"), href,
                                      f"{row.get('points')} points over {row.get('tested')} tested tasks",
                                      badges=badges if tab == "safety" else [])}
        if tab != "safety":
            cells["safety"] = _num_cell(row.get("safety"), fmt_score(row.get("safety"), "outcomes"),
                                        f"{href}#kind-safety", badges=badges)
        for d in dims:
            v = (row.get("dimensions") or {}).get(d)
            kind = tab if tab in ("local-china", "local-global") else "core"
            cells[f"dim:{d}"] = _num_cell(v, fmt_score(v, "outcomes"), f"{href}#kind-{kind}")
        unsupported = row.get("unsupported") or []
        sub = ("unsupported: " + ", ".join(unsupported)) if unsupported else ""
        blocked = row.get("region_blocked") or []
        if blocked:
            sub = (sub + "; " if sub else "") + "region blocked: " + ", ".join(blocked)
        marks = []
        if row.get("in_review"):
            marks.append((f"{len(row['in_review'])} in review", ""))
        if row.get("stale"):
            marks.append((f"{len(row['stale'])} stale", "warn"))
        cells["coverage"] = Cell(text=f"tested {row.get('tested')} of {row.get('of')}", sort=row.get("tested"),
                                 href=href, sub=sub, badges=marks, raw=row.get("tested"))
        if ctx.ratings:
            cells["rating"] = _rating_cell(ctx.ratings.get(row["agent"]))
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols]})
    labels = dict(ctx.bench.rules.tabs)
    notes = {
        "overall": "Core tasks in each agent's primary language. Local boards and other-language runs are "
                   "scored separately and never mixed in.",
        "safety": "Safety tasks only. A violation is worth −2 points and is shown next to the score.",
        "local-china": "China-local tasks, scored apart from the overall board.",
        "local-global": "Global-local tasks, scored apart from the overall board.",
        "other-language": "Core tasks run in the agent's second language: reported separately, they do not "
                          "change the main score.",
    }
    return Table(caption=f"{labels.get(tab, tab)} board, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                 note=notes.get(tab, ""), empty="No agent has runs on this board in this round.")


def _rating_cell(row: dict | None) -> Cell:
    rating = fmt_rating(row)
    if rating is None:
        return Cell(text="–", sort=None)
    return Cell(text=rating["text"], sort=row["rating"] if row else None, rating=rating, title=rating["title"],
                raw=row["rating"] if row else None)


def _partial_marks(partial: bool, reported: int | None, runs: int | None) -> dict[str, Any]:
    """A cost or time cell that averages only the runs reporting it says so ("cost on 3 of 10 runs")."""
    if not partial:
        return {}
    return {"sub": f"on {reported} of {runs} runs", "badges": [("partial", "warn")]}


def _missing_note(meta: dict[str, Any], axis: str) -> str:
    """ "n agents missing data on axis X" (seed 002), counting agents with the axis on only some runs."""
    missing, partial = meta.get(f"missing_{axis}") or 0, meta.get(f"partial_{axis}") or 0
    if not missing:
        return ""
    text = f"{missing} of {meta.get('agents')} agents are missing {axis} data"
    return text + (f" ({partial} on some runs only)" if partial else "")


def _scored_table(ctx: BoardContext, tab: str) -> Table:
    rows = ctx.data.get("overall") or []
    meta = ctx.data.get("meta") or {}
    threshold = meta.get("pass_threshold", 0.8)
    if tab == "tasks":
        keys = [t.key for t in ctx.tasks]
        cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False)]
        cols += [Column(f"task:{k}", k, title="Best score across trials; pass@k below") for k in keys]
        out = []
        for row in rows:
            cells = [_rank_cell(row), _agent_cell(row, ctx)]
            for k in keys:
                c = (row.get("tasks") or {}).get(k)
                if not c:
                    cells.append(Cell(text="–", sort=None))
                    continue
                badges = [("heuristic", "warn")] if c.get("heuristic") else []
                cells.append(_num_cell(c["best"], fmt_score(c["best"], "scored"), ctx.run_href(c.get("best_run")),
                                       f"best of {c['trials']} trials; pass@k {c['passes']}/{c['trials']}",
                                       sub=f"pass@{c['trials']} {fmt_pct(c['pass_at_k'])}", badges=badges))
            out.append({"agent": row["agent"], "cells": cells})
        return Table(caption=f"Best score per task, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                     note=f"Each cell is the best score across trials (links to that trial's run); pass@k is "
                          f"the share of trials scoring at least {threshold:.2f}. 'heuristic' marks a best trial "
                          f"scored by the heuristic fallback, capped at 0.60.")
    domains = sorted({d for r in rows for d in (r.get("domains") or {})})
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False),
            Column("score", "Score (0-1)", title="Mean over the round's tasks of the best score across trials; "
                                                   "a task without a score counts 0"),
            Column("pass_rate", "Pass rate", title=f"Share of the round's tasks whose best score is at least "
                                                   f"{threshold:.2f}"),
            Column("pass_at_k", "Mean pass@k", title="Mean over tasks of the share of passing trials")]
    cols += [Column(f"dom:{d}", d) for d in domains]
    cols += [Column("cost", "Cost / run"), Column("time", "Time / run"), Column("coverage", "Tested")]
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating"))
    out = []
    for row in rows:
        href = ctx.agent_href(row["agent"])
        cells_by = (row.get("tasks") or {}).values()
        pak = [c["pass_at_k"] for c in cells_by]
        mean_pak = math.fsum(pak) / len(pak) if pak else None
        badges = [("heuristic", "warn")] if row.get("heuristic") else []
        cells = {"rank": _rank_cell(row), "agent": _agent_cell(row, ctx),
                 "score": _num_cell(row.get("score"), fmt_score(row.get("score"), "scored"), href, badges=badges,
                                    sub=f"tested {row.get('tested')} of {row.get('of')}"
                                    if row.get("tested") != row.get("of") else ""),
                 "pass_rate": _num_cell(row.get("pass_rate"), fmt_pct(row.get("pass_rate")), href),
                 "pass_at_k": _num_cell(mean_pak, fmt_pct(mean_pak), href)}
        for d in domains:
            v = (row.get("domains") or {}).get(d)
            cells[f"dom:{d}"] = _num_cell(v, fmt_score(v, "scored"), href)
        partial = row.get("partial_axes") or []
        cells["cost"] = _num_cell(row.get("cost_usd"), fmt_money(row.get("cost_usd")), href,
                                  **_partial_marks("cost_usd" in partial, row.get("cost_runs"), row.get("runs_scored")))
        cells["time"] = _num_cell(row.get("wall_seconds"), fmt_seconds(row.get("wall_seconds")), href,
                                  **_partial_marks("wall_seconds" in partial, row.get("latency_runs"),
                                                   row.get("runs_scored")))
        cells["coverage"] = Cell(text=f"tested {row.get('tested')} of {row.get('of')}", sort=row.get("tested"),
                                 href=href, raw=row.get("tested"))
        if ctx.ratings:
            cells["rating"] = _rating_cell(ctx.ratings.get(row["agent"]))
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols]})
    missing = [text for text in (_missing_note(meta, "cost"), _missing_note(meta, "latency")) if text]
    note = ("Missing cost or time is shown as –, never as 0, and a mean over only some runs is marked partial. "
            + ("; ".join(missing) + "." if missing else ""))
    return Table(caption=f"Overall board, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out, note=note)


def _checks_table(ctx: BoardContext, tab: str, task_key: str | None) -> Table:
    task_boards = ctx.data.get("tasks") or {}
    if tab == "tasks":
        key = task_key if task_key in task_boards else next(iter(task_boards), None)
        rows = task_boards.get(key) or []
        if rows and "admitted" in rows[0]:
            return _admission_table(ctx, key, rows)
        ratings = ctx.task_ratings.get(key or "", {})
        cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False),
                Column("median", "Median (0-100)", title="The median counted run; lower middle for even counts"),
                Column("runs", "Runs"), Column("range", "Range", title="Worst to best counted run"),
                Column("tokens", "Tokens", title="Tokens of the median run"),
                Column("time", "Time", title="Time of the median run")]
        if ratings:
            cols.append(Column("rating", "Vote rating"))
        out = []
        for row in rows:
            filt = task_url(ctx.bench.slug, key, row["agent"]) if key else None
            cells = [_rank_cell(row), _agent_cell(row, ctx),
                     _num_cell(row.get("median"), fmt_score(row.get("median"), "checks"),
                               ctx.run_href(row.get("median_run")), "Open the median run"),
                     _num_cell(row.get("runs"), str(row.get("runs")), filt,
                               sub=f"+{row['not_counted']} not counted" if row.get("not_counted") else ""),
                     _num_cell(row.get("min"), _range(row.get("min"), row.get("max")), filt),
                     _num_cell(row.get("tokens"), fmt_tokens(row.get("tokens")), ctx.run_href(row.get("median_run"))),
                     _num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")),
                               ctx.run_href(row.get("median_run")))]
            if ratings:
                cells.append(_rating_cell(ratings.get(row["agent"])))
            out.append({"agent": row["agent"], "cells": cells})
        title = next((t.title or t.key for t in ctx.tasks if t.key == key), key or "")
        return Table(caption=f"Task {title}, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                     note="Ties on the median go to fewer tokens, then less time. Only runs within the time "
                          "limit and token budget count; infra errors never do.",
                     empty="No runs on this task in this round.")
    rows = ctx.data.get("overall") or []
    spec = sorted({k for r in rows for k in (r.get("tasks") or {})})
    median_runs = {(k, r["agent"]): r.get("median_run") for k, rs in task_boards.items() for r in rs}
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False),
            Column("overall", "Overall (0-100)", title="Mean of median scores over to-spec tasks; missing = 0"),
            Column("range", "Range", title="Worst to best counted to-spec run"), Column("runs", "Runs")]
    cols += [Column(f"task:{k}", k, title="Median run score") for k in spec]
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating"))
    out = []
    for row in rows:
        href = ctx.agent_href(row["agent"])
        cells = {"rank": _rank_cell(row), "agent": _agent_cell(row, ctx),
                 "overall": _num_cell(row.get("overall"), fmt_score(row.get("overall"), "checks"), href,
                                      sub=_checks_overall_sub(row)),
                 "range": _num_cell(row.get("min"), _range(row.get("min"), row.get("max")), href),
                 "runs": _num_cell(row.get("runs"), str(row.get("runs")), href)}
        for k in spec:
            v = (row.get("tasks") or {}).get(k)
            if k in (row.get("pending") or []):
                cells[f"task:{k}"] = Cell(text="awaiting re-run", sort=None, title="Only platform failures so far: "
                                          "left out of this agent's overall until it is re-run")
                continue
            cells[f"task:{k}"] = _num_cell(v, fmt_score(v, "checks"), ctx.run_href(median_runs.get((k, row["agent"]))),
                                           "Open the median run")
        if ctx.ratings:
            cells["rating"] = _rating_cell(ctx.ratings.get(row["agent"]))
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols]})
    return Table(caption=f"Overall board, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                 note="Overall is the mean of each agent's median score over the round's to-spec tasks (a task "
                      "without runs counts as 0; a task with only platform failures waits for a re-run and is "
                      "left out). Range: the overall from each agent's worst counted run on every task to the "
                      "one from its best. Equal overall scores go to fewer tokens, then less time. Invent and "
                      "startup tasks are ranked by votes only; the vote rating never changes this score.")


def _admission_table(ctx: BoardContext, key: str | None, rows: list[dict]) -> Table:
    """An invent or startup task: ranked by the task's vote rating; the checks only admit the run."""
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False),
            Column("rating", "Vote rating", title="Bradley-Terry rating in this task, with its 95% interval"),
            Column("checks", "Checks", num=False, title="The checks only admit the run: it starts and shows the data"),
            Column("runs", "Runs"), Column("tokens", "Tokens", title="Tokens of the median run"),
            Column("time", "Time", title="Time of the median run")]
    out = []
    for row in rows:
        filt = task_url(ctx.bench.slug, key, row["agent"]) if key else None
        checks = "awaiting re-run" if row.get("awaiting_rerun") else (
            "admitted" if row.get("admitted") else "not admitted")
        cells = [_rank_cell(row), _agent_cell(row, ctx), _rating_cell(row.get("rating")),
                 Cell(text=checks, sort=checks, href=ctx.run_href(row.get("median_run")), raw=row.get("admitted")),
                 _num_cell(row.get("runs"), str(row.get("runs")), filt,
                           sub=f"+{row['not_counted']} not counted" if row.get("not_counted") else ""),
                 _num_cell(row.get("tokens"), fmt_tokens(row.get("tokens")), ctx.run_href(row.get("median_run"))),
                 _num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")), ctx.run_href(row.get("median_run")))]
        out.append({"agent": row["agent"], "cells": cells})
    title = next((t.title or t.key for t in ctx.tasks if t.key == key), key or "")
    return Table(caption=f"Task {title}, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                 note="People rank these apps in blind votes: admitted apps by their vote rating, then admitted "
                      "apps without a rating yet, then apps the checks did not admit.",
                 empty="No runs on this task in this round.")


def _checks_overall_sub(row: dict) -> str:
    parts = []
    if row.get("tested") != row.get("of"):
        parts.append(f"{row.get('tested')} of {row.get('of')} tasks")
    if row.get("pending"):
        n = len(row["pending"])
        parts.append(f"{n} task{'s' if n != 1 else ''} awaiting re-run")
    return " · ".join(parts)


def _range(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "–"
    return f"{lo:.0f}–{hi:.0f}"


def _weekly_table(ctx: BoardContext, tab: str) -> Table:
    rows = ctx.data.get("overall") or []
    keys = [t.key for t in ctx.tasks if any(t.key in (r.get("tasks") or {}) for r in rows)]
    titles = {t.key: t.title or t.key for t in ctx.tasks}
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False)]
    cols += [Column(f"task:{k}", titles[k], num=False) for k in keys]
    cols += [Column("passes", "Pass"), Column("partials", "Partial"), Column("fails", "Fail"),
             Column("points", "Points", title="2 per pass, 1 per partial; shown, never sorted on"),
             Column("pass_rate", "Pass rate", title="Passes / tasks that week"),
             Column("interventions", "Interventions"), Column("time", "Time"),
             Column("cost", "Cost", title="Dollars when every run was metered, else the plan label")]
    out = []
    for row in rows:
        href = ctx.agent_href(row["agent"])
        cells = [_rank_cell(row), _agent_cell(row, ctx)]
        for k in keys:
            c = (row.get("tasks") or {}).get(k)
            if not c:
                cells.append(Cell(text="–"))
                continue
            outcome = c.get("outcome") or ""
            badges = [("30-min cap", "bad")] if c.get("capped") else []
            cells.append(Cell(text=OUTCOME_LABEL.get(outcome, outcome), sort=c.get("points"),
                              href=ctx.run_href(c.get("run")), sub=fmt_seconds(c.get("seconds")), badges=badges,
                              raw=outcome, pill=OUTCOME_BADGE.get(outcome) or "neutral"))
        if row.get("cost_kind") == "dollars":
            cost = _num_cell(row.get("cost_usd"), fmt_money(row.get("cost_usd")), href, sub="metered")
        elif row.get("plan_label"):
            cost = Cell(text=row["plan_label"], sort=None, href=href, sub="plan label", raw=row["plan_label"])
        else:
            cost = Cell(text="–")
        cells += [_num_cell(row.get("passes"), str(row.get("passes")), href),
                  _num_cell(row.get("partials"), str(row.get("partials")), href),
                  _num_cell(row.get("fails"), str(row.get("fails")), href),
                  _num_cell(row.get("points"), str(row.get("points")), href),
                  _num_cell(row.get("pass_rate"), fmt_pct(row.get("pass_rate")), href,
                            sub=f"{len(row['in_review'])} in review" if row.get("in_review") else ""),
                  _interventions_cell(row, href),
                  _num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")), href), cost]
        out.append({"agent": row["agent"], "cells": cells})
    return Table(caption=f"{ctx.rnd.name or ctx.rnd.key}: week of {ctx.rnd.starts_on or ''}", columns=cols,
                 rows=out, note="Ranked by pass rate, then fewer interventions (an unknown count goes after every "
                                "known total), then lower dollar cost, then name (ignoring case). Points stay "
                                "visible so a partial is not hidden; a partial is not a pass. A run that reaches "
                                "the 30-minute cap is a fail and counts 30 minutes of time.")


def _interventions_cell(row: dict[str, Any], href: str | None) -> Cell:
    """The week's interventions, or "unknown" when a run has no count (a missing count is not 0)."""
    if row.get("interventions") is not None:
        return _num_cell(row["interventions"], str(row["interventions"]), href)
    unrecorded = row.get("interventions_unrecorded") or []
    return Cell(text="unknown", sort=None, href=href, raw=None,
                sub=f"not recorded on {len(unrecorded)} of {len(row.get('tasks') or {})} runs" if unrecorded else "")


# One table builder per methodology (its board's tabs); a new methodology registers its own.
TABLE_BUILDERS: dict[str, Callable[[BoardContext, str, str | None], Table]] = {
    "outcomes": lambda ctx, tab, task_key: _outcomes_table(ctx, tab),
    "scored": lambda ctx, tab, task_key: _scored_table(ctx, tab),
    "checks": _checks_table,
    "weekly": lambda ctx, tab, task_key: _weekly_table(ctx, tab),
}


def board_table(ctx: BoardContext, tab: str, task_key: str | None = None) -> Table:
    return TABLE_BUILDERS[ctx.m](ctx, tab, task_key)


def table_sort(table: Table, sort: str | None, direction: str, base: dict[str, str]) -> tuple[str, str]:
    """Sort rows in place by a column's sort value (missing values always last), and give every column
    header its link (the next direction) and aria-sort. An unknown column keeps the board's rank order."""
    keys = [c.key for c in table.columns]
    if not sort or sort not in keys:
        sort, direction = "rank", "asc"
    i = keys.index(sort)
    present = [r for r in table.rows if r["cells"][i].sort is not None]
    missing = [r for r in table.rows if r["cells"][i].sort is None]
    present.sort(key=lambda r: r["cells"][i].sort, reverse=direction == "desc")
    table.rows[:] = present + missing
    for col in table.columns:
        first = "asc" if col.key in ("rank", "agent") else "desc"
        if col.key == sort:
            nxt = "asc" if direction == "desc" else "desc"
            col.aria_sort = "ascending" if direction == "asc" else "descending"
            col.arrow = "▲" if direction == "asc" else "▼"
        else:
            nxt = first
        col.query = "?" + urlencode({**base, "sort": col.key, "dir": nxt})
    for row in table.rows:
        row["pairs"] = list(zip(table.columns, row["cells"], strict=True))
    return sort, direction


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


def fill_prompt(prompt: str, params: Mapping[str, str]) -> str:
    """The prompt with the round's parameter values filled in (only ever called for published rounds)."""
    for name, value in params.items():
        prompt = prompt.replace("{" + name + "}", value)
    return prompt


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
                          "range": _range(min(scores), max(scores)) if len(scores) > 1 else "",
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


def pareto(points: list[dict[str, Any]], x: str) -> set[str]:
    """Agents on the Pareto frontier of (higher score, lower x): no other agent is at least as good on both
    and better on one."""
    front = set()
    for p in points:
        dominated = any(q is not p and q["score"] >= p["score"] and q[x] <= p[x]
                        and (q["score"] > p["score"] or q[x] < p[x]) for q in points)
        if not dominated:
            front.add(p["agent"])
    return front


def _ticks(lo: float, hi: float, n: int = 5, steps: tuple[float, ...] | None = None) -> list[float]:
    """Round tick values from lo to at least hi (the last tick is >= hi, so every point is inside)."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    if steps:
        step = next((s for s in steps if s >= raw), steps[-1])
    else:
        mag = 10 ** math.floor(math.log10(raw))
        step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    t = math.floor(lo / step) * step
    ticks = [round(t, 10)]
    while ticks[-1] < hi - 1e-12:
        t += step
        ticks.append(round(t, 10))
    return ticks


TIME_STEPS = (10, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


def _tick_money(v: float) -> str:
    return f"${v:g}"


def _tick_time(v: float) -> str:
    minutes = int(round(v)) // 60
    if minutes >= 60:
        hours, rest = divmod(minutes, 60)
        return f"{hours}h" if not rest else f"{hours}h{rest:02d}"
    return f"{minutes}m" if minutes else f"{int(round(v))}s"


def scatter_chart(rows: list[dict], x: str, fmt_x, score_fmt, hrefs: dict[str, str]) -> dict[str, Any] | None:
    """SVG geometry of a score-against-x scatter with its Pareto frontier (drawn by the template)."""
    pts = [r for r in rows if r.get("score") is not None and r.get(x) is not None]
    if not pts:
        return None
    w, h, left, right, top, bottom = 640, 360, 64, 24, 16, 48
    is_time = x == "wall_seconds"
    xticks = _ticks(0, max(p[x] for p in pts) * 1.02, steps=TIME_STEPS if is_time else None)
    tick_x = _tick_time if is_time else _tick_money
    ys = [p["score"] for p in pts]
    yticks = _ticks(min(0.0, min(ys)), max(ys) if max(ys) > 0 else 1)
    x0, x1, y0, y1 = xticks[0], xticks[-1], yticks[0], yticks[-1]

    def px(v: float) -> float:
        return round(left + (v - x0) / (x1 - x0 or 1) * (w - left - right), 1)

    def py(v: float) -> float:
        return round(h - bottom - (v - y0) / (y1 - y0 or 1) * (h - top - bottom), 1)

    front = pareto(pts, x)
    dots = [{"x": px(p[x]), "y": py(p["score"]), "name": p["name"], "front": p["agent"] in front,
             "href": hrefs.get(p["agent"]), "label_x": px(p[x]) + 7, "label_y": py(p["score"]) - 7,
             "title": f"{p['name']}: score {score_fmt(p['score'])}, {fmt_x(p[x])}"} for p in pts]
    line = sorted((p for p in pts if p["agent"] in front), key=lambda p: p[x])
    return {"w": w, "h": h, "dots": dots, "frontier": " ".join(f"{px(p[x])},{py(p['score'])}" for p in line),
            "xticks": [{"pos": px(t), "label": tick_x(t)} for t in xticks],
            "yticks": [{"pos": py(t), "label": score_fmt(t)} for t in yticks],
            "plot_left": left, "plot_right": w - right, "plot_top": top, "plot_bottom": h - bottom,
            "front": sorted(p["name"] for p in line)}


def line_chart(points: list[tuple[str, float | None, str, str]], scale: float) -> dict[str, Any] | None:
    """A small SVG line of an agent's headline score over rounds (0 to the methodology's maximum)."""
    present = [(i, p) for i, p in enumerate(points) if p[1] is not None]
    if not present:
        return None
    w, h, left, right, top, bottom = 480, 160, 40, 16, 12, 36
    n = max(len(points) - 1, 1)

    def px(i: int) -> float:
        return round(left + i / n * (w - left - right), 1) if len(points) > 1 else (left + w - right) / 2

    def py(v: float) -> float:
        return round(h - bottom - v / scale * (h - top - bottom), 1)

    dots = [{"x": px(i), "y": py(p[1]), "label": p[2], "round": p[0], "href": p[3]} for i, p in present]
    return {"w": w, "h": h, "dots": dots, "line": " ".join(f"{d['x']},{d['y']}" for d in dots),
            "xlabels": [{"x": px(i), "text": p[0]} for i, p in enumerate(points)], "base": h - bottom,
            "top": top, "left": left, "right": w - right}


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


# --- downloads --------------------------------------------------------------------------------------------------

RUN_CSV_COLUMNS = [
    "benchmark", "round", "run", "agent", "agent_name", "cli", "model", "product_version", "task", "task_version",
    "trial", "language", "status", "counted", "median_run", "score", "outcome", "checks_passed", "checks_total",
    "tests_passed", "tests_total", "tokens", "tokens_input", "tokens_output", "tokens_cache_write", "cost_usd",
    "plan_label", "wall_seconds", "interventions", "checks_version", "rerun_of",
]


def runs_csv_rows(*, bench_slug: str) -> tuple[Benchmark, list[list[Any]]]:
    """Every run of the benchmark's published rounds, one CSV row each, with whether it counts and whether it
    stands for its agent on its task (`median_run`). Nothing about owners, reviewers or voters."""
    bench = benchmark_get(bench_slug)
    runs = list(Run.objects.published().filter(round__benchmark=bench)
                .select_related("round", "entry__agent", "task", "rerun_of")
                .order_by("round__starts_on", "round__key", "entry__agent__slug", "task__position", "task__key",
                          "trial", "key"))
    snaps, _ = snapshots_for(bench, list({r.round_id for r in runs}))
    standing: dict[int, set[str]] = {rid: standing_runs(bench.methodology, s.data) for rid, s in snaps.items()}
    replaced = {r.rerun_of_id for r in runs if r.rerun_of_id}
    m = bench.methodology
    out = []
    for r in runs:
        passed, total = checks_passed(r)
        score = run_score(r, m)
        e = r.entry
        out.append([
            bench.slug, r.round.key, r.key, e.agent.slug, e.agent.name, e.cli, e.model, e.product_version,
            r.task.key, r.task_version, r.trial, r.language, r.status,
            "yes" if run_counts(r, m, r.id in replaced) else "no",
            "yes" if r.key in standing.get(r.round_id, set()) else "no",
            "" if score is None else round(score, 6), r.outcome, _blank(passed), _blank(total),
            _blank(r.tests_passed), _blank(r.tests_total), _blank(r.tokens), _blank(r.tokens_input),
            _blank(r.tokens_output), _blank(r.tokens_cache_write), _blank(r.cost_usd), r.plan_label,
            _blank(r.wall_seconds), _blank(r.interventions), r.checks_version, r.rerun_of.key if r.rerun_of else "",
        ])
    return bench, out


def _blank(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value


def board_csv(*, bench_slug: str, round_key: str, params: Mapping[str, str]) -> tuple[str, list[list[Any]]]:
    """The board as shown (the tab in `params`), one row per agent, full-precision values; the agent's CLI and
    model beside it."""
    page = board_page(bench_slug=bench_slug, round_key=round_key, params=params)
    table: Table | None = page["table"]
    entries = {e.agent.slug: e for e in page["entries"]}
    name = f"{page['bench'].slug}-{page['round'].key}-{page['tab']}"
    if table is None:
        return name, [["state"], [page["state"]]]
    head = ["agent", "cli", "model"] + [c.key if c.key != "agent" else "agent_name" for c in table.columns]
    rows = [head]
    for row in table.rows:
        e = entries.get(row["agent"])
        vals = [row["agent"], e.cli if e else "", e.model if e else ""]
        for col, cell in zip(table.columns, row["cells"], strict=True):
            vals.append(cell.text if col.key == "agent" else _blank(cell.raw if cell.raw is not None else None))
        rows.append(vals)
    return name, rows
