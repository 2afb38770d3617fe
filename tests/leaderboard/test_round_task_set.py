"""A round's boards are over the round's own tasks: a task added for a later round never changes them."""

import pytest

from bundles.export import bundle_export
from bundles.importer import bundle_import
from leaderboard.models import Benchmark, Round
from recompute.boards import snapshot_recompute, snapshots_sweep
from scoring.bundle_checks import validate_bundle
from scoring.recount import recount
from snapshots.models import BoardSnapshot

pytestmark = pytest.mark.django_db


def _run(rid, rnd, agent, task, api):
    return {
        "id": rid,
        "round": rnd,
        "agent": agent,
        "task": task,
        "status": "completed",
        "app_started": True,
        "api_checks_passed": api,
        "api_checks_total": 10,
        "browser_steps_passed": 4,
        "browser_steps_total": 4,
    }


def _bundle(tasks, rounds, runs):
    return {
        "benchmark": {"slug": "ab", "name": "App Bench", "methodology": "checks", "params": {"preview_hours": 0}},
        "agents": [{"slug": "forge", "name": "Forge"}, {"slug": "kiln", "name": "Kiln"}],
        "tasks": [
            {"key": k, "title": k, "version": "1.0", "kind": "to-spec", "time_limit_min": 30, "token_budget": 10**6}
            for k in tasks
        ],
        "rounds": rounds,
        "runs": runs,
    }


R1 = {
    "key": "r1",
    "status": "published",
    "published_at": "2026-09-01T00:00:00Z",
    "entries": [{"agent": "forge"}, {"agent": "kiln"}],
}
R2 = {
    "key": "r2",
    "status": "published",
    "published_at": "2026-10-01T00:00:00Z",
    "entries": [{"agent": "forge"}, {"agent": "kiln"}],
}


def _overall(round_key):
    snapshots_sweep(older_than_seconds=0)
    for snap_id in BoardSnapshot.objects.values_list("id", flat=True):
        snapshot_recompute(snapshot_id=snap_id)
    snap = BoardSnapshot.objects.get(round__key=round_key, kind="boards")
    return {r["agent"]: r["overall"] for r in snap.data["overall"]}


def test_a_task_added_for_a_later_round_leaves_an_earlier_rounds_overall_as_published():
    # r1: shop only. Forge 8/10 API + 4/4 browser = 40 + 50 = 90; Kiln 4/10 + 4/4 = 20 + 50 = 70.
    bundle_import(
        doc=_bundle(["shop"], [R1], [_run("f1", "r1", "forge", "shop", 8), _run("k1", "r1", "kiln", "shop", 4)])
    )
    assert _overall("r1") == {"forge": 90.0, "kiln": 70.0}
    assert Round.objects.get(key="r1").task_keys == ["shop"]  # frozen at publication
    # Round r2 adds a task "cart". Were it counted in r1 (no r1 runs: 0), Forge would drop to (90 + 0) / 2 = 45.
    bundle_import(
        doc=_bundle(
            ["shop", "cart"], [R1, R2], [_run("f2", "r2", "forge", "cart", 10), _run("k2", "r2", "kiln", "shop", 10)]
        )
    )
    assert _overall("r1") == {"forge": 90.0, "kiln": 70.0}
    # r2's own set is {cart, shop} (tasks with runs): Forge (100 + 0) / 2 = 50, Kiln (0 + 100) / 2 = 50.
    assert _overall("r2") == {"forge": 50.0, "kiln": 50.0}
    # The download carries each round's set, and recounts to the same numbers.
    doc = bundle_export(benchmark=Benchmark.objects.get(slug="ab"))
    assert {r["key"]: r["tasks"] for r in doc["rounds"]} == {"r1": ["shop"], "r2": ["shop", "cart"]}  # task order
    counted = {r["round"]: {x["agent"]: x["overall"] for x in r["boards"]["overall"]} for r in recount(doc)["rounds"]}
    assert counted == {"r1": {"forge": 90.0, "kiln": 70.0}, "r2": {"forge": 50.0, "kiln": 50.0}}


def test_a_rounds_given_task_set_is_its_denominator_and_refuses_runs_outside_it():
    # r1 lists shop and cart; Forge ran only shop at 90: (90 + 0) / 2 = 45.
    doc = _bundle(["shop", "cart"], [{**R1, "tasks": ["shop", "cart"]}], [_run("f1", "r1", "forge", "shop", 8)])
    assert recount(doc)["rounds"][0]["boards"]["overall"][0]["overall"] == 45.0
    bad = _bundle(["shop", "cart"], [{**R1, "tasks": ["shop"]}], [_run("f1", "r1", "forge", "cart", 8)])
    assert "runs[0].task: task 'cart' is not in round 'r1''s tasks" in validate_bundle(bad)


def test_unknown_output_makes_the_token_total_unknown_on_the_board_the_run_page_and_the_csv(client):
    # 500 input + 20 cache writes, output not reported: "missing usage never counts as zero", so the total is
    # unknown everywhere (it used to read 520 on the run page and in the CSV, and unknown on the board).
    run = {**_run("f1", "r1", "forge", "shop", 8), "tokens_input": 500, "tokens_cache_write": 20, "tokens_output": None}
    bundle_import(doc=_bundle(["shop"], [R1], [run, _run("k1", "r1", "kiln", "shop", 4)]))
    _overall("r1")
    task_row = next(
        r for r in BoardSnapshot.objects.get(round__key="r1").data["tasks"]["shop"] if r["agent"] == "forge"
    )
    assert task_row["tokens"] is None
    page = client.get("/b/ab/r/r1/runs/f1/").content.decode()
    assert "not reported" in page and "520" not in page
    csv_rows = client.get("/b/ab/download/runs.csv").content.decode().splitlines()
    header = csv_rows[0].split(",")
    forge = next(line.split(",") for line in csv_rows[1:] if ",f1," in f",{line},")
    assert forge[header.index("tokens")] == ""
