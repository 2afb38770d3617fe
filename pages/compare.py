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
from scoring.boards import boards_as_shown
from scoring.common import fixed, rank_value
from scoring.intervals import paired_difference, tasks_both_ran
from scoring.methodologies import Methodology
from scoring.run_figures import HEURISTIC, OTHER_LANGUAGE
from scoring.task_numbers import TaskNumber
from scoring.types import PairedDifference, RatingRow
from voting.models import Vote

from .figures import cap_minutes, mark_badges, task_figures
from .formatting import OUTCOME_BADGE, OUTCOME_LABEL, fmt_pct, fmt_score_beside
from .intervals import ci_label, compare_url
from .links import run_url, task_url
from .selectors import benchmark_get, ratings_maps, round_and_rounds, snapshot_state, snapshots_for
from .statistics import power


def compare_page(*, bench_slug: str, params: Mapping[str, str], viewer=None) -> dict[str, Any]:
    """Two agents of a round (`?round=`, else the latest published); an unpublished round's for staff only."""
    bench = benchmark_get(bench_slug)
    rnd, rounds = round_and_rounds(bench, params.get("round") or None, viewer)
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
        # The boards as the board page shows them: a task ranked by votes carries its vote ratings.
        shown = boards_as_shown(bench.methodology, snap.data, ratings_snap.data if ratings_snap else None)
        context.update(_comparison(bench, rnd, shown, a, b, agents))
        ratings, _ = ratings_maps(ratings_snap)
        context["votes"] = _votes(bench, a, b, ratings)
    return context


def _comparison(bench: Benchmark, rnd: Round, data: dict, a: str, b: str, agents: dict) -> dict[str, Any]:
    """The task-by-task table and the paired difference. The table is in two groups: the tasks the difference
    is over (those both agents' interval cells ran, `tasks_both_ran`: the same cells the stored pair counted,
    so the group has as many rows as the sentence has tasks) and the others, each saying why it is not in it."""
    rules: Methodology = bench.rules
    mine, theirs = rules.task_numbers(data, a), rules.task_numbers(data, b)
    names = (agents[a].name, agents[b].name)
    titles = {t.key: t.title or t.key for t in bench.tasks.public()}
    diff = paired_difference(data.get("pairs"), a, b) if rules.interval else None
    shared = tasks_both_ran(data.get("interval_tasks"), a, b) if diff is not None else None
    standings = data.get("standings") or {}
    rows = []
    for key in sorted(set(mine) | set(theirs), key=lambda k: titles.get(k, k)):
        left, right = mine.get(key), theirs.get(key)
        by_votes = any(cell.get("by_votes") for cell in (left, right) if cell is not None)
        rows.append(
            {
                "key": key,
                "title": titles.get(key, key),
                "task_url": task_url(bench.slug, key),
                "sides": [_side(bench, rnd, key, a, left, standings), _side(bench, rnd, key, b, right, standings)],
                "ahead": _ahead(left, right, by_votes),
                "by_votes": by_votes,
                "outside": _outside(left, right, by_votes, names) if shared is not None and key not in shared else "",
            }
        )
    groups = [{"rows": rows, "title": ""}]
    if shared is not None:
        inside = [r for r in rows if r["key"] in shared]
        outside = [r for r in rows if r["key"] not in shared]
        groups = [
            {
                "rows": inside,
                "title": f"In the difference: the {len(inside)} task{'s' if len(inside) != 1 else ''} both ran",
            },
            {"rows": outside, "title": "Not in the difference"},
        ]
    return {
        "tasks": rows,
        "groups": [g for g in groups if g["rows"]],
        "by_votes": any(r["by_votes"] for r in rows),
        "difference": _difference(diff, rules, *names),
        "power": power(bench, data, diff, a, b),
    }


def _ahead(left: TaskNumber | None, right: TaskNumber | None, by_votes: bool) -> str | None:
    """Who is ahead on one task: "a", "b", "same", or None when not both have a place. On a board ranked by
    votes, the board's own order (the task's vote rating, `checks.rank_by_votes`), never the checks' 100; on
    any other, the higher number the board uses, equal to nine decimals equal as on the board (`rank_value`: 0.7
    and 0.7000000000000001, two ways to one composite score, are level)."""
    if left is None or right is None:
        return None
    ours, other = (left.get("rank"), right.get("rank")) if by_votes else (left["value"], right["value"])
    if ours is None or other is None:
        return None
    ours, other = rank_value(ours), rank_value(other)
    if by_votes:  # a lower rank is ahead
        ours, other = -ours, -other
    return "a" if ours > other else ("b" if other > ours else "same")


def _outside(left: TaskNumber | None, right: TaskNumber | None, by_votes: bool, names: tuple[str, str]) -> str:
    """Why a task is not in the paired difference, in words."""
    if by_votes:
        return "ranked by blind votes, so not in the overall score nor in this difference"
    ran = [n for n, cell in zip(names, (left, right), strict=True) if cell and cell["value"] is not None]
    if len(ran) == 1:
        return f"only {ran[0]} has a result here"
    return "not in both agents' scores (no counted result for both)"


def _side(
    bench: Benchmark, rnd: Round, key: str, agent: str, cell: TaskNumber | None, standings: Mapping[str, Any]
) -> dict[str, Any]:
    """One agent's side of a task row: the board's number for it (an outcome, a score, or the task's vote
    rating), with the figures the task page gives it (`figures.task_figures`: range, pass@k) and the marks of the
    run it stands on as every list of runs shows them (`figures.mark_badges`: heuristic, violation, at the cap)."""
    if not cell:
        return {"text": "–", "run_url": None, "runs": 0, "range": "", "pill": "", "runs_url": None, "unit": "",
                "pass_at_k": "", "marks": []}  # fmt: skip
    label = cell.get("label")
    text = (
        OUTCOME_LABEL.get(label, label)
        if label
        else fmt_score_beside(cell.get("value"), bench.methodology, bench.pass_mark)
    )
    unit = ""
    if cell.get("by_votes"):
        # The board orders this task by its vote rating; the checks' 100 only admitted the app.
        rating = cell.get("rating")
        admitted = cell.get("admitted")
        text = fixed(rating, 0) if rating is not None else ("no rating yet" if admitted else "not admitted")
        unit = "vote rating" if rating is not None else ""
    figures = task_figures(cell, bench.methodology, medians=False, threshold=bench.pass_mark)
    return {
        "text": text,
        "unit": unit,
        "pill": (OUTCOME_BADGE.get(label) or "neutral") if label else "",
        "run_url": run_url(bench.slug, rnd.key, cell.get("run")),
        "runs": cell.get("runs") or 0,
        "range": figures["range"] if cell.get("runs", 0) > 1 and not cell.get("by_votes") else "",
        "pass_at_k": figures["pass_at_k"],
        "marks": _marks(bench.rules, cell, standings),
        "runs_url": task_url(bench.slug, key, agent),
    }


def _marks(rules: Methodology, cell: TaskNumber, standings: Mapping[str, Any]) -> list:
    """The marks of the run the board's number stands on, from its standing; a board stored before standings
    carried marks gives its heuristic flag alone. A board's number is never a run reported apart (000 §2)."""
    found = standings.get(cell.get("run") or "") or {"marks": [HEURISTIC] if cell.get("heuristic") else []}
    return [m for m in mark_badges(found, None, cap_minutes(rules)) if m[0] != OTHER_LANGUAGE]


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
    """The public counted votes between the two (every task) beside what the vote model predicts of them.

    The direct record's share is a's wins plus half its ties over the votes between them; the model's is
    1 / (1 + 10^((rating b - rating a) / 400)) on the Elo scale of the ratings, the share of votes (a tie half a
    win, as the fit counts it) a is expected to take from b. The two can differ: the ratings are fitted to every
    counted vote of every agent, so each agent's record against the others moves its rating too."""
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
    if rows:
        out["share_a_text"] = fmt_pct((wins_a + ties / 2) / len(rows))
    if ra and rb:
        p = 1.0 / (1.0 + 10 ** ((rb["rating"] - ra["rating"]) / 400))
        out.update(
            {
                "rating_a": ra["rating"],
                "rating_b": rb["rating"],
                "votes_a": ra["votes"],
                "votes_b": rb["votes"],
                "p_a": p,
                "p_a_text": fmt_pct(p),
            }
        )
    return out
