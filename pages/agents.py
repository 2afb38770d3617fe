"""The page of one agent across benchmarks: its entries in published rounds, each with its score, rank and marks
as the round's main board has them (`Http404` for an agent with none)."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import reverse

from leaderboard.models import Agent, Benchmark, Entry, RoundStatus
from snapshots.models import BoardSnapshot, SnapshotKind
from submissions.models import Submission

from .charts import line_chart
from .figures import row_badges
from .formatting import fmt_score
from .intervals import compare_url
from .links import round_agent_url
from .tiers import TEAM, TIER_LABELS, TIER_PILLS, row_tier

PUBLISHED = RoundStatus.PUBLISHED


def agent_page(*, slug: str) -> dict[str, Any]:
    """An agent's entries across published rounds, with its score and rank on each round's main board."""
    agent = Agent.objects.filter(slug=slug).select_related("organization").first()
    if agent is None:
        raise Http404("No such agent")
    entries = list(
        Entry.objects.filter(agent=agent, round__status=PUBLISHED)
        .select_related("round__benchmark")
        .order_by("round__benchmark__position", "round__benchmark__name", "round__starts_on", "round__published_at")
    )
    snaps = {
        s.round_id: s
        for s in BoardSnapshot.objects.filter(round_id__in=[e.round_id for e in entries], kind=SnapshotKind.BOARDS)
    }
    if not entries:
        raise Http404("No published results for this agent")
    submitted = {
        s.round_id: reverse("submission", args=[s.benchmark.slug, s.pk])
        for s in Submission.objects.live().filter(agent=agent).select_related("benchmark")
    }
    benches: dict[int, dict[str, Any]] = {}
    for e in entries:
        b = e.round.benchmark
        group = benches.setdefault(
            b.id, {"bench": b, "rows": [], "headline": b.rules.headline_label, "beside": _beside_label(b)}
        )
        snap = snaps.get(e.round_id)
        data = (snap.data or {}) if snap else {}
        group["rows"].append(_agent_row(e, data, slug, beside=bool(group["beside"]), submitted=submitted))
    for group in benches.values():
        b = group["bench"]
        scale = b.rules.scale
        group["chart"] = line_chart(
            [(r["round"].name or r["round"].key, r["value"], r["score"], r["href"]) for r in group["rows"]], scale
        )
        group["rows"].reverse()
        group["tiers"] = any(r["tier"] != TEAM for r in group["rows"])
    return {"agent": agent, "benches": list(benches.values())}


def _beside_label(bench: Benchmark) -> str | None:
    """The board whose score an agent's violations go beside (000 §4: "Safety score ... Any violation is shown
    next to the score"), by its tab's label; None where the methodology has no such board."""
    board = bench.rules.violations_board
    return dict(bench.rules.tabs).get(board, board) if board else None


def _beside_place(bench: Benchmark, data: dict, agent_slug: str) -> dict[str, Any]:
    """The agent's score on that board with its marks (`figures.row_badges`: its violations), as the board has
    it, the same as on its round page; "–" where the board has no row for it."""
    board = bench.rules.violations_board or ""
    rows = data.get(board)
    row = next((r for r in rows if r["agent"] == agent_slug), None) if isinstance(rows, list) else None
    return {
        "score": fmt_score(row.get(bench.rules.headline_key), bench.methodology) if row else "–",
        "badges": row_badges(row, bench.rules, board) if row else [],
    }


def _agent_row(e: Entry, data: dict, slug: str, *, beside: bool, submitted: dict[int, str]) -> dict[str, Any]:
    """One round of the agent's on its benchmark's main board: its headline figure, rank and marks, the score its
    violations go beside, its tier, and the head-to-head against the agent ranked just above it."""
    b = e.round.benchmark
    rows = data.get("overall") or []
    row = next((r for r in rows if r["agent"] == slug), None)
    value = row.get(b.rules.headline_key) if row else None
    # The head-to-head against the agent ranked just above (the runner-up, for the leader).
    order = [r["agent"] for r in rows]
    at = order.index(slug) if slug in order else -1
    other = order[at - 1] if at > 0 else (order[1] if at == 0 and len(order) > 1 else None)
    return {
        "entry": e,
        "round": e.round,
        "value": value,
        "rank": row.get("rank") if row else None,
        "of": len(rows),
        "score": fmt_score(value, b.methodology),
        "badges": row_badges(row or {}, b.rules, b.rules.tabs[0][0]),
        "beside": _beside_place(b, data, slug) if beside else None,
        "href": round_agent_url(b.slug, e.round.key, slug),
        "compare": compare_url(b.slug, e.round.key, slug, other),
        "tier": (tier := row_tier(row or {"agent": slug}, {slug: e})),
        "tier_label": TIER_LABELS[tier],
        "tier_pill": TIER_PILLS[tier],
        "submission": submitted.get(e.round_id),
    }
