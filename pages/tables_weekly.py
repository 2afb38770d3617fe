"""The weekly methodology's board: one column per task of the week with its outcome, then passes, partials,
fails, points, pass rate, interventions, time and cost."""

from __future__ import annotations

from scoring.run_figures import CAPPED
from scoring.types import WeeklyCell, WeeklyRow

from .figures import time_view
from .formatting import OUTCOME_BADGE, OUTCOME_LABEL, fmt_money, fmt_pct, fmt_seconds
from .table_cells import BoardContext, Cell, Column, Table, agent_cell, num_cell, rank_cell


def weekly_table(ctx: BoardContext, tab: str) -> Table:
    rows: list[WeeklyRow] = ctx.data.get("overall") or []
    keys = [t.key for t in ctx.tasks if any(t.key in (r.get("tasks") or {}) for r in rows)]
    titles = {t.key: t.title or t.key for t in ctx.tasks}
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False)]
    cols += [Column(f"task:{k}", titles[k], num=False) for k in keys]
    cols += [
        Column("passes", "Pass"),
        Column("partials", "Partial"),
        Column("fails", "Fail"),
        Column("points", "Points", title="2 per pass, 1 per partial; shown, never sorted on"),
        Column("pass_rate", "Pass rate", title="Passes / tasks that week"),
        Column("interventions", "Interventions"),
        Column("time", "Time"),
        Column("cost", "Cost", title="Dollars when every run was metered, else the plan label"),
    ]
    # The CSV carries what a partial total lacks beside it (runs without a time, tasks without a run) and the
    # tasks whose run reached the 30-minute cap, marked as the page marks them (004: such a run is a fail).
    out = [
        {
            "agent": row["agent"],
            "cells": _weekly_cells(ctx, row, keys),
            "extra": [
                row.get("runs_without_time") or 0,
                len(row.get("tasks_without_run") or []),
                " ".join(k for k, c in sorted((row.get("tasks") or {}).items()) if c.get("capped")),
            ],
        }
        for row in rows
    ]
    return Table(
        caption=f"{ctx.rnd.name or ctx.rnd.key}: week of {ctx.rnd.starts_on or ''}",
        columns=cols,
        rows=out,
        note="Ranked by pass rate, then fewer interventions (an unknown count goes after every "
        "known total), then lower dollar cost, then name (ignoring case). Points stay "
        "visible so a partial is not hidden; a partial is not a pass. A run that reaches "
        "the 30-minute cap is a fail and counts 30 minutes of time. A task of the week without a run leaves "
        "the interventions and dollar cost unknown; a time total missing some runs' times says how many.",
        extra_columns=["runs_without_time", "tasks_without_run", "capped_tasks"],
        ranked_by=["pass_rate", "interventions", "cost"],
    )


def _weekly_cells(ctx: BoardContext, row: WeeklyRow, keys: list[str]) -> list[Cell]:
    """One agent's cells on the weekly board, in column order."""
    href = ctx.agent_href(row["agent"])
    cells = [rank_cell(row), agent_cell(row, ctx)]
    cells += [_outcome_cell(ctx, (row.get("tasks") or {}).get(k)) for k in keys]
    cells += [
        num_cell(row.get("passes"), str(row.get("passes")), href),
        num_cell(row.get("partials"), str(row.get("partials")), href),
        num_cell(row.get("fails"), str(row.get("fails")), href),
        num_cell(row.get("points"), str(row.get("points")), href),
        num_cell(
            row.get("pass_rate"),
            fmt_pct(row.get("pass_rate")),
            href,
            sub=f"{len(row['in_review'])} in review" if row.get("in_review") else "",
        ),
        _interventions_cell(row, href),
        _time_cell(row, href),
        _cost_cell(row, href),
    ]
    return cells


def _outcome_cell(ctx: BoardContext, c: WeeklyCell | None) -> Cell:
    """One task's outcome for the agent, linking to its run; the 30-minute cap as a badge; its time as every page
    gives a run's (`figures.time_view`): as published, the recorded one beside it where it reads otherwise."""
    if not c:
        return Cell(text="–")
    outcome = c.get("outcome") or ""
    marks = [(CAPPED, "30-min cap", "bad")] if c.get("capped") else []
    return Cell(
        text=OUTCOME_LABEL.get(outcome, outcome),
        sort=c.get("points"),
        href=ctx.run_href(c.get("run")),
        time=_cell_time(c),
        marks=marks,
        raw=outcome,
        pill=OUTCOME_BADGE.get(outcome) or "neutral",
    )


def _cell_time(c: WeeklyCell) -> dict | None:
    """The cell's run time view; none for a run without a time. A cell stored before cells carried the recorded
    time shows the published one alone."""
    if c.get("seconds") is None:
        return None
    recorded = c["wall_seconds"] if "wall_seconds" in c else c["seconds"]
    return time_view({"seconds": c["seconds"], "marks": [CAPPED] if c.get("capped") else []}, recorded)


def _without_run(row: WeeklyRow) -> str:
    missing = row.get("tasks_without_run") or []
    return f"no run on {len(missing)} of {row.get('tasks_that_week')} tasks" if missing else ""


def _time_cell(row: WeeklyRow, href: str) -> Cell:
    """The week's time, published with the result: a total missing some runs' times says how many
    ("3h 10m (2 runs without time)"), never a plain smaller sum."""
    seconds, missing = row.get("seconds"), row.get("runs_without_time") or 0
    if not missing:
        return num_cell(seconds, fmt_seconds(seconds), href)
    total = fmt_seconds(seconds) if seconds is not None else "no time"
    runs = "run" if missing == 1 else "runs"
    return num_cell(seconds, f"{total} ({missing} {runs} without time)", href, badges=[("partial", "warn")])


def _cost_cell(row: WeeklyRow, href: str) -> Cell:
    """Dollars when every task has a run and every run was metered, unknown when a task has none, else the
    plan label, else nothing."""
    if row.get("cost_kind") == "dollars":
        return num_cell(row.get("cost_usd"), fmt_money(row.get("cost_usd")), href, sub="metered")
    if row.get("cost_kind") == "unknown":
        return Cell(text="unknown", sort=None, href=href, raw=None, sub=_without_run(row))
    plan_label = row.get("plan_label")
    if plan_label:
        return Cell(text=plan_label, sort=None, href=href, sub="plan label", raw=plan_label)
    return Cell(text="–")


def _interventions_cell(row: WeeklyRow, href: str | None) -> Cell:
    """The week's interventions, or "unknown" when a run has no count or a task has no run (a missing count is
    not 0)."""
    if row.get("interventions") is not None:
        return num_cell(row["interventions"], str(row["interventions"]), href)
    unrecorded = row.get("interventions_unrecorded") or []
    why = [f"not recorded on {len(unrecorded)} of {len(row.get('tasks') or {})} runs" if unrecorded else ""]
    why.append(_without_run(row))
    return Cell(text="unknown", sort=None, href=href, raw=None, sub="; ".join(w for w in why if w))
