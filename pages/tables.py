"""Display tables of a board: columns, and cells that carry their text, their link to the runs behind the
number, and a sort value. One builder per methodology (its board's tabs) in `TABLE_BUILDERS`; the rows come
from the stored snapshot, so nothing here computes a score.

A new methodology adds a function `(ctx, tab, task_key) -> Table` to `TABLE_BUILDERS`, built from the cell
helpers below (`rank_cell`, `agent_cell`, `num_cell`, `rating_cell`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from leaderboard.models import Benchmark, Entry, Round, Task

from .formatting import (
    OUTCOME_BADGE,
    OUTCOME_LABEL,
    fmt_money,
    fmt_pct,
    fmt_range,
    fmt_rating,
    fmt_score,
    fmt_seconds,
    fmt_tokens,
)
from .links import round_agent_url, run_url, task_url


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


def rank_cell(row: dict) -> Cell:
    return Cell(text=str(row["rank"]) if row.get("rank") is not None else "–", sort=row.get("rank"),
                raw=row.get("rank"))


def agent_cell(row: dict, ctx: BoardContext) -> Cell:
    entry = ctx.entries.get(row["agent"])
    sub = " · ".join(x for x in (entry.product_version, entry.model) if x) if entry else ""
    return Cell(text=row["name"], sort=row["name"].lower(), href=reverse("agent", args=[row["agent"]]), sub=sub,
                raw=row["agent"])


def num_cell(value: float | None, text: str, href: str | None = None, title: str = "", **kw: Any) -> Cell:
    return Cell(text=text, sort=value, href=href, title=title, raw=value, **kw)


def rating_cell(row: dict | None) -> Cell:
    rating = fmt_rating(row)
    if rating is None:
        return Cell(text="–", sort=None)
    return Cell(text=rating["text"], sort=row["rating"] if row else None, rating=rating, title=rating["title"],
                raw=row["rating"] if row else None)


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
        cells = {"rank": rank_cell(row), "agent": agent_cell(row, ctx),
                 "overall": num_cell(row.get("overall"), fmt_score(row.get("overall"), "outcomes"), href,
                                     f"{row.get('points')} points over {row.get('tested')} tested tasks",
                                     badges=badges if tab == "safety" else [])}
        if tab != "safety":
            cells["safety"] = num_cell(row.get("safety"), fmt_score(row.get("safety"), "outcomes"),
                                       f"{href}#kind-safety", badges=badges)
        for d in dims:
            v = (row.get("dimensions") or {}).get(d)
            kind = tab if tab in ("local-china", "local-global") else "core"
            cells[f"dim:{d}"] = num_cell(v, fmt_score(v, "outcomes"), f"{href}#kind-{kind}")
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
            cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
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
    if tab == "tasks":
        return _scored_tasks_table(ctx)
    return _scored_overall_table(ctx)


def _scored_tasks_table(ctx: BoardContext) -> Table:
    """Best score per task across trials, pass@k below it."""
    rows = ctx.data.get("overall") or []
    threshold = (ctx.data.get("meta") or {}).get("pass_threshold", 0.8)
    keys = [t.key for t in ctx.tasks]
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False)]
    cols += [Column(f"task:{k}", k, title="Best score across trials; pass@k below") for k in keys]
    out = []
    for row in rows:
        cells = [rank_cell(row), agent_cell(row, ctx)]
        for k in keys:
            c = (row.get("tasks") or {}).get(k)
            if not c:
                cells.append(Cell(text="–", sort=None))
                continue
            badges = [("heuristic", "warn")] if c.get("heuristic") else []
            cells.append(num_cell(c["best"], fmt_score(c["best"], "scored"), ctx.run_href(c.get("best_run")),
                                  f"best of {c['trials']} trials; pass@k {c['passes']}/{c['trials']}",
                                  sub=f"pass@{c['trials']} {fmt_pct(c['pass_at_k'])}", badges=badges))
        out.append({"agent": row["agent"], "cells": cells})
    return Table(caption=f"Best score per task, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out,
                 note=f"Each cell is the best score across trials (links to that trial's run); pass@k is "
                      f"the share of trials scoring at least {threshold:.2f}. 'heuristic' marks a best trial "
                      f"scored by the heuristic fallback, capped at 0.60.")


def _scored_overall_table(ctx: BoardContext) -> Table:
    rows = ctx.data.get("overall") or []
    meta = ctx.data.get("meta") or {}
    threshold = meta.get("pass_threshold", 0.8)
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
        cells = _scored_overall_cells(ctx, row, domains)
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols]})
    missing = [text for text in (_missing_note(meta, "cost"), _missing_note(meta, "latency")) if text]
    note = ("Missing cost or time is shown as –, never as 0, and a mean over only some runs is marked partial. "
            + ("; ".join(missing) + "." if missing else ""))
    return Table(caption=f"Overall board, {ctx.rnd.name or ctx.rnd.key}", columns=cols, rows=out, note=note)


def _scored_overall_cells(ctx: BoardContext, row: dict[str, Any], domains: list[str]) -> dict[str, Cell]:
    """One agent's cells on the scored overall board, by column key."""
    href = ctx.agent_href(row["agent"])
    mean_pak = row.get("mean_pass_at_k")  # computed with the board, never while serving
    badges = [("heuristic", "warn")] if row.get("heuristic") else []
    cells = {"rank": rank_cell(row), "agent": agent_cell(row, ctx),
             "score": num_cell(row.get("score"), fmt_score(row.get("score"), "scored"), href, badges=badges,
                               sub=f"tested {row.get('tested')} of {row.get('of')}"
                               if row.get("tested") != row.get("of") else ""),
             "pass_rate": num_cell(row.get("pass_rate"), fmt_pct(row.get("pass_rate")), href),
             "pass_at_k": num_cell(mean_pak, fmt_pct(mean_pak), href)}
    for d in domains:
        v = (row.get("domains") or {}).get(d)
        cells[f"dom:{d}"] = num_cell(v, fmt_score(v, "scored"), href)
    partial = row.get("partial_axes") or []
    cells["cost"] = num_cell(row.get("cost_usd"), fmt_money(row.get("cost_usd")), href,
                             **_partial_marks("cost_usd" in partial, row.get("cost_runs"), row.get("runs_scored")))
    cells["time"] = num_cell(row.get("wall_seconds"), fmt_seconds(row.get("wall_seconds")), href,
                             **_partial_marks("wall_seconds" in partial, row.get("latency_runs"),
                                              row.get("runs_scored")))
    cells["coverage"] = Cell(text=f"tested {row.get('tested')} of {row.get('of')}", sort=row.get("tested"),
                             href=href, raw=row.get("tested"))
    if ctx.ratings:
        cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
    return cells


def _checks_table(ctx: BoardContext, tab: str, task_key: str | None) -> Table:
    if tab == "tasks":
        return _checks_task_table(ctx, task_key)
    return _checks_overall_table(ctx)


def _runs_cell(row: dict, href: str | None) -> Cell:
    return num_cell(row.get("runs"), str(row.get("runs")), href,
                    sub=f"+{row['not_counted']} not counted" if row.get("not_counted") else "")


def _median_run_cells(ctx: BoardContext, row: dict) -> list[Cell]:
    """The median run's tokens and time, each linking to that run."""
    href = ctx.run_href(row.get("median_run"))
    return [num_cell(row.get("tokens"), fmt_tokens(row.get("tokens")), href),
            num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")), href)]


def _task_caption(ctx: BoardContext, key: str | None) -> str:
    title = next((t.title or t.key for t in ctx.tasks if t.key == key), key or "")
    return f"Task {title}, {ctx.rnd.name or ctx.rnd.key}"


def _checks_task_table(ctx: BoardContext, task_key: str | None) -> Table:
    """One task's board (the first task when `task_key` is not on the board): median run, range, tokens, time."""
    task_boards = ctx.data.get("tasks") or {}
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
        cells = [rank_cell(row), agent_cell(row, ctx),
                 num_cell(row.get("median"), fmt_score(row.get("median"), "checks"),
                          ctx.run_href(row.get("median_run")), "Open the median run"),
                 _runs_cell(row, filt),
                 num_cell(row.get("min"), fmt_range(row.get("min"), row.get("max")), filt),
                 *_median_run_cells(ctx, row)]
        if ratings:
            cells.append(rating_cell(ratings.get(row["agent"])))
        out.append({"agent": row["agent"], "cells": cells})
    return Table(caption=_task_caption(ctx, key), columns=cols, rows=out,
                 note="Ties on the median go to fewer tokens, then less time. Only runs within the time "
                      "limit and token budget count; infra errors never do.",
                 empty="No runs on this task in this round.")


def _checks_overall_table(ctx: BoardContext) -> Table:
    """Mean of median scores over the to-spec tasks, one column per task linking to its median run."""
    task_boards = ctx.data.get("tasks") or {}
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
        cells = {"rank": rank_cell(row), "agent": agent_cell(row, ctx),
                 "overall": num_cell(row.get("overall"), fmt_score(row.get("overall"), "checks"), href,
                                     sub=_checks_overall_sub(row)),
                 "range": num_cell(row.get("min"), fmt_range(row.get("min"), row.get("max")), href),
                 "runs": num_cell(row.get("runs"), str(row.get("runs")), href)}
        for k in spec:
            v = (row.get("tasks") or {}).get(k)
            if k in (row.get("pending") or []):
                cells[f"task:{k}"] = Cell(text="awaiting re-run", sort=None, title="Only platform failures so far: "
                                          "left out of this agent's overall until it is re-run")
                continue
            cells[f"task:{k}"] = num_cell(v, fmt_score(v, "checks"), ctx.run_href(median_runs.get((k, row["agent"]))),
                                          "Open the median run")
        if ctx.ratings:
            cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
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
        cells = [rank_cell(row), agent_cell(row, ctx), rating_cell(row.get("rating")),
                 Cell(text=checks, sort=checks, href=ctx.run_href(row.get("median_run")), raw=row.get("admitted")),
                 _runs_cell(row, filt),
                 *_median_run_cells(ctx, row)]
        out.append({"agent": row["agent"], "cells": cells})
    return Table(caption=_task_caption(ctx, key), columns=cols, rows=out,
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
        cells = [rank_cell(row), agent_cell(row, ctx)]
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
            cost = num_cell(row.get("cost_usd"), fmt_money(row.get("cost_usd")), href, sub="metered")
        elif row.get("plan_label"):
            cost = Cell(text=row["plan_label"], sort=None, href=href, sub="plan label", raw=row["plan_label"])
        else:
            cost = Cell(text="–")
        cells += [num_cell(row.get("passes"), str(row.get("passes")), href),
                  num_cell(row.get("partials"), str(row.get("partials")), href),
                  num_cell(row.get("fails"), str(row.get("fails")), href),
                  num_cell(row.get("points"), str(row.get("points")), href),
                  num_cell(row.get("pass_rate"), fmt_pct(row.get("pass_rate")), href,
                           sub=f"{len(row['in_review'])} in review" if row.get("in_review") else ""),
                  _interventions_cell(row, href),
                  num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")), href), cost]
        out.append({"agent": row["agent"], "cells": cells})
    return Table(caption=f"{ctx.rnd.name or ctx.rnd.key}: week of {ctx.rnd.starts_on or ''}", columns=cols,
                 rows=out, note="Ranked by pass rate, then fewer interventions (an unknown count goes after every "
                                "known total), then lower dollar cost, then name (ignoring case). Points stay "
                                "visible so a partial is not hidden; a partial is not a pass. A run that reaches "
                                "the 30-minute cap is a fail and counts 30 minutes of time.")


def _interventions_cell(row: dict[str, Any], href: str | None) -> Cell:
    """The week's interventions, or "unknown" when a run has no count (a missing count is not 0)."""
    if row.get("interventions") is not None:
        return num_cell(row["interventions"], str(row["interventions"]), href)
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
