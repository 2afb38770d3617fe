"""Votes at arena scale, end to end on PostgreSQL: a ratings refresh, the votes download and its recount.

    python bench/bench_votes_scale.py                      # 100k, 1M and 10M counted votes
    python bench/bench_votes_scale.py --sizes 100000,1000000
    python bench/bench_votes_scale.py --download-up-to 1000000   # 10M: load and refresh only
    BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/lb_bench_votes python bench/bench_votes_scale.py

A database of its own (BENCH_DATABASE_URL, default `lb_bench_votes` on the local server; dropped and
created afresh) holds one benchmark with 10 tasks and 30 agents with published entries. Votes are loaded
with COPY (not the ORM), counted, between random pairs, 10% ties; the vote cells are then rebuilt from them
with `cells_rebuild` (what `manage.py vote_cells` does; the site's own writes keep them in step as they go).
Sizes are cumulative: the 1M step adds 900k votes to the 100k.

Each size, each step in a child process of its own so its peak memory (ru_maxrss of that process) is its own:

  refresh    the ratings snapshot turned stale and recomputed: database -> vote cells -> fit -> saved snapshot
             (`snapshot_recompute`, what the worker runs)
  download   the public bundle with the votes file referenced (VOTES_INLINE_LIMIT 0) and the streamed votes
             file written to disk (`votes_file_chunks`, the body of /b/<slug>/download/votes.jsonl.gz)
  recount    `manage.py recount BUNDLE --votes FILE` (no database), its ratings compared with the snapshot's

Figures: wall seconds and peak RSS in MiB per step ("read s" is the database part of the refresh alone:
reading and digesting the public vote cells, no fit), the file's size, and whether the recount equals the
site.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/lb_bench_votes"
TASKS, AGENTS = 10, 30


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["DATABASE_URL"] = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    env.pop("REDIS_URL", None)  # eager Celery, in-memory cache: the steps call the services directly
    env.pop("CELERY_BROKER_URL", None)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def child(step: str, *args: str) -> tuple[float, float, str]:
    """Run `step` in a child process; (wall seconds, peak RSS MiB, its standard output)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [PY, __file__, "--step", step, *args], cwd=ROOT, env=_env(), stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"step {step} failed ({proc.returncode})")
    return time.perf_counter() - started, usage.ru_maxrss / 1024, out


# --- steps (in the child) --------------------------------------------------------------------------------------


def _django() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def step_setup() -> None:
    _django()
    from django.core.management import call_command

    from bundles.importer import bundle_import

    call_command("migrate", verbosity=0)
    agents = [f"agent-{i:02d}" for i in range(AGENTS)]
    tasks = [f"task-{i:02d}" for i in range(TASKS)]
    doc = {
        "format": "agent-leaderboard-bundle/1",
        "benchmark": {"slug": "arena", "name": "Arena", "methodology": "checks"},
        "agents": [{"slug": a, "name": a} for a in agents],
        "tasks": [{"key": t, "title": t, "version": "1", "kind": "invent"} for t in tasks],
        "rounds": [
            {
                "key": "r1",
                "name": "R1",
                "status": "published",
                "published_at": "2026-11-01T00:00:00Z",
                "entries": [{"agent": a} for a in agents],
                "tasks": tasks,  # the round's task set: its tasks are public once it is published
            }
        ],
        "runs": [],
        "votes": [],
    }
    bundle_import(doc=doc)


def step_load(n: str, offset: str) -> None:
    """COPY `n` counted votes in, then rebuild the cells from the votes."""
    _django()
    import numpy as np
    from django.db import connection

    from leaderboard.models import Agent, Task
    from voting.cells import cells_rebuild

    task_ids = np.array(list(Task.objects.filter(benchmark__slug="arena").values_list("id", flat=True)))
    agent_ids = np.array(list(Agent.objects.filter(slug__startswith="agent-").values_list("id", flat=True)))
    rng = np.random.default_rng(int(offset) + 1)
    strength = np.random.default_rng(0).normal(0, 1, len(agent_ids))
    total, start, batch = int(n), int(offset), 500_000
    with connection.cursor() as cursor:
        raw = cursor.cursor
        for lo in range(0, total, batch):
            size = min(batch, total - lo)
            a = rng.integers(0, len(agent_ids), size)
            b = (a + rng.integers(1, len(agent_ids), size)) % len(agent_ids)
            p = 1 / (1 + np.exp(strength[b] - strength[a]))
            won = np.where(rng.random(size) < p, "a", "b")
            winner = np.where(rng.random(size) < 0.1, "tie", won)
            task = task_ids[rng.integers(0, len(task_ids), size)]
            # Whole columns turned into Python strings at once (indexing numpy arrays per row is several times
            # slower), then one line per vote.
            columns = zip(
                range(start + lo, start + lo + size),
                task.tolist(),
                agent_ids[a].tolist(),
                agent_ids[b].tolist(),
                winner.tolist(),
                (i % 997 for i in range(size)),
                strict=True,
            )
            lines = "".join(
                f"bench-{key}\t{t}\t{x}\t{y}\t{w}\tcrowd-{c}\t2026-11-02 00:00:00+00\tt\t\n"
                for key, t, x, y, w, c in columns
            )
            with raw.copy(
                "COPY voting_vote (key, task_id, agent_a_id, agent_b_id, winner, voter_label, cast_at, counts, held)"
                " FROM STDIN"
            ) as copy:
                copy.write(lines)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE voting_vote")
    started = time.perf_counter()
    cells_rebuild()
    print(json.dumps({"cells_rebuild_s": time.perf_counter() - started}))


def step_refresh() -> None:
    _django()
    from django.db import transaction

    from leaderboard.models import Benchmark
    from leaderboard.stale import snapshots_mark_stale
    from recompute.boards import compute_ratings, snapshot_recompute
    from snapshots.models import BoardSnapshot

    bench = Benchmark.objects.get(slug="arena")
    started = time.perf_counter()
    with transaction.atomic():
        snapshots_mark_stale(benchmark_ids=[bench.id])
    snap = BoardSnapshot.objects.get(benchmark=bench, round=None)
    snapshot_recompute(snapshot_id=snap.id)
    elapsed = time.perf_counter() - started
    snap.refresh_from_db()
    # The database part alone: read the public cells and digest them (the digest is unchanged: no fit).
    started = time.perf_counter()
    compute_ratings(bench.id, unless_digest=snap.digest)
    read_s = time.perf_counter() - started
    # The fit alone and the vote margins alone, on the same cells, side by side in this one process.
    from recompute.boards import _public_cells, public_tallies
    from scoring.bradley_terry import ratings_from_cells
    from scoring.vote_margins import with_vote_margins

    tallies = public_tallies(_public_cells(bench.id))
    started = time.perf_counter()
    fitted = ratings_from_cells(tallies)
    fit_s = time.perf_counter() - started
    started = time.perf_counter()
    with_vote_margins(tallies, fitted)
    margins_s = time.perf_counter() - started
    print(
        json.dumps(
            {
                "refresh_s": elapsed,
                "read_s": read_s,
                "fit_s": fit_s,
                "margins_s": margins_s,
                "votes": sum(r["votes"] for r in snap.data["all"]) // 2,
            }
        )
    )


def step_download(folder: str) -> None:
    _django()
    from bundles.export import bundle_export
    from bundles.votes_file import votes_file_chunks
    from leaderboard.models import Benchmark

    bench = Benchmark.objects.get(slug="arena")
    doc = bundle_export(benchmark=bench, votes_inline_limit=0, votes_file_url="votes.jsonl.gz")
    Path(folder, "bundle.json").write_text(json.dumps(doc))
    size = 0
    started = time.perf_counter()
    with open(Path(folder, "votes.jsonl.gz"), "wb") as fh:
        for piece in votes_file_chunks(bench):
            fh.write(piece)
            size += len(piece)
    stream_s = time.perf_counter() - started
    print(
        json.dumps(
            {"votes_file_mib": size / 2**20, "votes": (doc.get("votes_file") or {}).get("votes"), "stream_s": stream_s}
        )
    )


def step_download_python(folder: str) -> None:
    """The download's loop as it is on SQLite (one line at a time in Python), on the same database: what the
    COPY path replaced on PostgreSQL."""
    _django()
    from bundles.votes_file import _python_chunks
    from leaderboard.models import Benchmark

    bench = Benchmark.objects.get(slug="arena")
    started = time.perf_counter()
    with open(Path(folder, "votes-python.jsonl.gz"), "wb") as fh:
        for piece in _python_chunks(bench, include_unpublished=False, batch=5000, level=6):
            fh.write(piece)
    print(json.dumps({"python_stream_s": time.perf_counter() - started}))


def step_floor(folder: str) -> None:
    """The download's floor: PostgreSQL builds the same lines (json_build_object, the same joins and filter)
    and streams them with COPY ... TO STDOUT, compressed with zlib at the download's level; nothing else."""
    import zlib

    _django()
    from django.conf import settings
    from django.db import connection

    from leaderboard.models import Agent, Benchmark, Entry, Task, in_published_round
    from voting.models import Vote

    bench = Benchmark.objects.get(slug="arena")
    agents = sorted(
        set(Entry.objects.filter(in_published_round(), round__benchmark=bench).values_list("agent_id", flat=True))
    )
    tasks = sorted(Task.objects.public().filter(benchmark=bench).values_list("id", flat=True))
    vote, task, agent = (m._meta.db_table for m in (Vote, Task, Agent))
    secret = settings.SECRET_KEY.replace("'", "''")
    ids = "{" + ",".join(map(str, agents)) + "}"
    sql = (
        "COPY (SELECT json_build_object('id', v.key, 'task', t.key, 'a', aa.slug, 'b', ab.slug, 'winner', v.winner,"
        " 'voter', CASE WHEN v.voter_id IS NULL THEN v.voter_label ELSE 'voter-' || left(encode(sha256(convert_to("
        f"'{secret}:voter:' || v.voter_id, 'UTF8')), 'hex'), 10) END, 'cast_at', to_char(v.cast_at AT TIME ZONE"
        " 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), 'counts', v.counts)::text"
        f" FROM {vote} v JOIN {task} t ON t.id = v.task_id JOIN {agent} aa ON aa.id = v.agent_a_id"
        f" JOIN {agent} ab ON ab.id = v.agent_b_id WHERE v.task_id = ANY('{{{','.join(map(str, tasks))}}}')"
        f" AND v.agent_a_id = ANY('{ids}') AND v.agent_b_id = ANY('{ids}') ORDER BY v.id) TO STDOUT"
    )
    gz = zlib.compressobj(6, zlib.DEFLATED, 31)
    started = time.perf_counter()
    size = 0
    with open(Path(folder, "floor.jsonl.gz"), "wb") as fh, connection.cursor() as cursor:
        with cursor.connection.cursor().copy(sql) as copy:
            for data in copy:
                piece = gz.compress(data)
                size += len(piece)
                fh.write(piece)
        fh.write(gz.flush())
    print(json.dumps({"floor_s": time.perf_counter() - started}))


def step_parse_floor(folder: str) -> None:
    """The recount's reading against its floors, in one process, in interleaved rounds (medians printed):

    lines_json / lines_orjson   the file through gzip's line iterator, every line parsed (stdlib json, orjson)
    blocks_orjson               the file in blocks of whole lines (`read_line_blocks`), every line parsed by
                                orjson, nothing kept: the fastest way found to decompress and parse it
    blocks_msgspec              the same, every line decoded by msgspec (the recount's parser) to plain values
    tally                       what `recount --votes` does with the file: `vote_line_tallies` (decode, count,
                                check the distinct votes against the bundle); the fits are not in it
    """
    import gzip
    import statistics

    import msgspec
    import orjson

    sys.path.insert(0, str(ROOT))
    from bundles.management.files import read_line_blocks
    from scoring.vote_lines import vote_line_tallies

    path = Path(folder, "votes.jsonl.gz")
    doc = json.loads(Path(folder, "bundle.json").read_text())
    blocks = read_line_blocks(path)

    def by_lines(loads):
        with gzip.open(path, "rb") as fh:
            for line in fh:
                loads(line)

    def by_blocks(loads):
        for block in blocks():
            for line in block.split(b"\n")[:-1]:
                loads(line)

    readers = {
        "lines_json": lambda: by_lines(json.loads),
        "lines_orjson": lambda: by_lines(orjson.loads),
        "blocks_orjson": lambda: by_blocks(orjson.loads),
        "blocks_msgspec": lambda: by_blocks(msgspec.json.decode),
        "tally": lambda: vote_line_tallies(doc, blocks),
    }
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(int(os.environ.get("BENCH_PARSE_ROUNDS", "3"))):
        for name, read in readers.items():
            started = time.perf_counter()
            read()
            times[name].append(time.perf_counter() - started)
    print(json.dumps({f"{name}_s": statistics.median(t) for name, t in times.items()} | {"rounds": times}))


def step_site_ratings(folder: str) -> None:
    _django()
    from snapshots.models import BoardSnapshot

    snap = BoardSnapshot.objects.get(benchmark__slug="arena", round=None)
    Path(folder, "site.json").write_text(json.dumps(snap.data))


STEPS: dict[str, Callable[..., None]] = {
    "setup": step_setup,
    "load": step_load,
    "refresh": step_refresh,
    "download": step_download,
    "site": step_site_ratings,
    "floor": step_floor,
    "download_python": step_download_python,
    "parse_floor": step_parse_floor,
}


# --- the driver --------------------------------------------------------------------------------------------------


def recreate_database() -> None:
    import psycopg

    url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)
    base, name = url.rsplit("/", 1)
    with psycopg.connect(base + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100000,1000000,10000000")
    parser.add_argument("--folder", default="/tmp/bench_votes_scale")
    parser.add_argument("--step")
    parser.add_argument(
        "--download-up-to",
        type=int,
        help="sizes above this load and refresh only (no download or recount): 10M votes take most of an hour "
        "to download and recount on a 2-core machine",
    )
    args, rest = parser.parse_known_args()
    if args.step:
        STEPS[args.step](*rest)
        return
    Path(args.folder).mkdir(parents=True, exist_ok=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.node()}, nproc {os.cpu_count()}")
    recreate_database()
    child("setup")
    loaded = 0
    print(
        "votes       load s  cells s  refresh s  read s  refresh MiB  download s  download MiB  file MiB  "
        "recount s  recount MiB  recount = site  floor s  download/floor  parse json s  parse orjson s  "
        "blocks orjson s  blocks msgspec s  tally s  tally/blocks msgspec  tally/blocks orjson  tally/lines orjson"
    )
    for size in [int(s) for s in args.sizes.split(",")]:
        load_s, _, out = child("load", str(size - loaded), str(loaded))
        cells_s = json.loads(out.splitlines()[-1])["cells_rebuild_s"]
        loaded = size
        refresh_wall, refresh_mib, out = child("refresh")
        refreshed = json.loads(out.splitlines()[-1])
        refresh_s, read_s = refreshed["refresh_s"], refreshed["read_s"]
        fit_s, margins_s = refreshed["fit_s"], refreshed["margins_s"]
        print(
            f"  {size:,} votes: ratings fit {fit_s:.2f} s, vote margins {margins_s:.2f} s "
            f"(fit with margins / fit alone {(fit_s + margins_s) / fit_s:.2f})",
            flush=True,
        )
        if args.download_up_to is not None and size > args.download_up_to:
            print(
                f"{size:>10,}  {load_s:6.1f}  {cells_s:7.1f}  {refresh_s:9.2f}  {read_s:8.2f}  {refresh_mib:11.0f}  "
                f"{'-':>10}  {'-':>12}  {'-':>8}  {'-':>9}  {'-':>11}  - (not run: --download-up-to)",
                flush=True,
            )
            continue
        child("site", args.folder)
        down_s, down_mib, out = child("download", args.folder)
        file_mib = json.loads(out.splitlines()[-1])["votes_file_mib"]
        down_stream_s = json.loads(out.splitlines()[-1])["stream_s"]
        # The floors, each timed inside its child (no Django start-up in the figure); the download's own wall
        # time includes its child's start-up and the bundle export, so the ratio is taken on the timed loop.
        floor_s = json.loads(child("floor", args.folder)[2].splitlines()[-1])["floor_s"]
        parsed = json.loads(child("parse_floor", args.folder)[2].splitlines()[-1])
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                PY,
                "manage.py",
                "recount",
                str(Path(args.folder, "bundle.json")),
                "--votes",
                str(Path(args.folder, "votes.jsonl.gz")),
                "-o",
                str(Path(args.folder, "recount.json")),
            ],
            cwd=ROOT,
            env=_env(),
        )
        _, status, usage = os.wait4(proc.pid, 0)
        recount_s, recount_mib = time.perf_counter() - started, usage.ru_maxrss / 1024
        recounted = json.loads(Path(args.folder, "recount.json").read_text())["ratings"]
        same = recounted == json.loads(Path(args.folder, "site.json").read_text())
        print(
            f"{size:>10,}  {load_s:6.1f}  {cells_s:7.1f}  {refresh_s:9.2f}  {read_s:8.2f}  {refresh_mib:11.0f}  "
            f"{down_s:10.1f}  {down_mib:12.0f}  {file_mib:8.1f}  {recount_s:9.1f}  {recount_mib:11.0f}  "
            f"{'yes' if same else 'NO':>14}  {floor_s:7.1f}  {down_stream_s / floor_s:14.2f}  "
            f"{parsed['lines_json_s']:12.1f}  {parsed['lines_orjson_s']:14.1f}  {parsed['blocks_orjson_s']:15.2f}  "
            f"{parsed['blocks_msgspec_s']:16.2f}  {parsed['tally_s']:7.2f}  "
            f"{parsed['tally_s'] / parsed['blocks_msgspec_s']:20.2f}  "
            f"{parsed['tally_s'] / parsed['blocks_orjson_s']:19.2f}  "
            f"{parsed['tally_s'] / parsed['lines_orjson_s']:18.2f}",
            flush=True,
        )
        print(f"  reading rounds: {json.dumps(parsed['rounds'])}", flush=True)


if __name__ == "__main__":
    main()
