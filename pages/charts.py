"""SVG geometry for the templates: an agent's score over rounds (a line) and score against cost or time (a
scatter with its Pareto frontier). Plain numbers in, coordinates and labels out; the templates draw them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast


def pareto(points: list[dict[str, Any]], x: str) -> set[str]:
    """Agents on the Pareto frontier of (higher score, lower x): no other agent is at least as good on both
    and better on one."""
    front = set()
    for p in points:
        dominated = any(
            q is not p and q["score"] >= p["score"] and q[x] <= p[x] and (q["score"] > p["score"] or q[x] < p[x])
            for q in points
        )
        if not dominated:
            front.add(p["agent"])
    return front


def _ticks(lo: float, hi: float, n: int = 5, steps: tuple[float, ...] | None = None) -> list[float]:
    """Round tick values from lo to at least hi (the last tick is >= hi, so every point is inside)."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    if steps:
        step = next((s for s in steps if s >= raw), steps[-1])
    else:
        mag = 10 ** math.floor(math.log10(raw))
        step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    t = math.floor(lo / step) * step
    ticks = [round(t, 10)]
    while ticks[-1] < hi - 1e-12:
        t += step
        ticks.append(round(t, 10))
    return ticks


TIME_STEPS = (10, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


def _tick_money(v: float) -> str:
    return f"${v:g}"


def _tick_time(v: float) -> str:
    minutes = int(round(v)) // 60
    if minutes >= 60:
        hours, rest = divmod(minutes, 60)
        return f"{hours}h" if not rest else f"{hours}h{rest:02d}"
    return f"{minutes}m" if minutes else f"{int(round(v))}s"


# A dot's label as the chart draws it (`.chart .dot-label` in site.css: 11px, in the chart's own units): its
# width is estimated generously, so a label drawn in any of the site's fonts is no wider than its box.
LABEL_SIZE = 11.0
LABEL_CHAR = 0.62 * LABEL_SIZE
LABEL_ASCENT, LABEL_DESCENT = 0.9 * LABEL_SIZE, 0.3 * LABEL_SIZE  # Chromium's box of an 11 px label: 12.84 tall
DOT_RADIUS = 6.0
# Where a label may go around its dot, in the order tried: (dx, dy of the text's anchor point, text-anchor).
LABEL_SPOTS = (
    (9.0, 4.0, "start"),
    (-9.0, 4.0, "end"),
    (7.0, -8.0, "start"),
    (7.0, 16.0, "start"),
    (-7.0, -8.0, "end"),
    (-7.0, 16.0, "end"),
    (0.0, -10.0, "middle"),
    (0.0, 19.0, "middle"),
)

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def label_box(x: float, y: float, anchor: str, text: str) -> Box:
    """The box a label of `text` drawn at (x, y) with `anchor` covers (estimated, `LABEL_CHAR`)."""
    width = len(text) * LABEL_CHAR
    x0 = x if anchor == "start" else (x - width if anchor == "end" else x - width / 2)
    return (x0, y - LABEL_ASCENT, x0 + width, y + LABEL_DESCENT)


def boxes_overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(dots: list[dict[str, Any]], area: Box, taken: list[Box]) -> None:
    """Put each dot's label where it overlaps no other label, no dot and nothing in `taken` (the axis titles),
    inside `area`: the first of `LABEL_SPOTS` that is free, dots taken left to right. A label with no free spot is
    not drawn (`label` None): the dot keeps its name in its link and tooltip, and the table below lists it."""
    blocked = list(taken) + [
        (d["x"] - DOT_RADIUS, d["y"] - DOT_RADIUS, d["x"] + DOT_RADIUS, d["y"] + DOT_RADIUS) for d in dots
    ]
    for d in sorted(dots, key=lambda d: (d["x"], d["y"])):
        d["label"] = None
        for dx, dy, anchor in LABEL_SPOTS:
            x, y = round(d["x"] + dx, 1), round(d["y"] + dy, 1)
            box = label_box(x, y, anchor, d["name"])
            inside = area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3]
            if inside and not any(boxes_overlap(box, other) for other in blocked):
                d.update({"label": d["name"], "label_x": x, "label_y": y, "label_anchor": anchor, "label_box": box})
                blocked.append(box)
                break


# A chart's (width, height, left, right, top, bottom) in its own units: as a desktop draws it, and narrow, as a
# phone does (about 326 px wide at 390x844: drawn there pixel for pixel, its 11-12 px text keeps its size; the
# wide drawing would be halved, its text about 5.6 px). The page holds both; site.css shows one (.chart-narrow).
SCATTER_LAYOUT = {False: (640, 360, 64, 24, 16, 48), True: (320, 320, 46, 12, 34, 48)}
LINE_LAYOUT = {False: (480, 160, 40, 16, 12, 36), True: (320, 160, 30, 30, 12, 36)}


def scatter_chart(
    rows: list[dict],
    x: str,
    fmt_x: Callable[[float], str],
    score_fmt: Callable[[float], str],
    hrefs: dict[str, str],
    names: tuple[str, str] = ("score", ""),
) -> dict[str, Any] | None:
    """SVG geometry of a score-against-x scatter with its Pareto frontier (drawn by the template), each dot's label
    placed clear of the others (`place_labels`). `names` are the two axes' names, for each dot's title. Its
    `narrow` is the same chart drawn for a phone (`SCATTER_LAYOUT`)."""
    wide = _scatter(rows, x, fmt_x, score_fmt, hrefs, names, narrow=False)
    if wide is not None:
        wide["drawings"] = [(dict(wide), ""), (_scatter(rows, x, fmt_x, score_fmt, hrefs, names, True), "-narrow")]
    return wide


def _scatter(
    rows: list[dict],
    x: str,
    fmt_x: Callable[[float], str],
    score_fmt: Callable[[float], str],
    hrefs: dict[str, str],
    names: tuple[str, str],
    narrow: bool,
) -> dict[str, Any] | None:
    pts = [r for r in rows if r.get("score") is not None and r.get(x) is not None]
    if not pts:
        return None
    w, h, left, right, top, bottom = SCATTER_LAYOUT[narrow]
    is_time = x == "wall_seconds"
    xticks = _ticks(0, max(p[x] for p in pts) * 1.02, 3 if narrow else 5, steps=TIME_STEPS if is_time else None)
    tick_x = _tick_time if is_time else _tick_money
    ys = [p["score"] for p in pts]
    yticks = _ticks(min(0.0, min(ys)), max(ys) if max(ys) > 0 else 1)
    x0, x1, y0, y1 = xticks[0], xticks[-1], yticks[0], yticks[-1]

    def px(v: float) -> float:
        return round(left + (v - x0) / (x1 - x0 or 1) * (w - left - right), 1)

    def py(v: float) -> float:
        return round(h - bottom - (v - y0) / (y1 - y0 or 1) * (h - top - bottom), 1)

    front = pareto(pts, x)
    dots = [
        {
            "x": px(p[x]),
            "y": py(p["score"]),
            "name": p["name"],
            "front": p["agent"] in front,
            "href": hrefs.get(p["agent"]),
            "title": f"{p['name']}: {names[0]} {score_fmt(p['score'])}, {(names[1] + ' ') if names[1] else ''}"
            f"{fmt_x(p[x])}",
        }
        for p in pts
    ]
    # The score axis's title is drawn inside the plot's top left corner (the template, 12px bold): labels keep
    # clear of it; the other axis's title is below the plot, outside the labels' area.
    y_title = (left + 6.0, top, left + 6.0 + (len(names[0]) + 2) * 0.7 * 12, top + 14.0)
    place_labels(dots, (float(left), 0.0, float(w), float(h - bottom)), [y_title])
    line = sorted((p for p in pts if p["agent"] in front), key=lambda p: p[x])
    return {
        "w": w,
        "h": h,
        "dots": dots,
        "frontier": " ".join(f"{px(p[x])},{py(p['score'])}" for p in line),
        "xticks": [{"pos": px(t), "label": tick_x(t)} for t in xticks],
        "yticks": [{"pos": py(t), "label": score_fmt(t)} for t in yticks],
        "plot_left": left,
        "plot_right": w - right,
        "plot_top": top,
        "plot_bottom": h - bottom,
        "front": sorted(p["name"] for p in line),
    }


def line_chart(points: list[tuple[str, float | None, str, str]], scale: float) -> dict[str, Any] | None:
    """A small SVG line of an agent's headline score over rounds (0 to the methodology's maximum); its `narrow`
    is the same line drawn for a phone (`LINE_LAYOUT`)."""
    wide = _line(points, scale, narrow=False)
    if wide is not None:
        wide["drawings"] = [(dict(wide), ""), (_line(points, scale, narrow=True), "-narrow")]
    return wide


def _line(points: list[tuple[str, float | None, str, str]], scale: float, narrow: bool) -> dict[str, Any] | None:
    present = [(i, p) for i, p in enumerate(points) if p[1] is not None]
    if not present:
        return None
    w, h, left, right, top, bottom = LINE_LAYOUT[narrow]
    n = max(len(points) - 1, 1)

    def px(i: int) -> float:
        return round(left + i / n * (w - left - right), 1) if len(points) > 1 else (left + w - right) / 2

    def py(v: float) -> float:
        return round(h - bottom - v / scale * (h - top - bottom), 1)

    dots = [{"x": px(i), "y": py(cast(float, p[1])), "label": p[2], "round": p[0], "href": p[3]} for i, p in present]
    # The rounds' names under the line: the first starts at its dot and the last ends at its own, so neither runs
    # off the drawing; each cut to the room between two dots.
    anchors = ["middle"] * len(points) if len(points) == 1 else ["start", *["middle"] * (len(points) - 2), "end"]
    room = (w - left - right) / n
    return {
        "label_chars": max(6, min(18, int(room / LABEL_CHAR))),
        "w": w,
        "h": h,
        "dots": dots,
        "line": " ".join(f"{d['x']},{d['y']}" for d in dots),
        "xlabels": [{"x": px(i), "text": p[0], "anchor": anchors[i]} for i, p in enumerate(points)],
        "base": h - bottom,
        "top": top,
        "left": left,
        "right": w - right,
    }


def _interval_axis(lo: float, hi: float, bounds: tuple[float, float] | None) -> list[float]:
    """Round ticks over [lo, hi], kept inside the score's own range when it has one (a 0-1 score is never drawn
    on a 1.00-2.00 axis). Intervals that are all one point (every agent at one value) are drawn on the score's
    whole range, or, on a scale without one (vote ratings), with a little room around them."""
    if bounds:  # never cut data off: a range the data leaves is widened to hold it
        bounds = (min(bounds[0], lo), max(bounds[1], hi))
    if hi - lo < 1e-9:
        # Every interval is one point (a single dot, or all agents at one value): the score's whole range, so the
        # dot is seen where it is on the scale, never on an axis zoomed to a sliver around it (0.90-1.00).
        pad = max(abs(lo) * 0.1, 1.0)
        lo, hi = bounds if bounds else (lo - pad, hi + pad)
    if bounds:
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    ticks = _ticks(lo, hi)
    if bounds:
        inside = [t for t in ticks if bounds[0] - 1e-9 <= t <= bounds[1] + 1e-9]
        ticks = sorted({max(ticks[0], bounds[0]), *inside, min(ticks[-1], bounds[1])})
    return ticks


# An interval chart's (line height, top, bottom, left, right margins, width), wide and narrow (`interval_chart`).
INTERVAL_LAYOUT = {False: (26, 12, 40, 200, 24, 720), True: (44, 16, 40, 14, 18, 360)}


def interval_chart(
    rows: list[dict[str, Any]],
    fmt: Callable[[float], str],
    hrefs: dict[str, str],
    bounds: tuple[float, float] | None = None,
    narrow: bool = False,
) -> dict[str, Any] | None:
    """SVG geometry of an interval plot (as LMArena's confidence-interval plot): one line per agent, in the
    order given, a dot at its number and a bar over its 95% interval, all on one shared horizontal axis, so
    overlapping bars are seen. Rows are {"agent", "name", "value", "low", "high", "rank_ub"}; rows without an
    interval are left out. `bounds` is the score's own range (0 to the methodology's scale): the axis stays
    inside it.

    `narrow`: the same plot drawn for a phone, 360 units wide (about its width in pixels there, so its text
    keeps its size): each agent's name on its own line above its bar, and the bars across the whole width. The
    wide plot (720 units, names beside the bars) would be drawn at half size, its labels about 5 px tall."""
    pts = [r for r in rows if r.get("value") is not None and r.get("low") is not None and r.get("high") is not None]
    if not pts:
        return None
    line, top, bottom, left, right, w = INTERVAL_LAYOUT[narrow]
    h = top + bottom + line * len(pts)
    ticks = _interval_axis(min(p["low"] for p in pts), max(p["high"] for p in pts), bounds)
    x0, x1 = ticks[0], ticks[-1]

    def px(v: float) -> float:
        return round(left + (v - x0) / (x1 - x0 or 1) * (w - left - right), 1)

    bars = []
    for i, p in enumerate(pts):
        y = top + line * i + line / 2
        bars.append(
            {
                "y": y,
                "x": px(p["value"]),
                "x_low": px(p["low"]),
                "x_high": px(p["high"]),
                "name": p["name"],
                "href": hrefs.get(p["agent"]),
                "title": f"{p['name']}: {fmt(p['value'])}, 95% interval {fmt(p['low'])} to {fmt(p['high'])}"
                + (f", rank (UB) {p['rank_ub']}" if p.get("rank_ub") is not None else ""),
                "band": bool(p.get("rank_ub") is not None and p["rank_ub"] % 2 == 0),
                # The name: beside the bar on the wide plot, on its own line above it on the narrow one.
                "label_y": y - 18 if narrow else y,
                "band_y": y - (34 if narrow else 13),
            }
        )
    return {
        "w": w,
        "band_h": 44 if narrow else 26,
        "label_anchor": "start" if narrow else "end",
        "h": h,
        "bars": bars,
        "ticks": [{"pos": px(t), "label": fmt(t)} for t in ticks],
        "plot_left": left,
        "plot_right": w - right,
        "plot_top": top,
        "plot_bottom": h - bottom,
        "label_x": left if narrow else left - 10,
    }
