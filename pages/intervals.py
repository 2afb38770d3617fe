"""What a board shows of its headline's 95% interval (computed with the snapshot by `scoring.intervals`, never
here): the interval beside the score, a Rank (UB) column beside the seed's rank (which stays as the seed says),
rows of agents sharing a Rank (UB) grouped, the interval charts of the board and of the vote ratings, and a
head-to-head link on every row of every board."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from scoring.common import fixed

from .charts import interval_chart
from .formatting import fmt_score
from .table_cells import BoardContext, Cell, Column, Table

RANK_UB_TITLE = (
    "Rank (UB): the best place the runs allow this agent, 1 + the number of agents whose whole 95% interval "
    "is above this agent's (surely ahead of it)."
)


def ci_label(value: float, low: float, high: float, fmt: Callable[[float], str]) -> dict[str, str]:
    """The interval beside a number: "±x" when both sides round alike, else "+x/−y"; its bounds in a title."""
    plus, minus = fmt(high - value), fmt(value - low)
    return {
        "text": f"±{plus}" if plus == minus else f"+{plus}/−{minus}",
        "title": f"95% interval {fmt(low)} to {fmt(high)}",
    }


def compare_url(bench_slug: str, round_key: str | None, a: str, b: str | None) -> str:
    query = {"a": a, **({"b": b} if b else {}), **({"round": round_key} if round_key else {})}
    return reverse("compare", args=[bench_slug]) + "?" + urlencode(query)


def add_intervals(table: Table, ctx: BoardContext, tab: str) -> None:
    """On the methodology's interval board: the interval beside each headline, a Rank (UB) column after the
    rank, `ub_group` on each row (a new group where Rank (UB) changes, in the board's order) and the bounds for
    the CSV (`Table.extra`)."""
    rules = ctx.bench.rules
    if rules.interval is None or tab != rules.interval.board:
        return
    source = {r["agent"]: r for r in ctx.data.get(rules.interval.board) or []}
    keys = [c.key for c in table.columns]
    if rules.headline_key not in keys or not any("rank_ub" in r for r in source.values()):
        return
    head = keys.index(rules.headline_key)
    table.columns.insert(1, Column("rank_ub", "Rank (UB)", title=RANK_UB_TITLE))
    # Named for the figure they bound (`overall_ci_low`), never a bare `ci_low` beside a vote rating's column.
    key = rules.headline_key
    table.extra_columns = [*table.extra_columns, f"{key}_ci_low", f"{key}_ci_high"]
    group, previous = 0, None
    for row in table.rows:
        found = source.get(row["agent"]) or {}
        value, low, high, ub = (found.get(k) for k in (rules.headline_key, "ci_low", "ci_high", "rank_ub"))
        if value is not None and low is not None and high is not None:
            row["cells"][head].ci = ci_label(value, low, high, lambda v: rules.format_score(abs(v)))
        row["cells"].insert(1, Cell(text=str(ub) if ub is not None else "–", sort=ub, raw=ub, title=RANK_UB_TITLE))
        if previous is not None and ub != previous:
            group += 1
        previous = ub
        row["ub_group"] = group
        row["extra"] = [*(row.get("extra") or []), low, high]
    table.note = (table.note + " " if table.note else "") + (
        "± is the 95% interval of the score (tasks, and runs within a task, drawn again 1,000 times); rows in "
        "one shade share a Rank (UB): the same number of agents are surely ahead of each."
    )


def add_compare_links(table: Table, ctx: BoardContext) -> None:
    """A head-to-head link on every row: this agent against the one ranked just above it (the leader against
    the runner-up)."""
    agents = [r["agent"] for r in table.rows]
    if len(agents) < 2:
        return
    table.columns.append(Column("compare", "Head-to-head", num=False, csv=False, sortable=False))
    for i, row in enumerate(table.rows):
        other = agents[i - 1] if i else agents[1]
        name = next((c.text for c, k in zip(row["cells"], table.columns, strict=False) if k.key == "agent"), "")
        row["cells"].append(
            Cell(
                text="compare",
                href=compare_url(ctx.bench.slug, ctx.rnd.key, row["agent"], other),
                title=f"{name} against the agent ranked above it, task by task",
            )
        )


def board_charts(ctx: BoardContext, tab: str) -> list[dict[str, Any]]:
    """The interval charts of a board page: the headline's (on the interval board) and the vote ratings'."""
    rules = ctx.bench.rules
    hrefs = {r.agent.slug: reverse("agent", args=[r.agent.slug]) for r in ctx.entries.values()}
    charts = []
    if rules.interval is not None and tab == rules.interval.board:
        rows = [
            {
                "agent": r["agent"],
                "name": r["name"],
                "value": r.get(rules.headline_key),
                "low": r.get("ci_low"),
                "high": r.get("ci_high"),
                "rank_ub": r.get("rank_ub"),
            }
            for r in ctx.data.get(rules.interval.board) or []
        ]
        charts.append(_chart("score-chart", f"{rules.headline_label}, 95% intervals", rows, rules, hrefs, ctx))
    if ctx.ratings:
        names = {e.agent.slug: e.agent.name for e in ctx.entries.values()}
        ratings = sorted(ctx.ratings.values(), key=lambda r: (-r["rating"], r["agent"]))
        rows = [
            {
                "agent": r["agent"],
                "name": names.get(r["agent"], r["agent"]),
                "value": r["rating"],
                "low": r["ci_low"],
                "high": r["ci_high"],
                "rank_ub": r.get("rank_ub"),
            }
            for r in ratings
        ]
        charts.append(_chart("rating-chart", "Vote rating (Bradley-Terry), 95% intervals", rows, None, hrefs, ctx))
    return [c for c in charts if c["chart"]]


def _chart(
    chart_id: str, title: str, rows: list[dict], rules: Any, hrefs: dict[str, str], ctx: BoardContext
) -> dict[str, Any]:
    def fmt(v: float) -> str:
        return fmt_score(v, ctx.methodology) if rules is not None else fixed(v, 0)  # a rating, as the board shows it

    bounds = (0.0, float(rules.scale)) if rules is not None else None
    chart = interval_chart(rows, fmt, hrefs, bounds)
    shown = [r for r in rows if r["low"] is not None and r["value"] is not None]
    return {
        "id": chart_id,
        "title": title,
        "chart": chart,
        # The drawings the page holds, (geometry, narrow): the wide one, and the same plot as a phone shows it.
        "drawings": [(chart, ""), (interval_chart(rows, fmt, hrefs, bounds, narrow=True), "-narrow")],
        "rows": [
            {**r, "value_text": fmt(r["value"]), "low_text": fmt(r["low"]), "high_text": fmt(r["high"])} for r in shown
        ],
        "summary": _summary(shown, fmt),
    }


def _summary(rows: list[dict], fmt: Callable[[float], str]) -> str:
    """A sentence for readers who do not see the chart: who leads, and who cannot be told apart from them."""
    if not rows:
        return ""
    top = rows[0]
    tied = [r["name"] for r in rows[1:] if r["high"] >= top["low"]]
    lead = f"{top['name']} is first at {fmt(top['value'])} (95% interval {fmt(top['low'])} to {fmt(top['high'])})."
    if not tied:
        return lead + " No other agent's interval reaches it."
    return lead + f" Intervals overlapping it: {', '.join(tied)}."
