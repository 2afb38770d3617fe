"""Time `recompute.boards.snapshot_recompute`: one round's board snapshot recomputed from saved rows.

    .venv/bin/python bench/bench_recompute.py                  # 1x, 4x, 16x (trials 5, 20, 80), checks
    .venv/bin/python bench/bench_recompute.py --scales 1       # the 1x case only
    .venv/bin/python bench/bench_recompute.py --methodology outcomes
    .venv/bin/python bench/bench_recompute.py --profile        # cProfile of one 1x recompute
    .venv/bin/python bench/bench_recompute.py --scales 1 --statistics   # with and without the round statistics
    .venv/bin/python bench/bench_recompute.py --scales 1 --readings     # with and without the boards under readings

A generated round (100 agents x 30 tasks x 5 trials at 1x; more trials for the larger scales) is written with
`bundle_import` (not timed; skipped when the database already holds it; the 4x and 16x rounds write their
catalogue through `bundle_import` and their runs with one bulk insert, since the importer writes about 100
runs a second: `--import-all` to import them too), then the snapshot is recomputed
from the database with its digest cleared, so every repeat does the whole work: read the round back as a
bundle (`round_document`), digest its board inputs, score it (`compute_round_boards`) and save the snapshot.

It runs against PostgreSQL: DATABASE_URL, default postgres://postgres@127.0.0.1:5432/leaderboard_bench
(created when missing, then migrated). Celery is not involved: enqueues are switched off while importing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/leaderboard_bench")
# No broker: the import would otherwise enqueue a recompute (eager mode would run it inside the import).
os.environ.pop("REDIS_URL", None)
os.environ.pop("CELERY_BROKER_URL", None)

AGENTS, TASKS, TRIALS = 100, 30, 5


def ensure_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    from config.env import database_from_url

    db = database_from_url(url, ROOT)
    kwargs = {
        k: v
        for k, v in {"host": db["HOST"], "port": db["PORT"], "user": db["USER"], "password": db["PASSWORD"]}.items()
        if v
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **kwargs) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]).fetchone() is None:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(db["NAME"])))
            print(f"created database {db['NAME']}")


def make_round(
    *, slug: str, methodology: str, agents: int, tasks: int, trials: int, seed: int = 1, families: bool = False
) -> dict:
    """A valid bundle with one published round: every agent runs every task `trials` times."""
    rng = random.Random(seed)
    kind = "to-spec" if methodology == "checks" else "core"
    doc: dict = {
        # The round is published as it is imported: no vendor window (000 §6) to wait out.
        "benchmark": {
            "slug": slug,
            "name": f"Bench {slug}",
            "methodology": methodology,
            "params": {"preview_hours": 0},
        },
        "agents": [
            {
                "slug": f"agent-{a:03d}",
                "name": f"Agent {a:03d}",
                "organization": f"Org {a % 17}",
                "primary_language": "en",
                "languages": ["en"],
            }
            for a in range(agents)
        ],
        "tasks": [
            {
                "key": f"task-{t:02d}",
                "title": f"Task {t:02d}",
                "version": "1.0",
                "kind": kind,
                "dimensions": [f"dim-{t % 4}"],
                "time_limit_min": 60,
                "token_budget": 2_000_000,
                "prompt": f"Do task {t}.",
                "domain": "bench",
                # With --statistics the tasks come in families of three, so the bootstrap draws by family.
                **({"family": f"family-{t // 3}"} if families else {}),
            }
            for t in range(tasks)
        ],
        "rounds": [
            {
                "key": "r1",
                "name": "Round 1",
                "status": "published",
                "published_at": "2026-10-01T12:00:00Z",
                "starts_on": "2026-09-01",
                "entries": [
                    {"agent": f"agent-{a:03d}", "product_version": "1.0", "plan": "API"} for a in range(agents)
                ],
            }
        ],
        "runs": [],
    }
    outcomes = ["pass", "pass", "partial", "fail", "unsupported"]
    for a in range(agents):
        skill = rng.random()
        for t in range(tasks):
            for k in range(1, trials + 1):
                run = {
                    "id": f"r1-{a:03d}-{t:02d}-{k}",
                    "round": "r1",
                    "agent": f"agent-{a:03d}",
                    "task": f"task-{t:02d}",
                    "task_version": "1.0",
                    "trial": k,
                    "language": "en",
                    "status": "completed" if rng.random() > 0.03 else "timeout",
                    "tokens_input": rng.randint(10_000, 900_000),
                    "tokens_output": rng.randint(1_000, 90_000),
                    "cost_usd": round(rng.uniform(0.05, 9.0), 4),
                    "wall_seconds": round(rng.uniform(60, 3600), 1),
                    "first_output_seconds": round(rng.uniform(1, 60), 1),
                    "steps": rng.randint(5, 300),
                }
                if methodology == "checks":
                    api_total, steps_total = 12, 9
                    started = rng.random() < 0.6 + 0.4 * skill
                    run.update(
                        {
                            "app_started": started,
                            "api_checks_total": api_total,
                            "browser_steps_total": steps_total,
                            "api_checks_passed": sum(rng.random() < skill for _ in range(api_total)) if started else 0,
                            "browser_steps_passed": sum(rng.random() < skill for _ in range(steps_total))
                            if started
                            else 0,
                        }
                    )
                else:
                    outcome = outcomes[min(4, int((1 - skill) * rng.random() * 5))]
                    run["outcome"] = outcome
                    run["verdicts"] = [{"role": "tester", "outcome": outcome}, {"role": "second", "outcome": outcome}]
                doc["runs"].append(run)
    return doc


def _bulk_runs(doc: dict) -> None:
    """The runs of a checks bundle in one bulk insert (bundle_import writes about 100 runs a second)."""
    from bundles.fields import RUN_DEFAULTS, RUN_SCALARS
    from leaderboard.models import Entry, Round, Task
    from runs.models import Run

    assert doc["benchmark"]["methodology"] == "checks", "bulk seeding writes no verdicts"
    rnd = Round.objects.get(benchmark__slug=doc["benchmark"]["slug"], key="r1")
    entries = dict(Entry.objects.filter(round=rnd).values_list("agent__slug", "id"))
    tasks = dict(Task.objects.filter(benchmark=rnd.benchmark).values_list("key", "id"))
    rows = []
    for run in doc["runs"]:
        values = {f: run.get(f, RUN_DEFAULTS.get(f)) for f in RUN_SCALARS if f in run or f in RUN_DEFAULTS}
        rows.append(Run(key=run["id"], round=rnd, entry_id=entries[run["agent"]], task_id=tasks[run["task"]], **values))
    Run.objects.bulk_create(rows, batch_size=5000)


def seed_round(doc: dict, bulk: bool = False) -> int:
    """Import the bundle unless the database already holds this round with every run; the snapshot id.
    `bulk`: the catalogue through bundle_import, the runs with one bulk insert (for the large scales)."""
    from bundles.importer import bundle_import
    from leaderboard import stale
    from leaderboard.models import Round
    from runs.models import Run
    from snapshots.models import BoardSnapshot

    slug = doc["benchmark"]["slug"]
    rnd = Round.objects.filter(benchmark__slug=slug, key="r1").first()
    if rnd is None or Run.objects.filter(round=rnd).count() != len(doc["runs"]):
        enqueue, stale.enqueue_recompute = stale.enqueue_recompute, lambda *a, **k: None
        started = time.perf_counter()
        try:
            if bulk:
                bundle_import(doc={**doc, "runs": []})
                _bulk_runs(doc)
            else:
                bundle_import(doc=doc)
        finally:
            stale.enqueue_recompute = enqueue
        how = "bulk-inserted" if bulk else "imported"
        print(f"  {how} {len(doc['runs'])} runs into {slug} in {time.perf_counter() - started:.1f} s (not timed)")
        rnd = Round.objects.get(benchmark__slug=slug, key="r1")
    snap, _ = BoardSnapshot.objects.get_or_create(round=rnd, kind="boards", defaults={"benchmark_id": rnd.benchmark_id})
    return snap.id


class Split:
    """Wraps the steps of snapshot_recompute to time them (the function itself is unchanged)."""

    def __init__(self) -> None:
        self.t: dict[str, float] = {}

    def wrap(self, owner, name: str, label: str):
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.t[label] = self.t.get(label, 0.0) + time.perf_counter() - started

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)


def time_recompute(snapshot_id: int, repeats: int) -> list[dict[str, float]]:
    from recompute import boards as services
    from scoring import boards
    from snapshots.models import BoardSnapshot

    results = []
    for _ in range(repeats):
        BoardSnapshot.objects.filter(pk=snapshot_id).update(digest="", stale=True)
        split = Split()
        undo = [
            split.wrap(services, "round_document", "read"),
            split.wrap(services, "board_inputs", "digest"),
            split.wrap(services, "_digest", "digest"),
            split.wrap(services, "compute_round_boards", "score"),
            split.wrap(boards, "with_intervals", "intervals"),
            split.wrap(services, "with_readings", "readings"),
            split.wrap(BoardSnapshot, "save", "save"),
        ]
        started = time.perf_counter()
        try:
            changed = services.snapshot_recompute(snapshot_id=snapshot_id)
        finally:
            total = time.perf_counter() - started
            for u in undo:
                u()
        assert changed, "the recompute did not run (digest not cleared?)"
        snap = BoardSnapshot.objects.get(pk=snapshot_id)
        assert not snap.stale and snap.data
        split.t["total"] = total
        # The bootstrap and the boards under the other readings apart.
        split.t["score"] = split.t.get("score", 0.0) - split.t.get("intervals", 0.0) - split.t.get("readings", 0.0)
        split.t["other"] = total - sum(v for k, v in split.t.items() if k != "total")
        results.append(split.t)
    return results


def compare_statistics(scale: int, n: int, snapshot_id: int, repeats: int) -> None:
    """The whole recompute with the round's statistics and without them (`round_statistics` answering {}),
    alternating so the machine's noise falls on both alike; best and median of each, and their ratio."""
    from scoring import boards

    original = boards.round_statistics
    timings: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(repeats):
        for label in ("without", "with"):
            if label == "without":
                boards.round_statistics = lambda *args, **kwargs: {}
            try:
                timings[label].append(time_recompute(snapshot_id, 1)[0]["total"])
            finally:
                boards.round_statistics = original
    best = {k: min(v) for k, v in timings.items()}
    med = {k: statistics.median(v) for k, v in timings.items()}
    print(
        f"{scale}x, {n} runs, {repeats} recomputes each: without statistics best {best['without']:.3f} s "
        f"(median {med['without']:.3f}), with best {best['with']:.3f} s (median {med['with']:.3f}); "
        f"with / without: best {best['with'] / best['without']:.2f}, median {med['with'] / med['without']:.2f}"
    )


def compare_readings(scale: int, n: int, snapshot_id: int, repeats: int) -> None:
    """The whole recompute with the boards under every other reading of the methodology's open questions
    (`scoring.reading_boards.with_readings`) and without them (the site's boards alone), alternating so the
    machine's noise falls on both alike; best and median of each, and their ratio (the issue's budget: 2x)."""
    from recompute import boards as services

    original = services.with_readings
    timings: dict[str, list[float]] = {"with": [], "without": []}
    for _ in range(repeats):
        for label in ("without", "with"):
            if label == "without":
                services.with_readings = lambda round_input, boards: dict(boards)
            try:
                timings[label].append(time_recompute(snapshot_id, 1)[0]["total"])
            finally:
                services.with_readings = original
    best = {k: min(v) for k, v in timings.items()}
    med = {k: statistics.median(v) for k, v in timings.items()}
    print(
        f"{scale}x, {n} runs, {repeats} recomputes each: without readings best {best['without']:.3f} s "
        f"(median {med['without']:.3f}), with best {best['with']:.3f} s (median {med['with']:.3f}); "
        f"with / without: best {best['with'] / best['without']:.2f}, median {med['with'] / med['without']:.2f}"
    )


def machine() -> str:
    import platform
    import subprocess

    def run(cmd: str) -> str:
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:  # noqa: BLE001
            return "?"

    from django.db import connection

    with connection.cursor() as c:
        c.execute("SHOW server_version")
        pg = c.fetchone()[0]
    model = run("lscpu | sed -n 's/^Model name: *//p'")
    mem = run('free -h | awk \'/^Mem:/ {print $2 " total, " $7 " available"}\'')
    load = run("cut -d' ' -f1-3 /proc/loadavg")
    return (
        f"nproc {os.cpu_count()}, CPU {model!r}, memory {mem}, Python {platform.python_version()}, "
        f"PostgreSQL {pg}, load average {load}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,4,16", help="multiples of the 5 trials (default 1,4,16)")
    parser.add_argument("--methodology", default="checks", choices=["checks", "outcomes"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile one recompute of the 1x round")
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="time each recompute with and without the round statistics (noise, task separation, split-half "
        "reliability, review agreement), alternating, in this one run",
    )
    parser.add_argument(
        "--readings",
        action="store_true",
        help="time each recompute with and without the boards under every other reading, alternating, in this run",
    )
    parser.add_argument(
        "--import-all", action="store_true", help="write the larger scales with bundle_import too (slow: ~100 runs/s)"
    )
    args = parser.parse_args()

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    print(machine())
    print(
        f"methodology {args.methodology}; {AGENTS} agents x {TASKS} tasks x trials; "
        f"best and median of {args.repeats} recomputes (seconds)"
    )
    header = (
        f"{'scale':>5} {'runs':>7} {'read':>7} {'digest':>7} {'score':>7} {'interv':>7} {'reads':>7} {'save':>7} "
        f"{'other':>7} "
        f"{'total':>7} {'median':>7} {'us/run':>7}"
    )
    rows = []
    for scale in [int(s) for s in args.scales.split(",")]:
        repeats = args.repeats if scale <= 4 else 1
        doc = make_round(
            slug=f"bench-{args.methodology}-{scale}x" + ("-families" if args.statistics else ""),
            families=args.statistics,
            methodology=args.methodology,
            agents=AGENTS,
            tasks=TASKS,
            trials=TRIALS * scale,
        )
        n = len(doc["runs"])
        snapshot_id = seed_round(doc, bulk=scale > 1 and args.methodology == "checks" and not args.import_all)
        del doc
        if args.profile:
            import cProfile
            import pstats

            from recompute.boards import snapshot_recompute
            from snapshots.models import BoardSnapshot

            BoardSnapshot.objects.filter(pk=snapshot_id).update(digest="")
            prof = cProfile.Profile()
            prof.runcall(snapshot_recompute, snapshot_id=snapshot_id)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(35)
            return
        if args.statistics:
            compare_statistics(scale, n, snapshot_id, max(repeats, 5))
            continue
        if args.readings:
            compare_readings(scale, n, snapshot_id, max(repeats, 5))
            continue
        results = time_recompute(snapshot_id, repeats)
        best = min(results, key=lambda r: r["total"])
        med = statistics.median(r["total"] for r in results)
        rows.append(
            f"{scale:>4}x {n:>7} {best.get('read', 0):7.3f} {best.get('digest', 0):7.3f} "
            f"{best.get('score', 0):7.3f} {best.get('intervals', 0):7.3f} {best.get('readings', 0):7.3f} "
            f"{best.get('save', 0):7.3f} "
            f"{best['other']:7.3f} "
            f"{best['total']:7.3f} {med:7.3f} {best['total'] / n * 1e6:7.1f}"
        )
        print(header if len(rows) == 1 else "", rows[-1], sep="\n" if len(rows) == 1 else "")


if __name__ == "__main__":
    main()
