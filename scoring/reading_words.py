"""What changes under another reading, in plain words: the Readings page of a board and the API's readings of a
round both read `readings_summary`, from what the boards store under "readings" (`scoring.reading_boards`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .common import rank_value
from .methodologies import Methodology
from .reading_boards import Figure, Move, ReadingsSection, Variant
from .readings import ALL_OTHER

# The headline figure in words, by the methodology's headline key; a task board's figure is its median.
FIGURE_WORDS = {"overall": "overall", "score": "score", "pass_rate": "pass rate"}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def board_label(methodology: Methodology, board: str, titles: Mapping[str, str]) -> str:
    """A board id in words: its tab's label ("Overall", "This week"), or "Task: <title>" for a task's board."""
    if board.startswith("tasks/"):
        key = board.split("/", 1)[1]
        return f"Task: {titles.get(key) or key}"
    return dict(methodology.tabs).get(board, board)


def _figure(value: float | None, methodology: Methodology) -> str:
    return "none" if value is None else methodology.format_score(value)


def _range(figure: Figure, methodology: Methodology) -> str:
    if figure["low"] is None or figure["high"] is None:
        return "none"
    return f"{methodology.format_score(figure['low'])}–{methodology.format_score(figure['high'])}"


def move_sentence(move: Move, methodology: Methodology, board: str) -> str:
    """One agent's move in words: "KBravo moves from 1st to 3rd; its overall goes from 50.0 to 33.3 (−16.7)."."""
    site, other, name = move["site"], move["other"], move["name"]
    if site is None or other is None:
        return f"{name} is {'not on' if other is None else 'added to'} this board."
    what = "median" if board.startswith("tasks/") else FIGURE_WORDS.get(methodology.headline_key, "score")
    parts = []
    if site["rank"] != other["rank"]:
        parts.append(f"moves from {_place(site['rank'])} to {_place(other['rank'])}")
    else:
        parts.append(f"stays {_place(site['rank'])}")
    a, b = site["score"], other["score"]
    if a is not None and b is not None and rank_value(a) != rank_value(b):
        sign = "+" if b > a else "−"
        change = methodology.format_score(abs(b - a))
        parts.append(f"its {what} goes from {_figure(a, methodology)} to {_figure(b, methodology)} ({sign}{change})")
    elif (a is None) != (b is None):
        parts.append(f"its {what} goes from {_figure(a, methodology)} to {_figure(b, methodology)}")
    else:
        parts.append(f"its {what} stays {_figure(a, methodology)}")
    if _range(site, methodology) != _range(other, methodology):
        parts.append(f"its range goes from {_range(site, methodology)} to {_range(other, methodology)}")
    return f"{name} {'; '.join(parts)}."


def _place(rank: int | None) -> str:
    return "unranked" if rank is None else ordinal(rank)


def board_order(boards: Iterable[str]) -> list[str]:
    """Board ids in the order a reader meets them: the overall board, the other tabs' boards, then the tasks'."""
    return sorted(boards, key=lambda b: (b != "overall", b.startswith("tasks/"), b))


def changes(
    methodology: Methodology, moves: Mapping[str, list[Move]], titles: Mapping[str, str]
) -> list[dict[str, Any]]:
    """A variant's moves, board by board: {"board", "label", "sentences", "moves"}; the overall board first."""
    return [
        {
            "board": board,
            "label": board_label(methodology, board, titles),
            "sentences": [move_sentence(m, methodology, board) for m in moves[board]],
            "moves": moves[board],
        }
        for board in board_order(moves)
    ]


def readings_summary(
    methodology: Methodology, section: ReadingsSection | None, titles: Mapping[str, str], names: Mapping[str, str]
) -> dict[str, Any]:
    """Every open question of the methodology with the seed's words, both readings and what changes under each
    other one (`changes`); "together", what changes under all of them at once; "ranges", the agents whose rank
    differs across the readings, board by board ({"board", "label", "agents": [{"agent", "name", "low",
    "high"}]}, by their best rank, then their worst, then name). `section` is the boards' "readings" (None: not
    computed yet, "computed" false). Questions, boards and agents are in a fixed order, whatever order the stored
    JSON kept."""
    by_key: dict[str, Variant] = {v["key"]: v for v in section["variants"]} if section else {}
    ranges: dict[str, dict[str, list[int]]] = section["ranges"] if section else {}
    questions = []
    for q in methodology.questions:
        questions.append(
            {
                "id": q.id,
                "title": q.title,
                "words": [{"seed": seed, "text": text} for seed, text in q.words],
                "site": {"value": q.site.value, "says": q.site.says},
                "alternatives": [
                    {
                        "value": r.value,
                        "says": r.says,
                        "changes": changes(methodology, _moves(by_key, f"{q.id}={r.value}"), titles),
                    }
                    for r in q.alternatives
                ],
            }
        )
    together = by_key.get(ALL_OTHER)
    return {
        "computed": section is not None,
        "questions": questions,
        "together": None
        if together is None
        else {
            "readings": [
                {"id": q.id, "value": v, "says": q.reading(v).says}
                for q in methodology.questions
                if (v := together["readings"].get(q.id))
            ],
            "changes": changes(methodology, together["moves"], titles),
        },
        "ranges": [
            {
                "board": board,
                "label": board_label(methodology, board, titles),
                "agents": [
                    {"agent": a, "name": names.get(a, a), "low": lo, "high": hi}
                    for a, (lo, hi) in sorted(agents.items(), key=lambda i: (i[1], names.get(i[0], i[0]), i[0]))
                ],
            }
            for board, agents in ((b, ranges[b]) for b in board_order(ranges))
        ],
    }


def _moves(variants: Mapping[str, Variant], key: str) -> Mapping[str, list[Move]]:
    found = variants.get(key)
    return found["moves"] if found else {}
