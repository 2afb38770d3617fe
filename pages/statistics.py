"""The round's statistics in words (docs/statistics.md): the noise floor of a board, which tasks separate the
agents, the split-half reliability of the ranking, how often the reviewers agreed, and for two agents the
difference their round could detect. Every figure comes from the snapshot (`scoring.boards.round_statistics`)
or from `scoring.noise`; nothing is computed here but words and formats."""

from __future__ import annotations

from typing import Any

from leaderboard.models import Benchmark
from scoring.agreement import ReviewAgreement
from scoring.boards import RoundStatistics
from scoring.common import fixed
from scoring.noise import NoiseFloor, head_to_head_power
from scoring.task_stats import TaskStat
from scoring.types import PairedDifference
from scoring.vote_margins import BoardMargins, PairMargin, TopMargin

from .formatting import fmt_pct

# Split-half reliability bands, worded for a reader. The cut-offs are the usual ones for a reliability
# coefficient (0.8 "good", 0.5 "moderate"); docs/statistics.md quotes them.
RELIABILITY_WORDS = (
    (0.8, "the ranking would mostly hold on a different half of the tasks."),
    (
        0.5,
        "the ranking would partly hold on a different half of the tasks: the order of close agents owes "
        "something to which tasks were drawn.",
    ),
    (
        float("-inf"),
        "the ranking would not hold on a different half of the tasks: much of the order owes to "
        "which tasks happened to be in the round.",
    ),
)

FLAG_WORDS = {
    "no_separation": "does not separate agents: every agent has the same result",
    "wrong_way": "separates the wrong way: agents better elsewhere do worse here",
}


def _num(value: float | None, places: int = 2) -> str:
    return "–" if value is None else fixed(value, places).replace("-", "−")


def round_statistics(
    bench: Benchmark, data: dict[str, Any] | None, *, published: bool = True, by_votes: bool = False
) -> dict[str, Any] | None:
    """Everything the board page and the round's Tasks page say about the round as a whole. The review figures
    only once the round is published: on the staff board of a round still being reviewed they would tell a
    tester whether the second reviewer agreed (000 §5, the review is blind). `by_votes`: the board shown is
    ranked by vote ratings, whose unit the noise floor (of the headline's scale) is not in: it is left out and
    the page says what to read instead."""
    stats: RoundStatistics | None = (data or {}).get("statistics")
    if not stats:
        return None
    noise = noise_floor(bench, stats)
    return {
        "noise": None if by_votes else noise,
        "noise_by_votes": by_votes and noise is not None,
        "unit": bench.rules.headline_label,
        "reliability": reliability(stats),
        "review": review(stats) if published else None,
    }


def noise_floor(bench: Benchmark, stats: RoundStatistics) -> dict[str, Any] | None:
    """ "Two agents must differ by about X": the median half-width of the paired 95% intervals, in the board's
    units, named with them (the headline's scale, "Overall (0-100)"); None on boards without intervals or without
    a pair of agents."""
    noise: NoiseFloor | None = stats.get("noise")
    if not noise or noise["floor"] is None:
        return None
    floor = bench.rules.format_score(noise["floor"])
    return {"text": floor, "unit": bench.rules.headline_label, "pairs": noise["pairs"]}


def reliability(stats: RoundStatistics) -> dict[str, Any]:
    tasks = stats.get("tasks")
    half = tasks["split_half"] if tasks else None
    value = half["reliability"] if half else None
    splits = (half["used"] if half else 0) or 0
    if value is None:
        return {"value": None, "text": "–", "sentence": "", "splits": splits}
    words = next(w for cut, w in RELIABILITY_WORDS if value >= cut)
    return {"value": value, "text": _num(value), "sentence": words, "splits": splits}


def review(stats: RoundStatistics) -> dict[str, Any] | None:
    """Review agreement of an outcomes round (seed 000 §5), reviewers by role only; None elsewhere."""
    r: ReviewAgreement | None = stats.get("review")
    if r is None:
        return None
    return {
        **r,
        "agreement_text": fmt_pct(r["agreement"]),
        "kappa_text": _num(r["kappa"]) if r["kappa"] is not None else "not defined",
        "kappa_undefined_why": (
            ""
            if r["kappa"] is not None or not r["second_reviews"]
            else "every verdict was one and the same outcome, so chance already explains the agreement"
        ),
        "disagreements": r["second_reviews"] - r["agreed"],
    }


def task_rows(bench: Benchmark, data: dict[str, Any] | None, titles: dict[str, str]) -> list[dict[str, Any]]:
    """One row per task of the round: its mean (or pass share), spread, discrimination and flag."""
    stats: RoundStatistics = (data or {}).get("statistics") or RoundStatistics()
    tasks = stats.get("tasks")
    return [task_row(bench, t, titles) for t in ((tasks["tasks"] if tasks else None) or [])]


def task_row(bench: Benchmark, t: TaskStat, titles: dict[str, str]) -> dict[str, Any]:
    # A task's number is a score on the board's scale, or, where the board counts outcomes, the points of the
    # counted run (pass 2, partial 1, ...), which the board's own format (a 0-10 overall, a pass rate) is not.
    fmt = _num if bench.rules.counts_outcomes else bench.rules.format_score
    return {
        "key": t["task"],
        "title": titles.get(t["task"], t["task"]),
        "agents": t["agents"],
        "mean": t["mean"],
        "mean_text": fmt(t["mean"]) if t["mean"] is not None else "–",
        "pass_share": t["pass_share"],
        "pass_text": fmt_pct(t["pass_share"]) if t["pass_share"] is not None else "",
        "spread_text": fmt(t["spread"]) if t["spread"] is not None else "–",
        "discrimination": t["discrimination"],
        "discrimination_text": _num(t["discrimination"]),
        "flag": t["flag"] or "",
        "flag_text": FLAG_WORDS.get(t["flag"] or "", ""),
        "raw": t,
    }


def task_in_round(bench: Benchmark, data: dict[str, Any] | None, task_key: str) -> dict[str, Any] | None:
    """One task's row of the round (the task page), None when the round's statistics do not hold it."""
    return next((r for r in task_rows(bench, data, {}) if r["key"] == task_key), None)


def power(
    bench: Benchmark, data: dict[str, Any], diff: PairedDifference | None, a: str, b: str
) -> dict[str, Any] | None:
    """What the round could detect between a and b (`scoring.noise.head_to_head_power`), in words."""
    stats: RoundStatistics = data.get("statistics") or RoundStatistics()
    noise = stats.get("noise")
    sd_by = (noise["sd"] if noise else None) or {}
    lo, hi = sorted((a, b))
    sd = (sd_by.get(lo) or {}).get(hi)
    found = head_to_head_power(diff, sd)
    if found is None or diff is None:
        return None
    return {
        **found,
        "detectable_text": bench.rules.format_score(found["detectable"]) if found["detectable"] is not None else "",
        "sd_text": bench.rules.format_score(sd) if sd is not None else "",
        "tasks": diff["tasks"],
    }


def vote_margins(board: BoardMargins | None, names: dict[str, str]) -> dict[str, Any] | None:
    """How many votes hold a vote-ranked board's top place and each next neighbour down its order
    (`scoring.vote_margins`: a figure where their intervals do not overlap, else the overlap said), in words;
    None without a top place."""
    top = board["top"] if board else None
    if not board or not top:
        return None
    votes = board["votes"]

    def held(figure: TopMargin | PairMargin, upper: str, lower: str, overlap: bool = False) -> str:
        upper, lower = names.get(upper, upper), names.get(lower, lower)
        if overlap:
            return f"{upper} and {lower}: their 95% intervals overlap, so the votes do not clearly order them."
        flip = figure.get("flip")
        if flip == 0:
            return f"{upper} and {lower} are already level."
        if flip is None:
            removed = figure.get("removed", board.get("max_removed"))
            return f"{upper} stays ahead of {lower} after removing {removed:,} of {votes:,} votes (the search stops)."
        return f"{upper} stays ahead of {lower} unless at most {flip:,} of {votes:,} votes are removed."

    return {
        "votes": votes,
        "top_flip": top["flip"],
        "summary": f"at most {top['flip']:,} of {votes:,} votes" if top["flip"] else "",
        "top": held(top, top["agent"], top["runner_up"]),
        "pairs": [held(p, p["above"], p["below"], bool(p.get("overlap"))) for p in board["pairs"] or []],
    }
