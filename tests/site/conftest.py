"""Fixtures for the public-site tests: bundles imported with `bundle_import`, boards computed by the same
service the worker runs (on_commit callbacks do not run inside a `db` test, so it is called directly)."""

from __future__ import annotations

from typing import Any

import pytest

from bundles.importer import bundle_import
from recompute.boards import snapshot_recompute
from snapshots.models import BoardSnapshot


def compute_all() -> None:
    for snapshot_id in BoardSnapshot.objects.filter(stale=True).values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snapshot_id)


@pytest.fixture
def load():
    """Import bundles and compute their boards: `load(doc, ...)`."""

    def _load(*docs: dict[str, Any], compute: bool = True) -> None:
        for doc in docs:
            bundle_import(doc=doc)
        if compute:
            compute_all()

    return _load


def two_agent_scored(slug: str, task: dict, runs: list[dict]) -> dict:
    """A published `scored` round r1 of benchmark `slug` with agents Ayla and Bram and the one `task`."""
    return {
        "benchmark": {"slug": slug, "name": slug.title(), "methodology": "scored", "params": {"preview_hours": 0}},
        "agents": [{"slug": "ayla", "name": "Ayla"}, {"slug": "bram", "name": "Bram"}],
        "tasks": [{"version": "1.0", "kind": "core", **task}],
        "rounds": [
            {
                "key": "r1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                "entries": [{"agent": "ayla"}, {"agent": "bram"}],
            }
        ],
        "runs": runs,
    }
