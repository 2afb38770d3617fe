"""The score x cost x time re-rank (seed 002, "The composite ranking exposes weights"): a board's rows, with the
axes their methodology says they carry (`methodologies.Methodology.tradeoff_axes`), ranked again by a reader's
weights. Every methodology's trade-offs page re-ranks with `rerank` (its registry entry's `rerank`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, cast

from .common import assign_ranks, desc_none_last, name_key, rank_value


class TradeoffRow(TypedDict):
    """One agent on the trade-offs page: its board headline and place, its cost and time (as its methodology's
    `tradeoff_axes` read them off the board row), the runs they are over and each axis's runs."""

    agent: str
    name: str
    rank: int | None  # its place on the board
    score: float | None
    cost_usd: float | None
    wall_seconds: float | None
    runs: int
    axis_runs: dict[str, int]  # by axis ("cost_usd", "wall_seconds"): the runs that reported it
    partial_axes: list[str]  # axes reported on only some of its runs


class RerankedRow(TradeoffRow):
    """A `TradeoffRow` re-ranked by a reader's weights (`rerank`)."""

    missing_axes: list[str]
    worst_axes: list[str]  # gaps the weights made count as the worst value
    weighted: float | None  # None when every weight is 0
    weighted_rank: int


def _normalised(values: dict[str, float], invert: bool) -> dict[str, float]:
    """Min-max normalise to 0..1 over the agents that have the axis; all-equal values all get 1. Values are read
    as they rank (`rank_value`): the same score reached two ways (0.39999999999999997 and 0.4) is one value, so
    its last bits never become the whole range (one agent 1, the other 0)."""
    if not values:
        return {}
    values = {agent: rank_value(v) for agent, v in values.items()}
    lo, hi = min(values.values()), max(values.values())
    out = {}
    for agent, v in values.items():
        n = 1.0 if hi == lo else (v - lo) / (hi - lo)
        out[agent] = 1.0 - n if invert and hi != lo else n
    return out


AXES = ("score", "cost_usd", "wall_seconds")


def rerank(rows: Sequence[Mapping[str, Any]], w_score: float, w_cost: float, w_latency: float) -> list[RerankedRow]:
    """Re-rank a board with a reader's weights (seed 002, "The composite ranking exposes weights").

    Each axis is min-max normalised to 0..1 over the agents that fully report it: score as is, cost
    (`cost_usd`) and latency (`wall_seconds`) inverted so that cheaper and faster are nearer 1; an axis where
    every such agent is equal gives all of them 1. An agent's `weighted` value is sum(w * axis) / sum(w) over
    the three axes. Missing data is never an advantage ("an adapter that under-reports tokens looks
    artificially cheap"): an axis the agent does not report (None), or reports on only some runs (listed in
    the row's `partial_axes`), scores the worst value, 0, wherever the reader gives it weight, and among equal
    `weighted` values such agents come after those with full data. The row lists those axes under
    `missing_axes` / `partial_axes` and, when weighted, `worst_axes`. With every weight 0, `weighted` is None
    for all. Weights must be finite and >= 0. Returns new rows (copies) ranked by `weighted`, with
    `weighted_rank` (equal values and equal gaps share it), then by name; `rank` keeps the board rank.
    """
    weights = {"score": w_score, "cost_usd": w_cost, "wall_seconds": w_latency}
    if any(w < 0 or not math.isfinite(w) for w in weights.values()):
        raise ValueError("weights must be finite and >= 0")

    def full(row: Mapping[str, Any], axis: str) -> bool:
        return row.get(axis) is not None and axis not in (row.get("partial_axes") or ())

    axes = {
        axis: _normalised({r["agent"]: float(r[axis]) for r in rows if full(r, axis)}, invert=axis != "score")
        for axis in AXES
    }
    total_w = math.fsum(weights.values())
    out = []
    for row in rows:
        new = dict(row)
        new["missing_axes"] = [a for a in AXES if row.get(a) is None]
        new["partial_axes"] = [a for a in AXES if row.get(a) is not None and not full(row, a)]
        new["worst_axes"] = [a for a in AXES if weights[a] > 0 and not full(row, a)]
        new["weighted"] = (
            math.fsum(weights[a] * axes[a].get(row["agent"], 0.0) for a in AXES) / total_w if total_w > 0 else None
        )
        out.append(new)
    board_rank = {r["agent"]: r.get("rank") for r in rows}
    ranked = assign_ranks(out, lambda r: (desc_none_last(r["weighted"]), len(r["worst_axes"])), name_key)
    for r in ranked:
        r["weighted_rank"] = r["rank"]
        r["rank"] = board_rank[r["agent"]]
    return cast(list[RerankedRow], ranked)
