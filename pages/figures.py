"""The one way the site says a run's figures, read from its standing (`scoring.run_figures`: decided with the
board, never here): its time as published with the recorded time beside it where they differ, and its marks
(heuristic, other language, violation, at the cap). Every page, the template filters (`pages.templatetags.formats`)
and the downloads go through these, so a run reads the same on the board, its page, the task and agent pages, the
head-to-head and runs.csv.

Each figure a page shows is tagged `data-figure="<name>"` (a mark `data-mark="<mark>"`) by the filters here: the
consistency crawler reads them by name and compares each with the board's output, and a test fails when a template
shows a figure it does not compare (`FIGURES`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from scoring.methodologies import Methodology
from scoring.run_figures import CAPPED, HEURISTIC, MARKS, OTHER_LANGUAGE, VIOLATION, marks_of

from .formatting import fmt_pct, fmt_range, fmt_score, fmt_seconds

# Every figure a page tags, by the name it is tagged with: what it is, in words.
FIGURES = {
    "result": "the run's result as the board counts it (outcome, or score on the benchmark's scale), or why none",
    "time": "the run's time as published (004: stopped at the 30-minute cap), the recorded time beside it",
    "marks": "the marks next to a result: heuristic, other language, violation, at the cap",
    "pass_at_k": "002's pass@k of one agent on one task: trials scoring at least the threshold / trials",
    "range": "the worst and best of an agent's counted runs or trials on a task, on the benchmark's scale",
    "violations": "how many violations an agent's safety score holds (000 §4)",
    "language": "the language of a run reported apart from the main score (000 §2)",
    "headline": "an agent's headline figure on a board, as the board stores it",
}


def pass_at_k_text(trials: int, passes: int) -> str:
    """002's pass@k of one agent on one task, "pass@3 67%": trials scoring at least the threshold over its
    trials ("pass@k = (trials where score >= 0.80) / total_trials"), k being its number of trials."""
    return f"pass@{trials} {fmt_pct(passes / trials)}" if trials else "–"


def violations_text(count: int) -> str:
    """ "1 violation", "2 violations" (000 §4: "Any violation is shown next to the score")."""
    return f"{count} violation{'s' if count != 1 else ''}"


def row_badges(row: Mapping[str, Any], rules: Methodology, board: str) -> list[tuple[str, str, str]]:
    """The marks next to an agent's figure on one board (mark, text, css class): "heuristic" where a best trial
    rests on the heuristic fallback (002), and its violations next to the board's score they belong to (000 §4,
    `Methodology.violations_board`)."""
    out = []
    if row.get("heuristic"):
        out.append((HEURISTIC, "heuristic", "warn"))
    if board == rules.violations_board and row.get("violations"):
        out.append(("violations", violations_text(row["violations"]), "bad"))
    return out


def task_figures(
    number: Mapping[str, Any] | None, methodology: str, medians: bool, threshold: float | None = None
) -> dict[str, Any]:
    """What a task page and the head-to-head say of one agent on one task, from the board's number for it
    (`Methodology.task_numbers`): its median where the board ranks by median runs, the range of its runs
    ("one run" for a single one), and 002's pass@k where the board counts trials."""
    if number is None:
        return {"median": None, "range": "", "pass_at_k": ""}
    runs = number.get("runs") or 0
    return {
        "median": fmt_score(number.get("value"), methodology) if medians else None,
        "range": range_text(runs, number.get("low"), number.get("high"), methodology, threshold),
        "pass_at_k": pass_at_k_text(runs, number["passes"]) if "passes" in number else "",
    }


def range_text(
    runs: int, low: float | None, high: float | None, methodology: str, threshold: float | None = None
) -> str:
    """The range of an agent's counted runs on a task, on the benchmark's scale ("0.70–1.00"): "one run" for a
    single one (a range of one run says nothing), "" for none."""
    if runs == 1:
        return "one run"
    return fmt_range(low, high, methodology, threshold) if runs > 1 and low is not None else ""


def published_seconds(found: Mapping[str, Any], wall_seconds: float | None) -> float | None:
    """The run's time as published (`seconds` of its standing); the recorded time while its standing carries
    none (a board stored before the time was, or not yet computed)."""
    return found["seconds"] if "seconds" in found else wall_seconds


def time_view(found: Mapping[str, Any], wall_seconds: float | None) -> dict[str, Any]:
    """A run's time: the published one ("30m 00s") and, where the recorded one reads otherwise, that one
    ("recorded 40m 00s"; "no time recorded" for a run published at the cap without one)."""
    seconds = published_seconds(found, wall_seconds)
    text = fmt_seconds(seconds)
    recorded = ""
    if seconds is not None and fmt_seconds(wall_seconds) != text:
        recorded = "no time recorded" if wall_seconds is None else f"recorded {fmt_seconds(wall_seconds)}"
    return {"seconds": seconds, "text": text, "recorded": recorded, "capped": CAPPED in marks_of(found)}


def time_text(found: Mapping[str, Any], wall_seconds: float | None) -> str:
    """The time as one line of text, for a CSV or a title: "30m 00s (recorded 40m 00s)"."""
    view = time_view(found, wall_seconds)
    return view["text"] + (f" ({view['recorded']})" if view["recorded"] else "")


def mark_badges(found: Mapping[str, Any], language: str | None, cap_minutes: float | None) -> list:
    """The marks as badges (mark, text, css class), in `MARKS` order: "heuristic", "language zh, reported
    apart", "violation", "30-min cap"."""
    words = {
        HEURISTIC: ("heuristic", "warn"),
        OTHER_LANGUAGE: (f"language {language or '?'}, reported apart", "neutral"),
        VIOLATION: ("violation", "bad"),
        CAPPED: (f"{cap_minutes:g}-min cap" if cap_minutes else "at the cap", "bad"),
    }
    marks = marks_of(found)
    return [(mark, *words[mark]) for mark in MARKS if mark in marks]


def cap_minutes(rules: Methodology) -> float | None:
    """The cap a run's time stops at where the methodology caps it (004's 30 minutes), for its mark's words."""
    return rules.time_limit.default_min if rules.time_limit.cap else None


def time_html(view: Mapping[str, Any]) -> SafeString:
    """A time view (`time_view`) tagged for the crawler: the published time, the recorded one beside it."""
    recorded = format_html(' <span class="sub">{}</span>', view["recorded"]) if view["recorded"] else ""
    return format_html('<span data-figure="time">{}</span>{}', view["text"], recorded)


def marks_html(badges: list) -> SafeString:
    """Mark badges (`mark_badges`, `row_badges`) tagged for the crawler, each with its mark's name (an agent's
    violations are a figure of their own, "violations")."""
    return format_html_join(
        "",
        ' <span class="badge {}" data-figure="{}" data-mark="{}">{}</span>',
        ((c, "violations" if m == "violations" else "marks", m, t) for m, t, c in badges),
    )
