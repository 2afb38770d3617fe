"""The checks methodology's boards: the overall board (the mean of median scores over the to-spec tasks, one
column per task) and one board per task (median run, range, tokens, time), where an invent or startup task is
ranked by its vote rating and the checks only admit the run."""

from __future__ import annotations

from scoring.checks import ranked_by_votes
from scoring.types import ChecksOverallRow, ChecksTaskRow

from .formatting import fmt_score, fmt_seconds, fmt_tokens
from .links import task_url
from .table_cells import (
    RANGE_CSV,
    RATING_CSV,
    BoardContext,
    Cell,
    Column,
    Table,
    agent_cell,
    num_cell,
    range_cell,
    rank_cell,
    rating_cell,
)


def checks_table(ctx: BoardContext, tab: str, task_key: str | None) -> Table:
    if tab == "tasks":
        return _checks_task_table(ctx, task_key)
    return _checks_overall_table(ctx)


def _runs_cell(row: ChecksTaskRow, href: str | None) -> Cell:
    return num_cell(
        row.get("runs"),
        str(row.get("runs")),
        href,
        sub=f"+{row['not_counted']} not counted" if row.get("not_counted") else "",
    )


def _median_run_cells(ctx: BoardContext, row: ChecksTaskRow) -> list[Cell]:
    """The median run's tokens and time, each linking to that run."""
    href = ctx.run_href(row.get("median_run"))
    return [
        num_cell(row.get("tokens"), fmt_tokens(row.get("tokens")), href),
        num_cell(row.get("seconds"), fmt_seconds(row.get("seconds")), href),
    ]


def _task_caption(ctx: BoardContext, key: str | None) -> str:
    title = next((t.title or t.key for t in ctx.tasks if t.key == key), key or "")
    return f"Task {title}, {ctx.rnd.name or ctx.rnd.key}"


def _checks_task_table(ctx: BoardContext, task_key: str | None) -> Table:
    """One task's board (the first task when `task_key` is not on the board): median run, range, tokens, time."""
    task_boards: dict[str, list[ChecksTaskRow]] = ctx.data.get("tasks") or {}
    key = task_key if task_key in task_boards else next(iter(task_boards), None)
    rows = (task_boards.get(key) if key is not None else None) or []
    if ranked_by_votes(rows):
        return _admission_table(ctx, key, rows)
    ratings = ctx.task_ratings.get(key or "", {})
    cols = [
        Column("rank", "Rank"),
        Column("agent", "Agent", num=False),
        Column(
            "median",
            "Median (0-100)",
            title="The middle of the counted runs ordered by score, then tokens, then time; the worse middle for "
            "even counts",
        ),
        Column("runs", "Runs"),
        Column("range", "Range", title="Worst to best counted run", csv_keys=RANGE_CSV),
        Column("tokens", "Tokens", title="Tokens of the median run"),
        Column("time", "Time", title="Time of the median run"),
    ]
    if ratings:
        cols.append(Column("rating", "Vote rating", csv_keys=RATING_CSV))
    out = []
    for row in rows:
        filt = task_url(ctx.bench.slug, key, row["agent"]) if key else None
        cells = [
            rank_cell(row),
            agent_cell(row, ctx),
            num_cell(
                row.get("median"),
                fmt_score(row.get("median"), "checks"),
                ctx.run_href(row.get("median_run")),
                "Open the median run",
            ),
            _runs_cell(row, filt),
            range_cell(row.get("min"), row.get("max"), ctx.methodology, filt, row.get("runs") or 0),
            *_median_run_cells(ctx, row),
        ]
        if ratings:
            cells.append(rating_cell(ratings.get(row["agent"])))
        out.append({"agent": row["agent"], "cells": cells})
    return Table(
        caption=_task_caption(ctx, key),
        columns=cols,
        rows=out,
        note="Ties on the median go to fewer tokens, then less time. Only runs within the time "
        "limit and token budget count; infra errors never do.",
        empty="No runs on this task in this round.",
        ranked_by=["median", "tokens", "time"],
    )


def _checks_overall_table(ctx: BoardContext) -> Table:
    """Mean of median scores over the to-spec tasks, one column per task linking to its median run."""
    task_boards: dict[str, list[ChecksTaskRow]] = ctx.data.get("tasks") or {}
    rows: list[ChecksOverallRow] = ctx.data.get("overall") or []
    spec = sorted({k for r in rows for k in (r.get("tasks") or {})})
    median_runs = {(k, r["agent"]): r.get("median_run") for k, rs in task_boards.items() for r in rs}
    cols = [
        Column("rank", "Rank"),
        Column("agent", "Agent", num=False),
        Column("overall", "Overall (0-100)", title="Mean of median scores over to-spec tasks; missing = 0"),
        Column(
            "range",
            "Range",
            title="The overall from its worst counted run on each to-spec task to the one from its best",
            csv_keys=RANGE_CSV,
        ),
        Column("runs", "Runs"),
    ]
    cols += [Column(f"task:{k}", k, title="Median run score") for k in spec]
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating", csv_keys=RATING_CSV))
    out = []
    for row in rows:
        href = ctx.agent_href(row["agent"])
        cells = {
            "rank": rank_cell(row),
            "agent": agent_cell(row, ctx),
            "overall": num_cell(
                row.get("overall"), fmt_score(row.get("overall"), "checks"), href, sub=_checks_overall_sub(row)
            ),
            "range": range_cell(row.get("min"), row.get("max"), ctx.methodology, href),
            "runs": num_cell(row.get("runs"), str(row.get("runs")), href),
        }
        for k in spec:
            v = (row.get("tasks") or {}).get(k)
            if k in (row.get("pending") or []):
                cells[f"task:{k}"] = Cell(
                    text="awaiting re-run",
                    sort=None,
                    title="Only platform failures so far: left out of this agent's overall until it is re-run",
                )
                continue
            cells[f"task:{k}"] = num_cell(
                v, fmt_score(v, "checks"), ctx.run_href(median_runs.get((k, row["agent"]))), "Open the median run"
            )
        if ctx.ratings:
            cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols]})
    return Table(
        caption=f"Overall board, {ctx.rnd.name or ctx.rnd.key}",
        columns=cols,
        rows=out,
        note="Overall is the mean of each agent's median score over the round's to-spec tasks (a task "
        "without runs counts as 0; a task with only platform failures waits for a re-run and is "
        "left out). Range: the overall from each agent's worst counted run on every task to the "
        "one from its best. Equal overall scores go to fewer tokens, then less time, summed over the "
        "median runs of every to-spec task: a task without a median run makes the total unknown, ranked "
        "after known totals. Invent and startup tasks are ranked by votes only; the vote rating never "
        "changes this score.",
    )


def _admission_table(ctx: BoardContext, key: str | None, rows: list[ChecksTaskRow]) -> Table:
    """An invent or startup task: ranked by the task's vote rating; the checks only admit the run."""
    cols = [
        Column("rank", "Rank"),
        Column("agent", "Agent", num=False),
        Column(
            "rating",
            "Vote rating",
            title="Bradley-Terry rating in this task, with its 95% interval",
            csv_keys=RATING_CSV,
        ),
        Column("checks", "Checks", num=False, title="The checks only admit the run: it starts and shows the data"),
        Column("runs", "Runs"),
        Column("tokens", "Tokens", title="Tokens of the median run"),
        Column("time", "Time", title="Time of the median run"),
    ]
    out = []
    for row in rows:
        filt = task_url(ctx.bench.slug, key, row["agent"]) if key else None
        checks = (
            "awaiting re-run" if row.get("awaiting_rerun") else ("admitted" if row.get("admitted") else "not admitted")
        )
        cells = [
            rank_cell(row),
            agent_cell(row, ctx),
            rating_cell(row.get("rating")),
            Cell(text=checks, sort=checks, href=ctx.run_href(row.get("median_run")), raw=row.get("admitted")),
            _runs_cell(row, filt),
            *_median_run_cells(ctx, row),
        ]
        out.append({"agent": row["agent"], "cells": cells})
    return Table(
        caption=_task_caption(ctx, key),
        columns=cols,
        rows=out,
        note="People rank these apps in blind votes: admitted apps by their vote rating, then admitted "
        "apps without a rating yet, then apps the checks did not admit.",
        empty="No runs on this task in this round.",
    )


def _checks_overall_sub(row: ChecksOverallRow) -> str:
    parts = []
    if row.get("tested") != row.get("of"):
        parts.append(f"{row.get('tested')} of {row.get('of')} tasks")
    if row.get("pending"):
        n = len(row["pending"])
        parts.append(f"{n} task{'s' if n != 1 else ''} awaiting re-run")
    return " · ".join(parts)
