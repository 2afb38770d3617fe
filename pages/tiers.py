"""Tiers on a board: who stands behind each row's results (the benchmark team, or a submission that is
self-reported, verified by an editor, or flagged), the board's filter by tier (`?tier=`) and its Tier column.

A row's tier is the one stored with the board (`tier` in the row, written from the entry by the recompute), or
the entry's while a board stored before tiers were is shown. The default view is the team's results, the
verified and the self-reported ones: flagged rows are one click away (`?tier=flagged`, `?tier=all`). The rows
shown are ranked again among themselves, in the board's own order, so a hidden row leaves no gap in the ranks.
A board whose rows are all the team's shows neither the column nor the filter: nothing about it changes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from scoring.tiers import (
    ALL,
    DEFAULT_VIEW,
    FILTERS,
    FLAGGED,
    SELF_REPORTED,
    TEAM,
    TIERS,
    VERIFIED,
    rows_in_view,
    tiers_shown,
)

from .table_cells import Cell, Column, Table

VIEW_LABELS = {
    DEFAULT_VIEW: "Team, verified and self-reported",
    TEAM: "Benchmark team",
    VERIFIED: "Verified",
    SELF_REPORTED: "Self-reported",
    FLAGGED: "Flagged",
    ALL: "All",
}
TIER_LABELS = {TEAM: "team", SELF_REPORTED: "self-reported", VERIFIED: "verified", FLAGGED: "flagged"}
TIER_PILLS = {TEAM: "neutral", SELF_REPORTED: "neutral", VERIFIED: "good", FLAGGED: "bad"}
TIER_TITLES = {
    TEAM: "Run by the benchmark team",
    SELF_REPORTED: "Submitted by its organization: every check passed and every claim agrees with its runs",
    VERIFIED: "Submitted, and an editor reproduced or audited it (see the submission)",
    FLAGGED: "Submitted, and a check failed, a claim differs from its runs, or an editor flagged it",
}
RULE = (
    "Each row says who stands behind it: the benchmark team ran it (team), or an organization submitted it and "
    "every check passed and every claim agrees with its own runs (self-reported), an editor reproduced or "
    "audited it (verified), or a check failed, a claim differs from the runs, or an editor flagged it with a "
    "reason (flagged). A submission whose runs ran another model or user simulator than it declares stays "
    "flagged until an editor verifies it with a note acknowledging that; its row shows what ran, the declared "
    "beside it. The board shows team, verified and self-reported results by default; flagged ones are "
    "one click away. Ranks count only the rows shown."
)


def row_tier(row: Mapping[str, Any], entries: Mapping[str, Any]) -> str:
    """The row's tier as stored with the board, else its entry's (a board stored before tiers), else team."""
    tier = row.get("tier")
    if tier in TIER_LABELS:
        return str(tier)
    entry = entries.get(str(row.get("agent")))
    tier = getattr(entry, "tier", TEAM) if entry is not None else TEAM
    return tier if tier in TIER_LABELS else TEAM


def board_has_tiers(data: Mapping[str, Any], entries: Mapping[str, Any]) -> bool:
    """Whether any row of the board (or entry of the round) is not the team's: only then the column and filter."""
    rows = [r for rows in _row_lists(data) for r in rows]
    if any(row_tier(r, entries) != TEAM for r in rows):
        return True
    return any(getattr(e, "tier", TEAM) != TEAM for e in entries.values())


def view_of(params: Mapping[str, str]) -> str:
    """The `?tier=` asked for, or the default view for anything else."""
    asked = params.get("tier") or DEFAULT_VIEW
    return asked if asked in FILTERS else DEFAULT_VIEW


def filter_rows(data: dict[str, Any], entries: Mapping[str, Any], view: str) -> dict[str, Any]:
    """The board's data with only the rows of the tiers `view` shows (`scoring.tiers.rows_in_view`), ranked
    again among themselves; a row stored without its tier takes its entry's."""
    out = dict(data)
    for key, value in data.items():
        if _is_rows(value):
            out[key] = _kept(value, entries, view)
        elif isinstance(value, dict) and value and all(_is_rows(v) for v in value.values()):
            out[key] = {k: _kept(v, entries, view) for k, v in value.items()}
    return out


def _is_rows(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) and "agent" in r for r in value)


def _row_lists(data: Mapping[str, Any]) -> list[list[dict[str, Any]]]:
    out = []
    for value in data.values():
        if _is_rows(value):
            out.append(value)
        elif isinstance(value, dict) and value and all(_is_rows(v) for v in value.values()):
            out.extend(value.values())
    return out


def _kept(rows: list[dict[str, Any]], entries: Mapping[str, Any], view: str) -> list[dict[str, Any]]:
    with_tier = [r if r.get("tier") in TIERS else {**r, "tier": row_tier(r, entries)} for r in rows]
    if all(r["tier"] in tiers_shown(view) for r in with_tier):
        return rows
    return rows_in_view(with_tier, view)


def tiers_of(data: Mapping[str, Any], entries: Mapping[str, Any]) -> dict[str, str]:
    """Every agent's tier on the board, by agent."""
    return {str(r["agent"]): row_tier(r, entries) for rows in _row_lists(data) for r in rows}


def add_tier_column(table: Table, tiers: Mapping[str, str], links: Mapping[str, str]) -> None:
    """A Tier column just after the agent, each cell linking to the agent's submission where there is one."""
    keys = [c.key for c in table.columns]
    at = keys.index("agent") + 1 if "agent" in keys else len(keys)
    title = "Who stands behind the results (How we score, Tiers)"
    table.columns.insert(at, Column("tier", "Tier", num=False, title=title, card=True))
    for row in table.rows:
        tier = tiers.get(row["agent"], TEAM)
        cell = Cell(
            text=TIER_LABELS[tier],
            sort=TIERS.index(tier),
            raw=tier,
            pill=TIER_PILLS[tier],
            href=links.get(row["agent"]),
            title=TIER_TITLES[tier],
        )
        row["cells"].insert(at, cell)
    table.note = (table.note + " " if table.note else "") + RULE


def add_submitters(table: Table, organizations: Mapping[str, str]) -> None:
    """Under a submitted agent's name, the organization that submitted it ("by NVIDIA"): a reader tells two
    organizations' agents apart by more than their names."""
    keys = [c.key for c in table.columns]
    if "agent" not in keys:
        return
    at = keys.index("agent")
    for row in table.rows:
        if org := organizations.get(row["agent"]):
            cell = row["cells"][at]
            cell.sub = " · ".join(x for x in (f"by {org}", cell.sub) if x)


VIEW_HOLDS = {
    DEFAULT_VIEW: "team, verified or self-reported",
    TEAM: "benchmark team",
    VERIFIED: "verified",
    SELF_REPORTED: "self-reported",
    FLAGGED: "flagged",
}


def say_what_is_hidden(table: Table, tiers: Mapping[str, str], view: str, links: list[dict[str, Any]]) -> None:
    """A view that hides every row of a board says so, and which tiers the round's agents are in, with the views
    that show them (instead of "No agents on this board yet" under a round of several agents)."""
    hidden = Counter(t for t in tiers.values() if t not in tiers_shown(view))
    if table.rows or not hidden:
        return
    total = sum(hidden.values())
    agents = f"{total} agent{'s' if total != 1 else ''} on this round {'is' if total == 1 else 'are'}"
    if len(hidden) == 1:
        counts = f"{agents} {TIER_LABELS[next(iter(hidden))]}"
    else:
        counts = f"{agents} in other tiers: " + ", ".join(f"{n} {TIER_LABELS[t]}" for t, n in hidden.items())
    why = " (a check failed, a claim differs from its runs, or an editor flagged it)" if FLAGGED in hidden else ""
    table.empty = f"No {VIEW_HOLDS.get(view, 'such')} results on this board yet: {counts}{why}. Show them:"
    table.empty_links = [
        {"label": link["label"], "query": link["query"]} for link in links if link["key"] in (*hidden, ALL)
    ]


def add_as_ran(table: Table, ran: Mapping[str, list[dict[str, str]]]) -> None:
    """Under a submitted agent whose runs ran another model or user simulator than it declared
    (`scoring.submission_checks.ran_instead`), what ran, the declared beside it, marked "not as declared"."""
    keys = [c.key for c in table.columns]
    if "agent" not in keys:
        return
    at = keys.index("agent")
    for row in table.rows:
        if rows := ran.get(row["agent"]):
            cell = row["cells"][at]
            ran_ = ", ".join(f"{r['what']} {r['ran'] or 'not given'}" for r in rows)
            declared = ", ".join(f"{r['what']} {r['declared'] or 'not declared'}" for r in rows)
            cell.sub = f"ran {ran_} · declared {declared}"
            cell.badges.append(("not as declared", "warn"))


def kept_params(view: str) -> dict[str, str]:
    """The query a board's other links keep: the tier view, unless it is the default (or there is none)."""
    return {"tier": view} if view and view != DEFAULT_VIEW else {}


def tier_links(view: str, base: Mapping[str, str]) -> list[dict[str, Any]]:
    """The filter's links, the current view marked."""
    return [
        {"key": key, "label": label, "query": "?" + urlencode({**base, "tier": key}), "current": key == view}
        for key, label in VIEW_LABELS.items()
    ]
