"""Agents entered in published rounds (or compared in public votes), and one agent with its entries."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Path, Router
from ninja.errors import HttpError

from leaderboard.models import Agent, Entry, in_published_round
from scoring.types import ENTRY_FIELDS, KEY_PATTERN

from . import schemas as s
from .common import ERRORS

router = Router()


def _public_agents():
    return Agent.objects.public().select_related("organization")


def _agent_fields(a: Agent) -> dict[str, Any]:
    return {
        "slug": a.slug,
        "name": a.name,
        "organization": a.organization.name if a.organization else None,
        "primary_language": a.primary_language,
        "languages": [str(x) for x in a.languages or []],
    }


@router.get("/agents", response={200: list[s.AgentOut], **ERRORS}, tags=["agents"])
def agents(request: HttpRequest):
    """Agents entered in a published round (or compared in public votes). An agent entered only in draft or
    preview rounds is not listed."""
    return [_agent_fields(a) for a in _public_agents().order_by("name", "slug")]


@router.get("/agents/{slug}", response={200: s.AgentDetailOut, **ERRORS}, tags=["agents"])
def agent_detail(request: HttpRequest, slug: str = Path(..., pattern=KEY_PATTERN, max_length=100)):
    """One agent and its entries in published rounds, with the conditions it was tested under."""
    a = _public_agents().filter(slug=slug).first()
    if a is None:
        raise HttpError(404, f"no agent {slug!r}")
    entries = [
        {
            "benchmark": e.round.benchmark.slug,
            "round": e.round.key,
            "published_at": e.round.published_at,
            **{f: getattr(e, f) for f in ENTRY_FIELDS},
        }
        for e in Entry.objects.filter(in_published_round(), agent=a)
        .select_related("round__benchmark")
        .order_by("round__benchmark__position", "-round__published_at")
    ]
    return {**_agent_fields(a), "entries": entries}
