"""The rank range beside each rank a reading moves on a board ("1–3 across readings"), from what the round's
snapshot stores under "readings" (`scoring.reading_boards`); the rank links to the round's Readings page
(`pages.readings`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scoring.reading_boards import rank_ranges

from .table_cells import Table


def board_id(data: Mapping[str, Any], tab: str, task_key: str | None) -> str:
    """The readings' id of the board a tab shows: a task's board ("tasks/<key>"), or the tab's own board, else the
    overall board whose rows the tab shows (a scored round's Tasks tab)."""
    if isinstance(data.get(tab), dict) and task_key:
        return f"{tab}/{task_key}"
    return tab if isinstance(data.get(tab), list) else "overall"


def add_rank_ranges(table: Table | None, full: Mapping[str, Any], tab: str, task_key: str | None, url: str) -> None:
    """Beside each rank a reading moves, the range of its ranks across the readings ("1–3 across readings"), the
    rank linking to the Readings page. `full`: the round's boards with every row; the table may show fewer (a tier
    view), and then every reading's board is ranked again among the rows shown, as the table's ranks are."""
    section = full.get("readings")
    if table is None or not section or "rank" not in [c.key for c in table.columns]:
        return
    board = board_id(full, tab, task_key)
    rows = full.get(board) if "/" not in board else (full.get(tab) or {}).get(task_key)
    if not rows:
        return
    shown = {str(r["agent"]) for r in table.rows}
    site = [(str(r["agent"]), r.get("rank")) for r in rows]
    ranges = rank_ranges(site, board, section["variants"], None if shown >= {a for a, _ in site} else shown)
    at = [c.key for c in table.columns].index("rank")
    for row in table.rows:
        found = ranges.get(str(row["agent"]))
        if found:
            cell = row["cells"][at]
            low, high = found
            cell.sub = f"{low}–{high} across readings"
            cell.href = f"{url}#agent-{row['agent']}"
            cell.title = f"Rank {cell.text} under this site's readings; {low} to {high} under the others (Readings)"
