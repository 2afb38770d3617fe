"""Recount: boards recomputed from a downloaded bundle alone, with no database (seed 003, "Data")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .boards import boards_as_shown, compute_boards
from .bradley_terry import ratings_from_cells, ratings_from_votes
from .bundle import BundleError, check_bundle, round_inputs, vote_inputs
from .reading_boards import with_readings
from .readings import SITE, Readings, variants
from .round_rules import document_problems
from .types import RoundInput
from .vote_lines import vote_line_tallies, vote_tallies
from .vote_margins import with_vote_margins

__all__ = ["recount", "vote_tallies"]


def recount(
    doc: dict,
    round_key: str | None = None,
    votes_file: Iterable[dict] | Callable[[], Iterable[bytes]] | None = None,
    *,
    readings: Readings = SITE,
    all_readings: bool = False,
) -> dict[str, Any]:
    """Validate `doc` and compute the boards of each round (or only `round_key`).

    Returns {"benchmark": slug, "methodology": m, "rounds": [{"round": key, "boards": {...}}]}, plus
    "ratings": {"all": [ROW], "tasks": {TASK: [ROW]}} from the counted votes when the bundle has votes
    (only votes with "counts": true are fitted); boards that rank by votes (checks invent and startup tasks)
    are ranked with those ratings, as the site shows them; the ratings also carry "margins", how many votes hold
    each vote-ranked board's top place (`scoring.vote_margins`). Raises `BundleError` for an invalid bundle or
    an unknown round.

    A bundle whose votes are too many to inline names a `votes_file` instead: pass its lines as `votes_file`,
    either parsed (one dict per vote) or as a function giving the file's blocks of whole lines (what
    `manage.py recount --votes` does: `scoring.vote_lines`); they are tallied as they are read and fitted from
    the tallies, exactly as the site fits its vote cells. Without them such a bundle is refused rather than
    recounted without its votes.

    Each round's boards are the site's, with "readings" (`scoring.reading_boards`: what moves under every other
    reading of the methodology's open questions), as the site stores them. Under `readings` other than the
    site's, the boards are those readings' instead (every figure, "readings_taken" naming them; no standings),
    and the output says which under "readings". With `all_readings`, each round also carries "under_readings":
    its boards under every variant the site compares (`scoring.readings.variants`), by variant key.
    """
    check_bundle(doc, readings=readings)
    # A download whose rounds break a rule about what a board counts (a run outside its week, a re-run no
    # accepted dispute allows, a verdict before its effects were due, two versions of one weekly task) is refused.
    broken = document_problems(doc)
    if broken:
        raise BundleError(broken)
    rounds = round_inputs(doc, round_key)
    if round_key is not None and not rounds:
        raise BundleError([f"round: unknown round {round_key!r}"])
    if votes_file is not None:
        tallies = vote_line_tallies(doc, votes_file) if callable(votes_file) else vote_tallies(doc, votes_file)
        ratings = with_vote_margins(tallies, ratings_from_cells(tallies)) if tallies else None
    elif doc.get("votes_file"):
        raise BundleError(["votes_file: the votes are in a separate file; recount the bundle with it (--votes FILE)"])
    else:
        votes = [v for v in vote_inputs(doc) if v.counts]
        cells = [(*key, n) for key, n in sorted(Counter((v.task, v.a, v.b, v.winner) for v in votes).items())]
        ratings = with_vote_margins(cells, ratings_from_votes(votes)) if votes else None
    methodology = doc["benchmark"]["methodology"]
    out: dict[str, Any] = {
        "benchmark": doc["benchmark"]["slug"],
        "methodology": methodology,
        "rounds": [_round(r, ratings, readings, all_readings) for r in rounds],
    }
    if not readings.is_site:
        out["readings"] = dict(readings.chosen)
    if ratings is not None:
        out["ratings"] = ratings
    return out


def _round(r: RoundInput, ratings: dict | None, readings: Readings, all_readings: bool) -> dict[str, Any]:
    """One round's boards as shown (`recount`), under `readings`, with every variant's when `all_readings`."""
    methodology = r.methodology
    boards = compute_boards(r, readings=readings)
    out: dict[str, Any] = {
        "round": r.key,
        "boards": boards_as_shown(methodology, with_readings(r, boards) if readings.is_site else boards, ratings),
    }
    if all_readings:
        out["under_readings"] = {
            key: boards_as_shown(methodology, compute_boards(r, readings=other), ratings)
            for key, other in variants(methodology)
        }
    return out
