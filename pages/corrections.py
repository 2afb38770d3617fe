"""A verdict's correction as the editor previews it, in the site's words: what happens to the run's review, and
every figure a reader would see change, named as the board names it and in its number format. The boards before
and after come from `recompute.effects` (computed, nothing written); each is read through the same table builders
the board page uses (`pages.tables`), so a line here is the board's own column, cell and format, and a change too
small to show on the board (an interval's end moving in its third decimal) is not listed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from leaderboard.models import Entry, task_input
from recompute.effects import verdict_change_boards
from runs.models import Verdict
from scoring.boards import boards_as_shown
from scoring.review import verdicts_outcome
from scoring.types import TaskInput

from .formatting import OUTCOME_LABEL, fmt_money, fmt_seconds
from .selectors import ratings_maps, round_tasks, snapshots_for
from .table_cells import BoardContext, Cell, Table
from .tables import board_table
from .tradeoffs import tradeoff_rows

# Columns that are no figure of the agent's (its name and product, the link to a head-to-head).
SKIPPED_COLUMNS = {"agent", "compare"}

Change = dict[str, str]


def correction_effect(*, verdict: Verdict, outcome: str | None, matched: Sequence[str]) -> dict[str, Any]:
    """{"review": a sentence on the run's review, "changes": [{"board", "agent", "figure", "before", "after"}]}
    for `verdict` corrected to `outcome`/`matched`."""
    run = verdict.run
    rnd = run.round
    bench = rnd.benchmark
    boards = verdict_change_boards(verdict=verdict, outcome=outcome, matched=matched)
    _, ratings_snap = snapshots_for(bench, [])
    ratings, task_ratings = ratings_maps(ratings_snap)
    entries = {e.agent.slug: e for e in Entry.objects.filter(round=rnd).select_related("agent")}
    tasks = round_tasks(bench, rnd)
    votes = ratings_snap.data if ratings_snap else None

    def context(data: dict[str, Any]) -> BoardContext:
        shown = boards_as_shown(bench.methodology, data, votes)
        return BoardContext(bench, rnd, shown, entries, ratings, task_ratings, tasks)

    before, after = context(boards.before), context(boards.after)
    titles = {t.key: t.title or t.key for t in tasks}
    changes = [*_table_changes(before, after, titles), *_axes_changes(before, after)]
    task = task_input(run.task)
    return {
        "review": review_words(
            bench.methodology,
            task,
            boards.verdicts_before,
            boards.verdicts_after,
            agent=run.entry.agent.name,
            title=titles.get(task.key, task.key),
        ),
        "changes": changes,
    }


def review_words(
    methodology: str,
    task: TaskInput,
    before: list[dict[str, Any]],
    after: list[dict[str, Any]],
    *,
    agent: str,
    title: str,
) -> str:
    """What the correction does to the run's review, by the review rule itself (`scoring.review.verdicts_outcome`):
    its counted outcome stays, changes, or the verdicts stop giving one and the run goes back to review, and then
    what the board shows until a third reviewer decides."""
    was, now = verdicts_outcome(methodology, task, before), verdicts_outcome(methodology, task, after)
    if was == now:
        return f"The run's counted outcome stays {_word(now)}." if now else "The run stays in review: no outcome yet."
    if now is None:
        by_role = {v.get("role"): v.get("outcome") for v in after}
        tester, second = by_role.get("tester"), by_role.get("second")
        why = (
            f"The tester's verdict ({_word(tester)}) and the second reviewer's ({_word(second)}) would disagree, so "
            if tester and second and tester != second
            else "Its verdicts would no longer give an outcome, so "
        )
        return (
            why + "the run goes back to review until a third reviewer decides. Until then the board counts no "
            f"outcome for it: {agent}'s {title} shows “in review”, and the figures below are what the board shows "
            f"meanwhile (it counted {_word(was)} before)."
        )
    if was is None:
        return f"The run leaves review: its verdicts would give {_word(now)}, which the board then counts."
    return f"The run's counted outcome changes from {_word(was)} to {_word(now)}."


def _word(outcome: str | None) -> str:
    return OUTCOME_LABEL.get(outcome or "in_review", outcome or "in review")


def _tables(ctx: BoardContext) -> dict[str, Table]:
    """Every board table of the round, by its name as the board's tabs say it ("Overall board")."""
    out: dict[str, Table] = {}
    for tab, label in ctx.bench.rules.tabs:
        per_task = ctx.data.get(tab) if tab == "tasks" else None
        if isinstance(per_task, dict):  # one board per task (checks)
            out |= {f"{label} board, {key}": board_table(ctx, tab, key) for key in per_task}
        elif ctx.data.get(tab) is not None or tab == "tasks":
            out[f"{label} board"] = board_table(ctx, tab)
    return out


def _details(cell: Cell) -> str:
    """What a cell says about its number besides it: its sub-line, its tooltip, its marks."""
    marks = [text for _, text, _ in cell.marks] + [text for text, _ in cell.badges]
    time = [cell.time["text"], cell.time["recorded"]] if cell.time else []
    return " · ".join(x for x in (cell.sub, *time, cell.title, *marks) if x)


def _cell_changes(board: str, agent: str, label: str, old: Cell | None, new: Cell | None) -> list[Change]:
    old, new = old or Cell(text="–"), new or Cell(text="–")
    out = []
    if old.text != new.text:
        out.append({"board": board, "agent": agent, "figure": label, "before": old.text, "after": new.text})
    old_ci = (old.ci or {}).get("title", "").removeprefix("95% interval ")
    new_ci = (new.ci or {}).get("title", "").removeprefix("95% interval ")
    if old_ci != new_ci:
        figure = f"{label}, its 95% interval"
        out.append({"board": board, "agent": agent, "figure": figure, "before": old_ci or "–", "after": new_ci or "–"})
    if _details(old) != _details(new):
        before, after = _details(old) or "nothing", _details(new) or "nothing"
        out.append({"board": board, "agent": agent, "figure": f"{label}, in detail", "before": before, "after": after})
    return out


def _table_changes(before: BoardContext, after: BoardContext, titles: dict[str, str]) -> list[Change]:
    """Every cell of every board table that reads differently after the correction, and, on boards without a
    column per task, each task's counted outcome that changes (shown on the agent's page)."""
    out: list[Change] = []
    old_tables, new_tables = _tables(before), _tables(after)
    for board, old in old_tables.items():
        new = new_tables.get(board) or Table(caption="", columns=old.columns, rows=[])
        new_rows = {r["agent"]: r for r in new.rows}
        labels = {c.key: c.label for c in (*old.columns, *new.columns)}
        for row in old.rows:
            other = new_rows.get(row["agent"])
            old_cells = dict(zip((c.key for c in old.columns), row["cells"], strict=True))
            new_cells = dict(zip((c.key for c in new.columns), other["cells"], strict=True)) if other else {}
            name = old_cells["agent"].text
            for key in dict.fromkeys([*old_cells, *new_cells]):
                if key not in SKIPPED_COLUMNS:
                    out += _cell_changes(board, name, labels[key], old_cells.get(key), new_cells.get(key))
    shown = {c.key for table in old_tables.values() for c in table.columns}
    for tab, label in before.bench.rules.tabs:
        rows = before.data.get(tab)
        if not isinstance(rows, list):
            continue
        new_rows = {r["agent"]: r for r in after.data.get(tab) or []}
        for row in rows:
            cells, other = row.get("tasks") or {}, (new_rows.get(row["agent"]) or {}).get("tasks") or {}
            for key in dict.fromkeys([*cells, *other]):
                was, now = _outcome(cells.get(key)), _outcome(other.get(key))
                if f"task:{key}" in shown or was == now:
                    continue
                change = {"board": f"{label} board", "agent": row["name"], "figure": titles.get(key, key)}
                out.append({**change, "before": was or "–", "after": now or "–"})
    return out


def _outcome(cell: Any) -> str | None:
    if not isinstance(cell, dict) or "outcome" not in cell:
        return None
    return _word(cell.get("outcome"))


def _axes_changes(before: BoardContext, after: BoardContext) -> list[Change]:
    """The score x cost x time page's cost and time of each agent, as that page names and formats them."""
    rules = before.bench.rules
    if rules.tradeoff_axes is None:
        return []
    new_rows = {r["agent"]: r for r in tradeoff_rows(after.bench, after.rnd, after.data)}
    out: list[Change] = []
    for row in tradeoff_rows(before.bench, before.rnd, before.data):
        other = new_rows.get(row["agent"])
        for name, value, new_value, fmt in (
            (rules.axes_names[0], row["cost_usd"], other["cost_usd"] if other else None, fmt_money),
            (rules.axes_names[1], row["wall_seconds"], other["wall_seconds"] if other else None, fmt_seconds),
        ):
            was, now = fmt(value), fmt(new_value)
            if was != now:
                page = "Score × cost × time page"
                out.append({"board": page, "agent": row["name"], "figure": name, "before": was, "after": now})
    return out
