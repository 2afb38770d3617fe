"""pass^k beside any-of-k on a scored board whose tasks have several trials (τ-bench's reliability figure): per task
family, pass^1 to pass^k (every one of k trials drawn passes) and any-of-2 to any-of-k (at least one of k trials
drawn passes, the unbiased estimate some papers call pass@k), each averaged over the family's own task set, a task
without runs counting 0. any-of-1 is pass^1. The figures come with the stored board (`pass_hat`, `pass_any` in each
row, by family and k); a family the agent has no run in is blank, never 0. A board with one trial per task has none
of these columns.

The name pass@k is 002's alone ("pass@k = (trials where score >= 0.80) / total_trials", the share of one agent's
trials of one task that pass): at-least-one-of-k is another figure, so it has another name (docs/methodology-
choices.md, "One name, one figure")."""

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
    """pass^1..pass^k, then any-of-2..any-of-k, for each family; none when no row has them."""
    cols = []
    hat, anyk = _ks(rows, "pass_hat"), _ks(rows, "pass_any")
    for family in sorted(set(hat) | set(anyk)):
        for k in hat.get(family, []):
            title = f"{family}: share of tasks where all {k} of {k} trials drawn pass, unbiased (C(c,{k})/C(n,{k}))"
            cols.append(Column(f"passhat:{family}:{k}", f"{family} pass^{k}", title=title))
        for k in anyk.get(family, []):
            if k < 2:
                continue  # any-of-1 is pass^1
            title = (
                f"{family}: share of tasks where at least one of {k} trials drawn passes, unbiased "
                f"(1 - C(n-c,{k})/C(n,{k})); not pass@k, which is the share of an agent's trials that pass"
            )
            cols.append(Column(f"anyof:{family}:{k}", f"{family} any-of-{k}", title=title))
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
