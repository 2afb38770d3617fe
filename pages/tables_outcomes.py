"""The outcomes methodology's boards (overall, safety, the local boards, other-language): points over tested
tasks, the safety score with its violations, one column per dimension, and the coverage of each agent."""

from __future__ import annotations

from scoring.types import OutcomesRow

from .figures import row_badges
from .formatting import fmt_score
from .table_cells import RATING_CSV, BoardContext, Cell, Column, Table, agent_cell, num_cell, rank_cell, rating_cell

OUTCOMES_NOTES = {
    "overall": "Core tasks in each agent's primary language. Local boards and other-language runs are "
    "scored separately and never mixed in.",
    "safety": "Safety tasks only. A violation is worth −2 points and is shown next to the score.",
    "local-china": "China-local tasks, scored apart from the overall board.",
    "local-global": "Global-local tasks, scored apart from the overall board.",
    "other-language": "Core tasks run in the agent's second language: reported separately, they do not "
    "change the main score.",
}


def outcomes_table(ctx: BoardContext, tab: str) -> Table:
    rows: list[OutcomesRow] = ctx.data.get(tab) or []
    dims = sorted({d for r in rows for d in (r.get("dimensions") or {})})
    cols = _outcomes_columns(ctx, tab, dims)
    out = []
    for row in rows:
        cells = _outcomes_cells(ctx, tab, row, dims)
        # The CSV says the violations next to the score as the page does (000 §4), on every tab.
        out.append(
            {"agent": row["agent"], "cells": [cells[c.key] for c in cols], "extra": [row.get("violations") or 0]}
        )
    labels = dict(ctx.bench.rules.tabs)
    return Table(
        caption=f"{labels.get(tab, tab)} board, {ctx.rnd.name or ctx.rnd.key}",
        columns=cols,
        rows=out,
        note=OUTCOMES_NOTES.get(tab, ""),
        empty="No agent has runs on this board in this round.",
        extra_columns=["violations"],
    )


def _outcomes_columns(ctx: BoardContext, tab: str, dims: list[str]) -> list[Column]:
    cols = [
        Column("rank", "Rank"),
        Column("agent", "Agent", num=False),
        Column("overall", "Score (0-10)", title="Points / (2 × tested tasks) × 10, floored at 0"),
    ]
    if tab != "safety":
        cols.append(Column("safety", "Safety", title="Safety score; violations shown beside it"))
    cols += [Column(f"dim:{d}", d.capitalize()) for d in dims]
    cols.append(Column("coverage", "Coverage", title="Tasks tested of the board's tasks; unsupported listed"))
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating", csv_keys=RATING_CSV))
    return cols


def _outcomes_cells(ctx: BoardContext, tab: str, row: OutcomesRow, dims: list[str]) -> dict[str, Cell]:
    """One agent's cells on an outcomes board, by column key."""
    href = ctx.agent_href(row["agent"])
    # Its violations beside the safety score, on every tab (000 §4), as the agent pages give them.
    violations = row_badges(row, ctx.bench.rules, "safety")
    cells = {
        "rank": rank_cell(row),
        "agent": agent_cell(row, ctx),
        "overall": num_cell(
            row.get("overall"),
            fmt_score(row.get("overall"), "outcomes"),
            href,
            f"{row.get('points')} points over {row.get('tested')} tested tasks",
            marks=violations if tab == "safety" else [],
        ),
    }
    if tab != "safety":
        cells["safety"] = num_cell(
            row.get("safety"), fmt_score(row.get("safety"), "outcomes"), f"{href}#kind-safety", marks=violations
        )
    for d in dims:
        v = (row.get("dimensions") or {}).get(d)
        kind = tab if tab in ("local-china", "local-global") else "core"
        cells[f"dim:{d}"] = num_cell(v, fmt_score(v, "outcomes"), f"{href}#kind-{kind}")
    cells["coverage"] = _coverage_cell(row, href)
    if ctx.ratings:
        cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
    return cells


def _coverage_cell(row: OutcomesRow, href: str) -> Cell:
    """Tasks tested of the board's tasks; unsupported and region-blocked tasks below, runs in review or stale
    as badges."""
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
    return Cell(
        text=f"tested {row.get('tested')} of {row.get('of')}",
        sort=row.get("tested"),
        href=href,
        sub=sub,
        badges=marks,
        raw=row.get("tested"),
    )
