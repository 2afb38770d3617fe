"""Every board of a round under each reading of its methodology's open questions (`scoring.readings`), computed
with the board and stored beside it: the site and `recount` both add it with `with_readings`, so a recount of the
download gives the same.

For each variant (every other reading alone, then all of them together: `readings.variants`) the methodology's
boards are computed again with that reading as their parameter, from the round's inputs as its public download
holds them (`scoring.review.as_public`: a run still in review carries no verdict, so no reading shows a tester's
label the review keeps blind, and the download recounts to the same), and compared with the site's board by board:
what is stored is what moves (an agent's rank, headline figure or range), and, for each agent whose rank differs
across the readings, the range of its ranks ("1 · 1–3 across readings"). Boards ranked by votes are left out:
their order is the vote ratings', which no reading changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from .common import assign_ranks, rank_value
from .methodologies import Methodology, get
from .readings import variants
from .review import as_public
from .types import RoundInput


class Figure(TypedDict):
    """An agent on a board, as the readings compare it: its rank, headline figure and range (low, high)."""

    rank: int | None
    score: float | None
    low: float | None
    high: float | None


class Move(TypedDict):
    """An agent whose figures on a board differ under a variant: as the site has them and under the variant."""

    agent: str
    name: str
    site: Figure | None
    other: Figure | None


class Variant(TypedDict):
    key: str  # "id=value", or "all"
    readings: dict[str, str]  # question id -> the value taken
    moves: dict[str, list[Move]]  # board id -> the agents that move there


class ReadingsSection(TypedDict):
    """What `with_readings` stores under the boards' "readings"."""

    questions: list[str]
    variants: list[Variant]
    # board id -> agent -> [lowest rank, highest rank] across the site's board and every variant, where they differ.
    ranges: dict[str, dict[str, list[int]]]


def with_readings(round_input: RoundInput, boards: Mapping[str, Any]) -> dict[str, Any]:
    """`boards` (the site's, `scoring.boards.compute_boards`) with "readings" (`ReadingsSection`) added last."""
    return {**boards, "readings": under_readings(round_input, boards)}


def under_readings(round_input: RoundInput, boards: Mapping[str, Any]) -> ReadingsSection:
    """Each variant's boards compared with the site's `boards` (`ReadingsSection`). Only the methodology's own
    boards are computed again (no intervals, statistics or standings): those are the site's."""
    methodology = get(round_input.methodology)
    site = board_figures(methodology, boards)
    names = {str(r["agent"]): str(r["name"]) for rows in _boards(methodology, boards).values() for r in rows}
    public = as_public(round_input)  # a run in review: no verdict of it shown under any reading
    out: list[Variant] = []
    for key, readings in variants(methodology.key):
        other = board_figures(methodology, methodology.boards(public, readings=readings))
        out.append({"key": key, "readings": dict(readings.chosen), "moves": moves(site, other, names)})
    ranges = {
        board: found for board, figures in site.items() if (found := rank_ranges(_site_ranks(figures), board, out))
    }
    return {"questions": [q.id for q in methodology.questions], "variants": out, "ranges": ranges}


def _boards(methodology: Methodology, boards: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The ranked boards among `boards`, by board id: a list of rows ("overall", "safety", ...), or each list of a
    dict of them ("tasks/<key>"); boards ranked by votes are left out."""
    out: dict[str, list[dict[str, Any]]] = {}
    for name, value in boards.items():
        if _ranked(value):
            out[name] = value
        elif isinstance(value, dict) and value and all(_ranked(v) for v in value.values()):
            for key, rows in value.items():
                if not methodology.ranked_by_votes(dict(boards), key):
                    out[f"{name}/{key}"] = rows
    return out


def _ranked(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) and "rank" in r for r in value)


def board_figures(methodology: Methodology, boards: Mapping[str, Any]) -> dict[str, dict[str, Figure]]:
    """Every ranked board's figures (`Figure`), by board id and agent, in board order. The headline figure is the
    methodology's headline (`headline_key`), or a task board's median."""
    key = methodology.headline_key
    out: dict[str, dict[str, Figure]] = {}
    for board, rows in _boards(methodology, boards).items():
        out[board] = {
            str(r["agent"]): {
                "rank": r.get("rank"),
                "score": r.get(key) if key in r else r.get("median"),
                "low": r.get("min"),
                "high": r.get("max"),
            }
            for r in rows
        }
    return out


def _same(a: float | int | None, b: float | int | None) -> bool:
    if a is None or b is None:
        return a is b
    return rank_value(a) == rank_value(b)


def differs(a: Figure | None, b: Figure | None) -> bool:
    if a is None or b is None:
        return a is not b
    return any(not _same(a[k], b[k]) for k in ("rank", "score", "low", "high"))  # type: ignore[literal-required]


def moves(
    site: dict[str, dict[str, Figure]], other: dict[str, dict[str, Figure]], names: Mapping[str, str]
) -> dict[str, list[Move]]:
    """The agents whose figures differ between the site's boards and another reading's, board by board (a board
    where nothing moves is left out)."""
    out: dict[str, list[Move]] = {}
    for board in [*site, *(b for b in other if b not in site)]:
        mine, theirs = site.get(board, {}), other.get(board, {})
        found: list[Move] = [
            {"agent": agent, "name": names.get(agent, agent), "site": mine.get(agent), "other": theirs.get(agent)}
            for agent in [*mine, *(a for a in theirs if a not in mine)]
            if differs(mine.get(agent), theirs.get(agent))
        ]
        if found:
            out[board] = found
    return out


def _site_ranks(figures: Mapping[str, Figure]) -> list[tuple[str, int | None]]:
    return [(agent, f["rank"]) for agent, f in figures.items()]


def rank_ranges(
    site: list[tuple[str, int | None]],
    board: str,
    variants_: Iterable[Variant],
    shown: set[str] | None = None,
) -> dict[str, list[int]]:
    """Each agent's lowest and highest rank on `board` across the site's ranks (`site`: (agent, rank) in board
    order, every row of the board) and every variant's, where they differ. With `shown`, the ranks are those
    among the shown agents only, each variant's board ranked again among them in its own order, as a board's tier
    view ranks the rows it shows (`scoring.tiers.rows_in_view`)."""
    seen: dict[str, list[int]] = {}
    order = {agent: i for i, (agent, _) in enumerate(site)}
    boards = [dict(site)]
    for variant in variants_:
        ranks = dict(site)
        for move in variant["moves"].get(board) or []:
            if move["agent"] in ranks:
                ranks[move["agent"]] = move["other"]["rank"] if move["other"] else None
        boards.append(ranks)
    for ranks in boards:
        for agent, rank in _in_view(ranks, order, shown).items():
            if rank is not None:
                seen.setdefault(agent, []).append(rank)
    return {agent: [min(r), max(r)] for agent, r in seen.items() if min(r) != max(r)}


def _in_view(ranks: dict[str, int | None], order: dict[str, int], shown: set[str] | None) -> dict[str, int | None]:
    if shown is None:
        return ranks
    kept: list[dict[str, Any]] = [{"agent": a, "rank": r} for a, r in ranks.items() if a in shown and r is not None]
    assign_ranks(kept, lambda row: row["rank"], lambda row: order[row["agent"]])
    return {str(row["agent"]): int(row["rank"]) for row in kept}
