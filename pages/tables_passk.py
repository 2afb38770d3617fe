"""pass^k beside pass@k on a scored board whose tasks have several trials (τ-bench's reliability figure): per task
family, pass^1 to pass^k (every one of k trials drawn passes) and the unbiased pass@2 to pass@k (at least one
passes), each averaged over the family's own task set, a task without runs counting 0. pass@1 is pass^1. The
figures come with the stored board (`pass_hat`, `pass_any` in each row, by family and k); a family the agent has
no run in is blank, never 0. A board with one trial per task has none of these columns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring.common import fixed
from scoring.types import BaseRow

from .table_cells import Cell, Column, num_cell


def _ks(rows: Iterable[BaseRow], key: str) -> dict[str, list[int]]:
    """Each family's k values present in any row (in order)."""
    out: dict[str, set[int]] = {}
    for row in rows:
        figures = row.get("pass_hat") if key == "pass_hat" else row.get("pass_any")
        for family, by_k in (figures or {}).items():
            out.setdefault(family, set()).update(int(k) for k in (by_k or {}))
    return {family: sorted(ks) for family, ks in sorted(out.items())}


def passk_columns(rows: Sequence[BaseRow]) -> list[Column]:
    """pass^1..pass^k, then pass@2..pass@k, for each family; none when no row has them."""
    cols = []
    hat, anyk = _ks(rows, "pass_hat"), _ks(rows, "pass_any")
    for family in sorted(set(hat) | set(anyk)):
        for k in hat.get(family, []):
            title = f"{family}: share of tasks where all {k} of {k} trials drawn pass, unbiased (C(c,{k})/C(n,{k}))"
            cols.append(Column(f"passhat:{family}:{k}", f"{family} pass^{k}", title=title))
        for k in anyk.get(family, []):
            if k < 2:
                continue  # pass@1 is pass^1
            title = f"{family}: share of tasks where at least one of {k} trials drawn passes, unbiased"
            cols.append(Column(f"passany:{family}:{k}", f"{family} pass@{k}", title=title))
    return cols


def passk_cells(row: BaseRow, cols: list[Column], href: str | None) -> dict[str, Cell]:
    """The row's cells of `passk_columns`: a percentage to one decimal, – where the figure does not exist."""
    cells = {}
    for col in cols:
        kind, family, k = col.key.split(":")
        figures = row.get("pass_hat") if kind == "passhat" else row.get("pass_any")
        by_k = (figures or {}).get(family) or {}
        value = by_k.get(k)
        cells[col.key] = num_cell(value, "–" if value is None else fixed(value, 1, times=100) + "%", href)
    return cells
