"""The scored methodology's boards: the overall board (score, pass rate, mean pass@k, one column per domain,
cost and time per run) and the tasks board (the best score of each task across trials, pass@k below it)."""

from __future__ import annotations

from typing import Any, cast

from scoring.run_figures import HEURISTIC
from scoring.types import ScoredCell, ScoredMeta, ScoredRow

from .figures import pass_at_k_text, row_badges
from .formatting import fmt_money, fmt_pct, fmt_score, fmt_score_beside, fmt_seconds
from .table_cells import RATING_CSV, BoardContext, Cell, Column, Table, agent_cell, num_cell, rank_cell, rating_cell
from .tables_passk import passk_cells, passk_columns


def _partial_marks(partial: bool, reported: int | None, runs: int | None) -> dict[str, Any]:
    """A cost or time cell that averages only the runs reporting it says so ("cost on 3 of 10 runs")."""
    if not partial:
        return {}
    return {"sub": f"on {reported} of {runs} runs", "badges": [("partial", "warn")]}


def _missing_note(meta: ScoredMeta, axis: str) -> str:
    """ "n agents missing data on axis X" (seed 002), counting agents with the axis on only some runs."""
    missing, partial = meta.get(f"missing_{axis}") or 0, meta.get(f"partial_{axis}") or 0
    if not missing:
        return ""
    text = f"{missing} of {meta.get('agents')} agents are missing {axis} data"
    return text + (f" ({partial} on some runs only)" if partial else "")


def best_text(best: float, passed: bool, threshold: float) -> str:
    """A task's best score as shown: two decimals, unless those would read as a pass it is not (0.798 is not
    "0.80" beside a threshold of 0.80): then three, cut down, never rounded up ("0.798", "0.799" for 0.7996)."""
    return fmt_score_beside(best, "scored", threshold, passed=passed)


def heuristic_trials(cell: ScoredCell) -> int:
    """How many of a task cell's trials rest on the heuristic fallback (seed 002: "This is clearly marked")."""
    return sum(1 for trial in cell.get("scores") or [] if trial.get("heuristic"))


def heuristic_tasks(row: ScoredRow) -> str:
    """The board CSV's mark: the tasks whose best trial rests on the heuristic fallback, space-separated."""
    cells = row.get("tasks") or {}
    return " ".join(key for key in sorted(cells) if (cells[key] or {}).get("heuristic"))


def _coverage_note(row: ScoredRow) -> str:
    """ "tested k of n" when some tasks have no score, and how many runs nothing scored (left out, not 0)."""
    parts = [f"tested {row.get('tested')} of {row.get('of')}"] if row.get("tested") != row.get("of") else []
    unscored = len(row.get("unscored") or [])
    if unscored:
        parts.append(f"{unscored} {'run' if unscored == 1 else 'runs'} not scored")
    return " · ".join(parts)


def scored_table(ctx: BoardContext, tab: str) -> Table:
    if tab == "tasks":
        return _scored_tasks_table(ctx)
    return _scored_overall_table(ctx)


def _scored_tasks_table(ctx: BoardContext) -> Table:
    """Best score per task across trials, pass@k below it."""
    rows: list[ScoredRow] = ctx.data.get("overall") or []
    meta = cast(ScoredMeta, ctx.data.get("meta") or {})
    threshold = meta.get("pass_threshold", 0.8)
    keys = [t.key for t in ctx.tasks]
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False)]
    cols += [Column(f"task:{k}", k, title="Best score across trials; pass@k below") for k in keys]
    out = []
    for row in rows:
        cells = [rank_cell(row), agent_cell(row, ctx)]
        for k in keys:
            c = (row.get("tasks") or {}).get(k)
            unscored = (row.get("unscored_tasks") or {}).get(k, 0)
            if not c:
                cells.append(_unscored_cell(unscored))
                continue
            marks = [(HEURISTIC, "heuristic", "warn")] if c.get("heuristic") else []
            fallback = heuristic_trials(c)
            sub = pass_at_k_text(c["trials"], c["passes"]) + (f" · {unscored} not scored" if unscored else "")
            if fallback > (1 if c.get("heuristic") else 0):  # the badge says it of the best trial
                sub += f" · {fallback} heuristic"
            title = f"best of {c['trials']} trials; pass@k {c['passes']}/{c['trials']}"
            if fallback:
                title += f"; {fallback} of the {c['trials']} trials scored by the heuristic fallback"
            cells.append(
                num_cell(
                    c["best"],
                    best_text(c["best"], c["passed"], threshold),
                    ctx.run_href(c.get("best_run")),
                    title,
                    sub=sub,
                    marks=marks,
                )
            )
        task_cells: dict[str, ScoredCell] = row.get("tasks") or {}
        passk = [task_cells[k]["pass_at_k"] if k in task_cells else None for k in keys]
        out.append({"agent": row["agent"], "cells": cells, "extra": [heuristic_tasks(row), *passk]})
    return Table(
        caption=f"Best score per task, {ctx.rnd.name or ctx.rnd.key}",
        columns=cols,
        rows=out,
        note=f"Each cell is the best score across trials (links to that trial's run); pass@k is "
        f"the share of trials scoring at least {threshold:.2f}. 'heuristic' marks a best trial "
        f"scored by the heuristic fallback, capped at 0.60, and 'n heuristic' below a cell counts the trials "
        f"so scored, which pass@k counts too. 'not scored' marks runs that nothing scored: they "
        f"are no trials (never a score of 0), and a task with no scored trial counts 0 in the overall score, as "
        f"any task without a score does.",
        extra_columns=["heuristic_tasks", *(f"pass_at_k:{k}" for k in keys)],
    )


def _unscored_cell(unscored: int) -> Cell:
    """A task without a score: not run (–), or run without anything scoring it ("not scored", never 0.00)."""
    if not unscored:
        return Cell(text="–", sort=None)
    runs = "run" if unscored == 1 else "runs"
    return Cell(text="not scored", sort=None, title=f"{unscored} {runs} that nothing scored: no trial has a score")


# The overall board's mean of the tasks' pass@k: named as a mean over tasks, never as pass@k itself.
MEAN_PASS_AT_K = "Mean pass@k over tasks"

PASSK_NOTE = (
    "Where tasks have several trials, pass^k is the share of a family's tasks on which all k of k trials drawn "
    "from an agent's trials pass, and any-of-k the share on which at least one does (both unbiased: C(c,k)/C(n,k) "
    "and 1 - C(n-c,k)/C(n,k) per task with c of n trials passing, averaged over the family's tasks, a task without "
    "runs counting 0; any-of-k is not pass@k, the share of trials that pass); k goes up to the fewest trials any "
    "task has. "
)


def _scored_overall_table(ctx: BoardContext) -> Table:
    rows: list[ScoredRow] = ctx.data.get("overall") or []
    meta = cast(ScoredMeta, ctx.data.get("meta") or {})
    threshold = meta.get("pass_threshold", 0.8)
    domains = sorted({d for r in rows for d in (r.get("domains") or {})})
    cols = [
        Column("rank", "Rank"),
        Column("agent", "Agent", num=False),
        Column(
            "score",
            "Score (0-1)",
            title="Mean over the round's tasks of the best score across trials; a task without a score counts 0",
        ),
        Column(
            "pass_rate", "Pass rate", title=f"Share of the round's tasks whose best score is at least {threshold:.2f}"
        ),
        Column(
            "mean_pass_at_k",
            MEAN_PASS_AT_K,
            title="Mean over the round's tasks of each task's pass@k (the share of its trials that pass); a task "
            "without a score counts 0",
        ),
    ]
    cols += [Column(f"dom:{d}", d) for d in domains]
    reliability = passk_columns(rows)
    cols += reliability
    cols += [Column("cost", "Cost / run"), Column("time", "Time / run"), Column("coverage", "Tested")]
    if ctx.ratings:
        cols.append(Column("rating", "Vote rating", csv_keys=RATING_CSV))
    out = []
    for row in rows:
        cells = _scored_overall_cells(ctx, row, domains)
        cells.update(passk_cells(row, reliability, ctx.agent_href(row["agent"])))
        out.append({"agent": row["agent"], "cells": [cells[c.key] for c in cols], "extra": [heuristic_tasks(row)]})
    missing = [text for text in (_missing_note(meta, "cost"), _missing_note(meta, "latency")) if text]
    note = (
        "Score and pass rate take each task's best trial (the method reports the best score across trials); mean "
        f"pass@k over tasks counts every trial: each task's pass@k is the share of its trials scoring at least "
        f"{threshold:.2f} (the Tasks tab shows it under each task), and this is their mean over the round's tasks. "
        "So a failed trial lowers it even where a better trial of the same task passed: a pass rate of 100% beside "
        "a mean pass@k over tasks of 83% is an agent whose best trial passed every task while some other trials "
        "did not. "
        "Missing cost or time is shown as –, never as 0, and a mean over only some runs is marked partial. "
        + (PASSK_NOTE if reliability else "")
        + ("; ".join(missing) + "." if missing else "")
    )
    return Table(
        caption=f"Overall board, {ctx.rnd.name or ctx.rnd.key}",
        columns=cols,
        rows=out,
        note=note,
        extra_columns=["heuristic_tasks"],
    )


def _scored_overall_cells(ctx: BoardContext, row: ScoredRow, domains: list[str]) -> dict[str, Cell]:
    """One agent's cells on the scored overall board, by column key."""
    href = ctx.agent_href(row["agent"])
    mean_pak = row.get("mean_pass_at_k")  # computed with the board, never while serving
    marks = row_badges(row, ctx.bench.rules, "overall")
    cells = {
        "rank": rank_cell(row),
        "agent": agent_cell(row, ctx),
        "score": num_cell(
            row.get("score"),
            fmt_score(row.get("score"), "scored") if row.get("tested") else "not scored",
            href,
            marks=marks,
            sub=_coverage_note(row),
        ),
        "pass_rate": num_cell(row.get("pass_rate"), fmt_pct(row.get("pass_rate")), href),
        "mean_pass_at_k": num_cell(mean_pak, fmt_pct(mean_pak), href),
    }
    for d in domains:
        v = (row.get("domains") or {}).get(d)
        cells[f"dom:{d}"] = num_cell(v, fmt_score(v, "scored"), href)
    partial = row.get("partial_axes") or []
    cells["cost"] = num_cell(
        row.get("cost_usd"),
        fmt_money(row.get("cost_usd")),
        href,
        **_partial_marks("cost_usd" in partial, row.get("cost_runs"), row.get("runs_scored")),
    )
    cells["time"] = num_cell(
        row.get("wall_seconds"),
        fmt_seconds(row.get("wall_seconds")),
        href,
        **_partial_marks("wall_seconds" in partial, row.get("latency_runs"), row.get("runs_scored")),
    )
    cells["coverage"] = Cell(
        text=f"tested {row.get('tested')} of {row.get('of')}", sort=row.get("tested"), href=href, raw=row.get("tested")
    )
    if ctx.ratings:
        cells["rating"] = rating_cell(ctx.ratings.get(row["agent"]))
    return cells
