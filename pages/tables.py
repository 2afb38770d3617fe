"""Display tables of a board: one builder per methodology (its board's tabs) in `TABLE_BUILDERS`, each in its
own module (`tables_outcomes`, `tables_scored`, `tables_checks`, `tables_weekly`) built from the columns,
cells and cell helpers of `table_cells`; and the sorting of a built table. The rows come from the stored
snapshot, so nothing here computes a score.

A new methodology adds a function `(ctx, tab, task_key) -> Table` to `TABLE_BUILDERS`, built from the cell
helpers (`rank_cell`, `agent_cell`, `num_cell`, `rating_cell`), which are importable from here too."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from .intervals import add_compare_links, add_intervals
from .table_cells import BoardContext, Cell, Column, Table, agent_cell, num_cell, rank_cell, rating_cell
from .tables_checks import checks_table
from .tables_outcomes import outcomes_table
from .tables_scored import scored_table
from .tables_weekly import weekly_table

__all__ = [
    "TABLE_BUILDERS",
    "BoardContext",
    "Cell",
    "Column",
    "Table",
    "agent_cell",
    "board_table",
    "num_cell",
    "rank_cell",
    "rating_cell",
    "table_sort",
]

# One table builder per methodology (its board's tabs); a new methodology registers its own.
TABLE_BUILDERS: dict[str, Callable[[BoardContext, str, str | None], Table]] = {
    "outcomes": lambda ctx, tab, task_key: outcomes_table(ctx, tab),
    "scored": lambda ctx, tab, task_key: scored_table(ctx, tab),
    "checks": checks_table,
    "weekly": lambda ctx, tab, task_key: weekly_table(ctx, tab),
}


def board_table(ctx: BoardContext, tab: str, task_key: str | None = None) -> Table:
    """The methodology's table of `tab`, with the headline's interval and Rank (UB) where the methodology has
    them, and a head-to-head link on every row."""
    table = TABLE_BUILDERS[ctx.methodology](ctx, tab, task_key)
    lead_with_ranked_by(table)
    add_intervals(table, ctx, tab)
    add_compare_links(table, ctx)
    mark_card_columns(table, ctx.bench.rules.headline_key)
    return table


# Columns every phone card keeps besides the ranked-by ones: who and where, the vote rating, the comparison.
CARD_COLUMNS = ("rank", "rank_ub", "agent", "rating", "compare")


def mark_card_columns(table: Table, headline_key: str) -> None:
    """On a phone each agent is a card (CSS only) with its headline figures: the rank, the agent, the
    methodology's headline and the columns the board is ranked by, its vote rating; the rest stays on the
    wide table, the CSV and the agent's pages. A board with none of those figures keeps all its columns."""
    keep = {*CARD_COLUMNS, headline_key, *table.ranked_by}
    if not any(col.key in keep - set(CARD_COLUMNS) for col in table.columns):
        # A board without a headline column (the scored tasks tab: one column per task) keeps every column:
        # its card would otherwise show a rank and nothing it was ranked on.
        keep |= {col.key for col in table.columns}
    for col in table.columns:
        col.card = col.key in keep


def lead_with_ranked_by(table: Table) -> None:
    """Move the columns the board is ranked by (`Table.ranked_by`, in the order they decide it) to just after
    the agent, cells with them; every other column keeps its order. On a wide board (the weekly board's task
    columns, a task board's range) what decides the order is then on screen first."""
    keys = [c.key for c in table.columns]
    lead = [k for k in table.ranked_by if k in keys]
    if not lead or "agent" not in keys:
        return
    head = keys[: keys.index("agent") + 1]
    order = [keys.index(k) for k in head + lead] + [i for i, k in enumerate(keys) if k not in head and k not in lead]
    if order == list(range(len(keys))):
        return
    table.columns[:] = [table.columns[i] for i in order]
    for row in table.rows:
        row["cells"] = [row["cells"][i] for i in order]


def table_sort(table: Table, sort: str | None, direction: str, base: dict[str, str]) -> tuple[str, str]:
    """Sort rows in place by a column's sort value (missing values always last), and give every column
    header its link (the next direction) and aria-sort. An unknown column keeps the board's rank order."""
    keys = [c.key for c in table.columns]
    if not sort or sort not in keys or not table.columns[keys.index(sort)].sortable:
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
