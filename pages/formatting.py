"""How the site shows numbers: presentation rounds, the snapshot keeps full precision. A missing number is
"–", never 0."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from scoring import methodologies
from scoring.common import fixed
from scoring.limits import TaskLimits
from scoring.scored import passes
from scoring.types import RatingRow

OUTCOME_BADGE = {
    "pass": "good",
    "partial": "warn",
    "fail": "bad",
    "violation": "bad",
    "unsupported": "",
    "in_review": "",
    "region_blocked": "",
}
OUTCOME_LABEL = {"in_review": "in review", "region_blocked": "region blocked"}


def fmt_score(value: float | None, methodology: str) -> str:
    return "–" if value is None else methodologies.get(methodology).format_score(value)


def fmt_score_beside(value: float | None, methodology: str, threshold: float | None, passed: bool | None = None) -> str:
    """`fmt_score`, except that a score under its benchmark's pass threshold never reads as one at it: where two
    decimals would show 0.798 as "0.80" beside a threshold of 0.80, three, cut down, never rounded up ("0.798",
    "0.799" for 0.7996). `passed`: whether it passes, when the caller knows (the board's cell); else worked out
    by the boards' own rule (`scoring.scored.passes`). Every surface that shows a scored score uses this: the
    Tasks tab, the head-to-head, the run lists and the run page."""
    text = fmt_score(value, methodology)
    if value is None or threshold is None:
        return text
    if passed is None:
        passed = passes(value, threshold)
    if not passed and float(text) >= threshold:
        return f"{math.floor(value * 1000) / 1000:.3f}"
    return text


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else fixed(value, 0, times=100) + "%"


def fmt_money(value: float | Decimal | None) -> str:
    if value is None:
        return "–"
    value = float(value)
    if value >= 0.1:
        whole, cents = fixed(value, 2).split(".")
        return f"${int(whole):,}.{cents}"  # a half cent up, as every shown figure: $1.005 is "$1.01"
    return f"${fixed(value, 3)}"


def fmt_seconds(value: float | None) -> str:
    """A duration: "1h 15m", "16m 21s", "42s"; under a second, in hundredths ("0.04s"), so a recorded time of a
    few milliseconds never reads "0s", as if there were none. Missing is "–"."""
    if value is None:
        return "–"
    if 0 < value < 0.995:
        return f"{fixed(value, 2)}s" if value >= 0.005 else "<0.01s"
    total = int(fixed(value, 0))  # a half second up, as every shown figure: 90.5 s is "1m 31s"
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {seconds:02d}s"
    return f"{seconds}s"


def fmt_tokens(value: int | None) -> str:
    if value is None:
        return "–"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,}"


def fmt_rating(row: RatingRow | None) -> dict[str, Any] | None:
    """A Bradley-Terry rating with its 95% interval as "+x/-y", and the "few votes" mark (under 30)."""
    if not row:
        return None
    # Each end rounded as shown (a half up, as every figure of the site), and the "+x/-y" read off the shown
    # figures, so the rating plus x is the interval's shown top: 1000.5 in 980.5-1010.6 is "1001 +10 -20", 981-1011.
    rating, low, high = (int(fixed(row[name], 0)) for name in ("rating", "ci_low", "ci_high"))
    return {
        "text": str(rating),
        "plus": f"+{high - rating}",
        "minus": f"−{rating - low}",
        "votes": row["votes"],
        "few": row["few_votes"],
        "title": f"95% interval {low}–{high}, {row['votes']} votes",
    }


def fmt_range(lo: float | None, hi: float | None, methodology: str, threshold: float | None = None) -> str:
    """Worst to best on the methodology's own scale, each end as its scores read ("41.0–87.0" on checks,
    "0.70–1.00" on scored, a failing end never read as the pass threshold beside `threshold`: "0.70–0.797"):
    one format on the board, the task page and the head-to-head."""
    if lo is None or hi is None:
        return "–"
    return f"{fmt_score_beside(lo, methodology, threshold)}–{fmt_score_beside(hi, methodology, threshold)}"


def fmt_time_limit(limits: TaskLimits) -> str:
    """A task's time limit in its methodology's unit: "300 s" where the seed gives seconds (002's timeout), else
    "30 min"; "–" for none."""
    minutes = limits.time_limit_min
    if minutes is None:
        return "–"
    if limits.in_seconds:
        return f"{fixed(minutes * 60, 0)} s"
    return f"{minutes:g} min"


LIMIT_SOURCE = {
    "default": "the methodology's default",
    "cap": "the same cap for every task",
    "task": "",
    "": "",
}


def limits_view(limits: TaskLimits) -> dict[str, Any]:
    """A task's limits as its task and run pages say them: the time limit in its unit, where it comes from with the
    seed's words when it is not the task's own, and the token budget where the methodology has one."""
    source = LIMIT_SOURCE[limits.source]
    return {
        "known": limits.time_limit_min is not None,
        "time": fmt_time_limit(limits),
        "source": source,
        "words": limits.words if limits.source in ("default", "cap") else "",
        "token_budget": limits.token_budget,
    }
