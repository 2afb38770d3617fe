"""Adding a methodology is one scoring module, its table builder and one registry entry (README, "Adding a
methodology"): a toy methodology registered here gets its boards computed, stored and rendered like the four."""

from __future__ import annotations

import pytest

from bundles.importer import bundle_import
from pages.tables import TABLE_BUILDERS, BoardContext, Column, Table, agent_cell, num_cell, rank_cell
from recompute.boards import snapshot_recompute, snapshots_sweep
from scoring import methodologies
from scoring.common import assign_ranks, base_row, effective_runs, entered_agents, name_key
from scoring.types import RoundInput
from snapshots.models import BoardSnapshot

pytestmark = pytest.mark.django_db


def compute_toy_boards(round_input: RoundInput) -> dict:
    """The toy rule: an agent's score is the number of its completed runs."""
    runs = effective_runs(round_input)
    rows = []
    for agent in entered_agents(round_input):
        row = base_row(agent)
        row["completed"] = sum(1 for r in runs if r.agent == agent.slug and r.status == "completed")
        rows.append(row)
    return {"overall": assign_ranks(rows, lambda r: -r["completed"], name_key)}


def toy_table(ctx: BoardContext, tab: str, task_key: str | None) -> Table:
    cols = [Column("rank", "Rank"), Column("agent", "Agent", num=False), Column("completed", "Completed runs")]
    rows = [
        {
            "agent": r["agent"],
            "cells": [rank_cell(r), agent_cell(r, ctx), num_cell(r["completed"], f"{r['completed']} done")],
        }
        for r in ctx.data.get("overall") or []
    ]
    return Table(caption="Toy board", columns=cols, rows=rows)


@pytest.fixture
def toy(tmp_path, settings):
    # Its methodology page's text, as pages/templates/pages/methodology/toy.html would be.
    page = tmp_path / "pages" / "methodology" / "toy.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>The toy rule: an agent scores one point per completed run.</p>")
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}]
    methodologies.register(
        methodologies.Methodology(
            key="toy",
            name="Toy (completed runs)",
            compute_boards=compute_toy_boards,
            run_score=lambda run, task: None,
            run_counts=lambda run, task: run.status == "completed",
            tabs=(("overall", "Overall"),),
            headline_key="completed",
            headline_label="Completed runs",
            scale=10.0,
            format_score=lambda v: f"{v:.0f}",
        )
    )
    TABLE_BUILDERS["toy"] = toy_table
    yield
    methodologies.REGISTRY.pop("toy")
    TABLE_BUILDERS.pop("toy")


def test_a_registered_toy_methodology_is_imported_computed_and_shown(toy, client):
    # Zinc completed 2 runs, Alder 1 (and one infra error): Zinc ranks 1 with "2 done", Alder 2 with "1 done".
    runs = [
        {"id": f"r{i}", "round": "r1", "agent": a, "task": "t1", "trial": i, "status": s}
        for i, (a, s) in enumerate(
            [("zinc", "completed"), ("zinc", "completed"), ("alder", "completed"), ("alder", "infra_error")], 1
        )
    ]
    bundle_import(
        doc={
            "benchmark": {
                "slug": "toybench",
                "name": "Toy Bench",
                "methodology": "toy",
                "params": {"preview_hours": 0},
            },
            "agents": [{"slug": "zinc", "name": "Zinc"}, {"slug": "alder", "name": "Alder"}],
            "tasks": [{"key": "t1", "title": "One task", "version": "1.0", "kind": "core"}],
            "rounds": [
                {
                    "key": "r1",
                    "status": "published",
                    "published_at": "2026-09-01T00:00:00Z",
                    "entries": [{"agent": "zinc"}, {"agent": "alder"}],
                }
            ],
            "runs": runs,
        }
    )
    snapshots_sweep(older_than_seconds=0)
    for snap_id in BoardSnapshot.objects.values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)
    html = client.get("/b/toybench/").content.decode()
    assert "Toy board" in html
    assert html.index("Zinc") < html.index("Alder") and "2 done" in html and "1 done" in html
    home = client.get("/").content.decode()
    assert "Completed runs" in home  # the home card's headline comes from the registry entry
    page = client.get("/b/toybench/methodology/")
    assert page.status_code == 200 and "one point per completed run" in page.content.decode()


def test_the_system_check_names_a_methodology_the_pages_do_not_follow(toy):
    from pages.checks import methodologies_check

    assert methodologies_check() == []  # the four, and the toy with its builder and page text
    TABLE_BUILDERS["ghost"] = toy_table  # a builder left behind
    builder = TABLE_BUILDERS.pop("toy")  # a registered methodology without one
    try:
        ids = sorted(e.id for e in methodologies_check())
        messages = " ".join(e.msg for e in methodologies_check())
    finally:
        TABLE_BUILDERS.pop("ghost")
        TABLE_BUILDERS["toy"] = builder
    assert ids == ["pages.E001", "pages.E002"] and "'toy'" in messages and "'ghost'" in messages


def test_a_registered_methodology_without_its_page_text_fails_the_check():
    from pages.checks import methodologies_check

    methodologies.register(
        methodologies.Methodology(
            key="textless",
            name="No page text",
            compute_boards=compute_toy_boards,
            run_score=lambda run, task: None,
            run_counts=lambda run, task: True,
            tabs=(("overall", "Overall"),),
            headline_key="completed",
            headline_label="Completed runs",
            scale=10.0,
            format_score=lambda v: f"{v:.0f}",
        )
    )
    TABLE_BUILDERS["textless"] = toy_table
    try:
        assert [e.id for e in methodologies_check()] == ["pages.E003"]
    finally:
        methodologies.REGISTRY.pop("textless")
        TABLE_BUILDERS.pop("textless")
