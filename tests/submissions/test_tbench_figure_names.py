"""A Terminal-Bench submission's at-least-one-of-k figures are named any-of-k, as on the boards (pass@k is seed
002's share of an agent's trials of a task that pass): those stored before under the name pass@k are renamed by
the migration submissions/0005_tbench_any_of_k."""

from __future__ import annotations

from importlib import import_module


def test_stored_figures_named_pass_at_k_are_renamed_any_of_k():
    # Stored before the rename: pass@1 (the same figure as pass^1) goes, pass@2 becomes any-of-2, after pass^k.
    migration = import_module("submissions.migrations.0005_tbench_any_of_k")
    stored = [
        {"name": "accuracy", "claimed": 0.5, "recomputed": 0.5, "agrees": True},
        {"name": "pass@1", "claimed": None, "recomputed": 0.5, "agrees": None},
        {"name": "pass@2", "claimed": None, "recomputed": 0.7, "agrees": None},
        {"name": "pass^1", "claimed": None, "recomputed": 0.5, "agrees": None},
        {"name": "pass^2", "claimed": None, "recomputed": 0.3, "agrees": None},
    ]
    renamed = migration._renamed(stored)
    assert [(f["name"], f["recomputed"]) for f in renamed] == [
        ("accuracy", 0.5),
        ("pass^1", 0.5),
        ("pass^2", 0.3),
        ("any-of-2", 0.7),
    ]
    assert sorted(f["name"] for f in migration._back(renamed)) == sorted(f["name"] for f in stored)
