"""Recount: boards recomputed from a downloaded bundle alone, with no database (seed 003, "Data")."""

from __future__ import annotations

from typing import Any

from .boards import boards_as_shown, compute_boards
from .bradley_terry import ratings_from_votes
from .bundle import BundleError, check_bundle, round_inputs, vote_inputs


def recount(doc: dict, round_key: str | None = None) -> dict[str, Any]:
    """Validate `doc` and compute the boards of each round (or only `round_key`).

    Returns {"benchmark": slug, "methodology": m, "rounds": [{"round": key, "boards": {...}}]}, plus
    "ratings": {"all": [ROW], "tasks": {TASK: [ROW]}} from the counted votes when the bundle has votes
    (only votes with "counts": true are fitted); boards that rank by votes (checks invent and startup tasks)
    are ranked with those ratings, as the site shows them. Raises `BundleError` for an invalid bundle or an unknown
    round.
    """
    check_bundle(doc)
    rounds = round_inputs(doc, round_key)
    if round_key is not None and not rounds:
        raise BundleError([f"round: unknown round {round_key!r}"])
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
