"""A board's Readings page: each open question of the methodology, the seed's words, both readings and what changes
under the other, in plain words, read from what the round's snapshot stores under "readings"
(`scoring.reading_boards`) through `scoring.reading_words`: nothing is computed here. The rank ranges beside the
board's ranks are `pages.rank_ranges`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import reverse

from leaderboard.models import Benchmark, Entry, Round
from scoring.reading_boards import ReadingsSection
from scoring.reading_words import readings_summary

from .selectors import benchmark_get, round_for, rounds_published, snapshot_state, snapshots_for


def readings_of(bench: Benchmark, rnd: Round, data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The round's readings as the page and the API give them (`scoring.reading_words.readings_summary`)."""
    names = {e.agent.slug: e.agent.name for e in Entry.objects.filter(round=rnd).select_related("agent")}
    titles = {t.key: t.title or t.key for t in bench.tasks.all()}
    section: ReadingsSection | None = (data or {}).get("readings")
    return readings_summary(bench.rules, section, titles, names)


def readings_page(*, bench_slug: str, round_key: str, viewer=None) -> dict[str, Any]:
    """The Readings page of a round's boards; an unpublished round's only for staff (`round_for`)."""
    bench = benchmark_get(bench_slug)
    rounds = rounds_published(bench)
    rnd = round_for(bench, rounds, round_key, viewer)
    snap = snapshots_for(bench, [rnd.id])[0].get(rnd.id)
    summary = readings_of(bench, rnd, snap.data if snap else None)
    return {
        "bench": bench,
        "round": rnd,
        "state": snapshot_state(snap),
        "not_public": not rnd.is_published,
        "summary": summary,
    }


def readings_url(bench: Benchmark, rnd: Round) -> str:
    return reverse("readings", args=[bench.slug, rnd.key])
