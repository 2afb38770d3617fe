"""The score x cost x time page: each agent's board headline beside its cost and time, re-ranked by the
visitor's weights, and the two scatter charts. Scored and weekly boards carry cost and time; for checks and
outcomes they are the means over the runs the board counts (the registry's `axes_runs` says which, and so does
the page). A mean over only some runs is partial: it is re-ranked as missing and not plotted."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from leaderboard.models import Benchmark, Round
from scoring.tradeoffs import AXES, RerankedRow, TradeoffRow
from snapshots.models import BoardSnapshot, SnapshotKind

from .charts import scatter_chart
from .figures import row_badges
from .formatting import fmt_money, fmt_score, fmt_seconds
from .links import round_agent_url
from .selectors import benchmark_get, round_and_rounds, snapshot_state


def tradeoff_rows(bench: Benchmark, rnd: Round, data: dict) -> list[TradeoffRow]:
    """Rows with the three axes: score (the board's headline), cost and time, as the board snapshot carries them
    (scored and weekly rows are about cost and time; checks and outcomes rows carry the means over the runs the
    board counts). Nothing is computed here; a methodology without axes shows them as missing."""
    rows = (data.get("overall") or []) if data else []
    carried = bench.rules.tradeoff_axes
    if carried is None:
        return [_axes_row(r, r.get(bench.rules.headline_key), None, None, 0, 0, 0) for r in rows]
    return [_axes_row(r, *carried(r)) for r in rows]


def _axes_row(
    r: Mapping[str, Any],
    score: float | None,
    cost: float | None,
    seconds: float | None,
    runs: int,
    cost_runs: int,
    time_runs: int,
) -> TradeoffRow:
    """One agent on the trade-offs page. An axis reported on only some runs is partial: its mean may rest on
    the cheap or fast runs, so the re-rank scores it as missing (seed 002: missing data is never an
    advantage)."""
    partial = [axis for axis, n in (("cost_usd", cost_runs), ("wall_seconds", time_runs)) if 0 < n < runs]
    return {
        "agent": r["agent"],
        "name": r["name"],
        "rank": r.get("rank"),
        "score": score,
        "cost_usd": cost,
        "wall_seconds": seconds,
        "runs": runs,
        "axis_runs": {"cost_usd": cost_runs, "wall_seconds": time_runs},
        "partial_axes": partial,
    }


def _weight(params: Mapping[str, str], name: str) -> float:
    try:
        value = float(params.get(name, "1"))
    except ValueError:
        return 1.0
    return min(max(value, 0.0), 10.0) if math.isfinite(value) else 1.0


AXIS_WORD = {"score": "score", "cost_usd": "cost", "wall_seconds": "time"}


def _partial_name(row: TradeoffRow, axis: str) -> str:
    return f"{row['name']} ({AXIS_WORD[axis]} on {row['axis_runs'][axis]} of {row['runs']} runs)"


def _axis_gaps(row: RerankedRow) -> list[str]:
    """What a re-ranked row lacks, in words: "no cost", "cost on 3 of 10 runs", and whether the weights made
    it count as the worst value."""
    gaps = []
    for axis in AXES:
        if axis in row["missing_axes"]:
            text = f"no {AXIS_WORD[axis]}"
        elif axis in row["partial_axes"]:
            text = f"{AXIS_WORD[axis]} on {row['axis_runs'][axis]} of {row['runs']} runs"
        else:
            continue
        gaps.append(text + (", counted as the worst" if axis in row["worst_axes"] else ""))
    return gaps


def tradeoffs_page(*, bench_slug: str, params: Mapping[str, str], viewer=None) -> dict[str, Any]:
    """A round's score x cost x time (`?round=`, else the latest published); an unpublished round's for staff only."""
    bench = benchmark_get(bench_slug)
    rnd, rounds = round_and_rounds(bench, params.get("round") or None, viewer)
    snap = BoardSnapshot.objects.filter(round=rnd, kind=SnapshotKind.BOARDS).first()
    data = snap.data if snap and snap.data else {}
    rows = tradeoff_rows(bench, rnd, data)
    weights = {k: _weight(params, k) for k in ("w_score", "w_cost", "w_time")}
    ranked = bench.rules.rerank(rows, weights["w_score"], weights["w_cost"], weights["w_time"])
    m = bench.methodology
    headline = bench.rules.headline_label
    cost_name, time_name = bench.rules.axes_names
    hrefs = {r["agent"]: round_agent_url(bench.slug, rnd.key, r["agent"]) for r in rows}
    # The marks next to the headline, as the board's first tab has them (a heuristic best trial, 002).
    tab = bench.rules.tabs[0][0]
    badges = {r["agent"]: row_badges(r, bench.rules, tab) for r in (data.get(tab) or [] if data else [])}

    def score_fmt(v: float) -> str:
        return fmt_score(v, m)

    table = [_table_row(r, hrefs[r["agent"]], score_fmt, badges.get(r["agent"], [])) for r in ranked]
    # A partial mean is not plotted either: it could put an agent on the frontier with its cheap runs only.
    plotted = [{**r, **{a: None for a in r["partial_axes"]}} for r in rows]
    return {
        "bench": bench,
        "round": rnd,
        "rounds": rounds,
        "weights": weights,
        "table": table,
        "state": snapshot_state(snap),
        "cost_chart": scatter_chart(plotted, "cost_usd", fmt_money, score_fmt, hrefs, (headline, cost_name)),
        "time_chart": scatter_chart(plotted, "wall_seconds", fmt_seconds, score_fmt, hrefs, (headline, time_name)),
        "cost_name": cost_name,
        "time_name": time_name,
        "axes_totals": bench.rules.axes_totals,
        # Totals say how many runs they are over, on the axis itself: "time of the week (5 runs)".
        "axes_suffix": _count_words(rows) if bench.rules.axes_totals else "",
        "missing_cost": [r["name"] for r in rows if r["cost_usd"] is None],
        "missing_time": [r["name"] for r in rows if r["wall_seconds"] is None],
        "partial_cost": [_partial_name(r, "cost_usd") for r in rows if "cost_usd" in r["partial_axes"]],
        "partial_time": [_partial_name(r, "wall_seconds") for r in rows if "wall_seconds" in r["partial_axes"]],
        "axes_runs": bench.rules.axes_runs,
        # No agent reports cost or time: nothing to plot or trade off, and a re-rank would only rescale the score.
        "no_axes": bool(rows) and all(r["cost_usd"] is None and r["wall_seconds"] is None for r in rows),
        "headline": headline,
    }


def _count_words(rows: list[TradeoffRow]) -> str:
    """ " (5 runs)": how many runs every agent's totals are over, when it is one number for all (the week's tasks)."""
    counts = {r["runs"] for r in rows}
    n = counts.pop() if len(counts) == 1 else None
    return f" ({n} run{'s' if n != 1 else ''})" if n else ""


def _table_row(r: RerankedRow, href: str, score_fmt: Callable[[float], str], badges: list) -> dict[str, Any]:
    """One agent's line of the re-ranked table: both ranks, the weighted figure, its score with the board's marks,
    its cost and time, and the axes it lacks."""
    return {
        "agent": r["agent"],
        "name": r["name"],
        "href": href,
        "weighted_rank": r["weighted_rank"],
        "rank": r["rank"],
        "weighted": "–" if r["weighted"] is None else f"{r['weighted']:.3f}",
        "score": score_fmt(r["score"]) if r["score"] is not None else "–",
        "badges": badges,
        "cost": fmt_money(r["cost_usd"]),
        "time": fmt_seconds(r["wall_seconds"]),
        "gaps": _axis_gaps(r),
    }
