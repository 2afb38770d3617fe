"""Recount: boards recomputed from a downloaded bundle alone, with no database (seed 003, "Data")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .boards import boards_as_shown, compute_boards
from .bradley_terry import ratings_from_cells, ratings_from_votes
from .bundle import BundleError, check_bundle, round_inputs, vote_inputs
from .types import WINNERS

# A votes file with more bad lines than this stops listing them (the count of the rest is reported).
MAX_LISTED_PROBLEMS = 20


def vote_tallies(doc: dict, votes: Iterable[dict]) -> list[tuple[str, str, str, str, int]]:
    """The counted votes of a votes file (one dict per line, the fields of `votes[]`) as
    ``(task, a, b, winner, n)`` tallies, checked against the bundle's tasks and agents. Memory grows with
    the distinct tallies, not with the votes. Raises `BundleError` naming each bad line (1-based)."""
    tasks = {t.get("key") for t in doc.get("tasks") or []}
    agents = {a.get("slug") for a in doc.get("agents") or []}
    tally: Counter[tuple] = Counter()
    problems: list[str] = []
    bad = 0
    # A vote is checked by its (task, a, b, winner, counts): the few distinct ones once each, not millions of
    # lines one by one (bench/README.md, "Votes at scale": the recount against parsing the file alone).
    seen: Counter[tuple] = Counter()
    checked: dict[tuple, str] = {}
    for line, v in enumerate(votes, start=1):
        try:
            get = v.get
            key = (get("task"), get("a"), get("b"), get("winner"), get("counts", True) is not False)
            problem = checked[key]
        except KeyError:
            problem = checked[key] = _vote_problem(v, tasks, agents)
        except (AttributeError, TypeError):  # not an object; or a list where a string belongs
            problem = (
                _vote_problem(v, tasks, agents) if type(v) is not dict else "task, a, b and winner must be strings"
            )
        if problem:
            bad += 1
            if len(problems) < MAX_LISTED_PROBLEMS:
                problems.append(f"votes file line {line}: {problem}")
            continue
        seen[key] += 1
    for (task, a, b, winner, counts), n in seen.items():
        if counts:
            tally[(task, a, b, winner)] += n
    if bad > len(problems):
        problems.append(f"votes file: {bad - len(problems)} more bad line(s)")
    if problems:
        raise BundleError(problems)
    return [(*key, n) for key, n in sorted(tally.items())]


def _vote_problem(v: Any, tasks: set, agents: set) -> str:
    if not isinstance(v, dict):
        return "not a JSON object"
    if v.get("task") not in tasks:
        return f"task {v.get('task')!r} is not in the bundle"
    for side in ("a", "b"):
        if v.get(side) not in agents:
            return f"{side}: agent {v.get(side)!r} is not in the bundle"
    if v["a"] == v["b"]:
        return "an agent cannot be matched against itself"
    if v.get("winner") not in WINNERS:
        return f"winner {v.get('winner')!r} is not one of {', '.join(WINNERS)}"
    return ""


def recount(doc: dict, round_key: str | None = None, votes_file: Iterable[dict] | None = None) -> dict[str, Any]:
    """Validate `doc` and compute the boards of each round (or only `round_key`).

    Returns {"benchmark": slug, "methodology": m, "rounds": [{"round": key, "boards": {...}}]}, plus
    "ratings": {"all": [ROW], "tasks": {TASK: [ROW]}} from the counted votes when the bundle has votes
    (only votes with "counts": true are fitted); boards that rank by votes (checks invent and startup tasks)
    are ranked with those ratings, as the site shows them. Raises `BundleError` for an invalid bundle or
    an unknown round.

    A bundle whose votes are too many to inline names a `votes_file` instead: pass its lines (parsed, one dict
    per vote) as `votes_file`; they are tallied as they are read and fitted from the tallies, exactly as the
    site fits its vote cells. Without them such a bundle is refused rather than recounted without its votes.
    """
    check_bundle(doc)
    rounds = round_inputs(doc, round_key)
    if round_key is not None and not rounds:
        raise BundleError([f"round: unknown round {round_key!r}"])
    if votes_file is not None:
        tallies = vote_tallies(doc, votes_file)
        ratings = ratings_from_cells(tallies) if tallies else None
    elif doc.get("votes_file"):
        raise BundleError(["votes_file: the votes are in a separate file; recount the bundle with it (--votes FILE)"])
    else:
        votes = [v for v in vote_inputs(doc) if v.counts]
        ratings = ratings_from_votes(votes) if votes else None
    methodology = doc["benchmark"]["methodology"]
    out: dict[str, Any] = {
        "benchmark": doc["benchmark"]["slug"],
        "methodology": methodology,
        "rounds": [
            {"round": r.key, "boards": boards_as_shown(methodology, compute_boards(r), ratings)} for r in rounds
        ],
    }
    if ratings is not None:
        out["ratings"] = ratings
    return out
