"""The head-to-head page of two agents on one published round: every task side by side (the number the board
uses, the runs behind it, their range, links to the runs), the paired difference over the tasks both ran with
its 95% interval (stored with the round's snapshot by `scoring.intervals`, never computed here), and, where
there are public votes between them, their record and the vote model's predicted chance that one beats the
other.

Only public data: a published round (any other is a 404, as everywhere on the site), agents with an entry in it
(public by definition), public counted votes (`VoteQuerySet.public`), the published ratings snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Q

from leaderboard.models import Benchmark, Entry, Round
from scoring.intervals import paired_difference
from scoring.methodologies import Methodology
from scoring.types import PairedDifference, RatingRow, TaskNumber
from voting.models import Vote

from .formatting import OUTCOME_BADGE, OUTCOME_LABEL, fmt_pct, fmt_score
from .intervals import ci_label, compare_url
from .links import run_url, task_url
from .selectors import benchmark_get, ratings_maps, round_pick, rounds_published, snapshot_state, snapshots_for
from .statistics import power


def compare_page(*, bench_slug: str, params: Mapping[str, str]) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    rounds = rounds_published(bench)
    rnd = round_pick(rounds, params.get("round") or None)
    snaps, ratings_snap = snapshots_for(bench, [rnd.id])
    snap = snaps.get(rnd.id)
    entries = sorted(
        Entry.objects.filter(round=rnd).select_related("agent"), key=lambda e: (e.agent.name, e.agent.slug)
    )
    agents = {e.agent.slug: e.agent for e in entries}
    a = params.get("a") if params.get("a") in agents else None
    b = params.get("b") if params.get("b") in agents and params.get("b") != a else None
    context: dict[str, Any] = {
        "bench": bench,
        "round": rnd,
        "rounds": rounds,
        "agents": [e.agent for e in entries],
        "a": agents.get(a) if a else None,
        "b": agents.get(b) if b else None,
        "state": snapshot_state(snap),
        "swap_url": compare_url(bench.slug, rnd.key, b, a) if a and b else None,
    }
    if a and b and snap is not None and snap.data:
        context.update(_comparison(bench, rnd, snap.data, a, b, agents))
        ratings, _ = ratings_maps(ratings_snap)
        context["votes"] = _votes(bench, a, b, ratings)
    return context


def _comparison(bench: Benchmark, rnd: Round, data: dict, a: str, b: str, agents: dict) -> dict[str, Any]:
    rules: Methodology = bench.rules
    mine, theirs = rules.task_numbers(data, a), rules.task_numbers(data, b)
    titles = {t.key: t.title or t.key for t in bench.tasks.public()}
    rows = []
    for key in sorted(set(mine) | set(theirs), key=lambda k: titles.get(k, k)):
        left, right = mine.get(key), theirs.get(key)
        ours, other = (left["value"] if left else None), (right["value"] if right else None)
        ahead = None
        if ours is not None and other is not None:
            ahead = "a" if ours > other else ("b" if other > ours else "same")
        rows.append(
            {
                "key": key,
                "title": titles.get(key, key),
                "task_url": task_url(bench.slug, key),
                "sides": [_side(bench, rnd, key, a, left), _side(bench, rnd, key, b, right)],
                "ahead": ahead,
            }
        )
    diff = paired_difference(data.get("pairs"), a, b) if rules.interval else None
    return {
        "tasks": rows,
        "difference": _difference(diff, rules, agents[a].name, agents[b].name),
        "power": power(bench, data, diff, a, b),
    }


def _side(bench: Benchmark, rnd: Round, key: str, agent: str, cell: TaskNumber | None) -> dict[str, Any]:
    if not cell:
        return {"text": "–", "run_url": None, "runs": 0, "range": "", "pill": "", "runs_url": None}
    label = cell.get("label")
    text = OUTCOME_LABEL.get(label, label) if label else fmt_score(cell.get("value"), bench.methodology)
    low, high = cell.get("low"), cell.get("high")
    spread = f"{fmt_score(low, bench.methodology)}–{fmt_score(high, bench.methodology)}" if low is not None else ""
    return {
        "text": text,
        "pill": (OUTCOME_BADGE.get(label) or "neutral") if label else "",
        "run_url": run_url(bench.slug, rnd.key, cell.get("run")),
        "runs": cell.get("runs") or 0,
        "range": spread if cell.get("runs", 0) > 1 else "",
        "runs_url": task_url(bench.slug, key, agent),
    }


def _difference(diff: PairedDifference | None, rules: Methodology, name_a: str, name_b: str) -> dict[str, Any] | None:
    """The paired difference in words: which way the interval points, or that it covers 0."""
    if diff is None:
        return None

    def fmt(v: float) -> str:
        return ("−" if v < 0 else "+") + rules.format_score(abs(v))

    low, high = diff["ci_low"], diff["ci_high"]
    if low > 0:
        verdict = f"{name_a} is ahead of {name_b} on the tasks both ran: the whole 95% interval is above 0."
    elif high < 0:
        verdict = f"{name_b} is ahead of {name_a} on the tasks both ran: the whole 95% interval is below 0."
    else:
        verdict = f"The 95% interval covers 0: these runs cannot tell {name_a} and {name_b} apart."
    return {
        **diff,
        "text": fmt(diff["difference"]),
        "low_text": fmt(low),
        "high_text": fmt(high),
        "ci": ci_label(diff["difference"], low, high, lambda v: rules.format_score(abs(v))),
        "verdict": verdict,
    }


def _votes(bench: Benchmark, a: str, b: str, ratings: dict[str, RatingRow]) -> dict[str, Any] | None:
    """The public counted votes between the two (every task), and the vote model's predicted chance that a
    beats b: 1 / (1 + 10^((rating b - rating a) / 400)) on the Elo scale of the ratings."""
    pair = Q(agent_a__slug=a, agent_b__slug=b) | Q(agent_a__slug=b, agent_b__slug=a)
    rows = list(
        Vote.objects.filter(pair, task__benchmark=bench, counts=True).public().values_list("agent_a__slug", "winner")
    )
    ra, rb = ratings.get(a), ratings.get(b)
    if not rows and not (ra and rb):
        return None
    wins_a = sum(1 for first, w in rows if (w == "a" and first == a) or (w == "b" and first != a))
    ties = sum(1 for _, w in rows if w == "tie")
    out: dict[str, Any] = {"total": len(rows), "wins_a": wins_a, "wins_b": len(rows) - wins_a - ties, "ties": ties}
    if ra and rb:
        p = 1.0 / (1.0 + 10 ** ((rb["rating"] - ra["rating"]) / 400))
        out.update({"rating_a": ra["rating"], "rating_b": rb["rating"], "p_a": p, "p_a_text": fmt_pct(p)})
    return out
