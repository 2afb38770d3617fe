"""Transcripts and search at size, on PostgreSQL: a 10,000-message, ~50 MB transcript's run page, page by page,
and the benchmark search over 100,000 runs.

    .venv/bin/python bench/bench_transcripts.py                 # both
    .venv/bin/python bench/bench_transcripts.py --only search
    .venv/bin/python bench/bench_transcripts.py --only transcript

DATABASE_URL, default postgres://postgres@127.0.0.1:5432/leaderboard_bench_search (created when missing, then
migrated; the benchmarks it makes are kept, so a second run skips the seeding). Timings are the server's time
for one request through Django's test client (the view, its queries and the template; no network; the public
page cache bypassed, so every request renders), best and median of 5. Targets (issue #29): a transcript page
under 200 ms, a search under 300 ms.
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
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/leaderboard_bench_search")
os.environ.pop("REDIS_URL", None)
os.environ.pop("CELERY_BROKER_URL", None)

RUNS_AGENTS, RUNS_TASKS, RUNS_TRIALS = 100, 200, 5  # 100,000 runs
MESSAGES = 10_000
MESSAGE_BYTES = 5_000  # about 50 MB of messages in all
VOCABULARY = 3_000
RARE_PHRASE = "permission denied"


def _words(rng: random.Random, n: int) -> str:
    return " ".join(f"w{rng.randrange(VOCABULARY)}" for _ in range(n))


def seed_search() -> None:
    """100 agents x 200 tasks x 5 trials, published; three entries a run (two messages, a note) of 30 words
    from a 3,000-word vocabulary; 1 run in 200 has "permission denied" in a message."""
    from bench.bench_recompute import _bulk_runs, make_round
    from bundles.importer import bundle_import
    from leaderboard.models import Benchmark
    from runs.models import Run, SearchEntry

    if Benchmark.objects.filter(slug="bench-search").exists():
        return
    doc = make_round(
        slug="bench-search", methodology="checks", agents=RUNS_AGENTS, tasks=RUNS_TASKS, trials=RUNS_TRIALS
    )
    runs = doc["runs"]
    doc["runs"] = []
    bundle_import(doc=doc)
    doc["runs"] = runs
    started = time.perf_counter()
    _bulk_runs(doc)
    rng = random.Random(29)
    rows = []
    for run_id in Run.objects.filter(round__benchmark__slug="bench-search").values_list("id", flat=True):
        rare = rng.random() < 0.005
        rows.append(SearchEntry(run_id=run_id, kind="message", anchor="m-0", text=_words(rng, 30)))
        text = _words(rng, 12) + (f" {RARE_PHRASE} " if rare else " ") + _words(rng, 18)
        rows.append(SearchEntry(run_id=run_id, kind="message", anchor="m-1", text=text))
        rows.append(SearchEntry(run_id=run_id, kind="note", anchor=f"verdict-{run_id}", text=_words(rng, 30)))
        if len(rows) >= 30_000:
            SearchEntry.objects.bulk_create(rows)
            rows = []
    SearchEntry.objects.bulk_create(rows)
    from django.db import connection

    with connection.cursor() as c:  # what autovacuum does after a large load: the planner's statistics
        c.execute("ANALYZE runs_run; ANALYZE runs_searchentry")
    print(f"  seeded {len(runs):,} runs and {3 * len(runs):,} search entries in {time.perf_counter() - started:.0f} s")


def seed_transcript() -> None:
    """One published run with a 10,000-message transcript of about 50 MB; message 7,777 holds "needle"."""
    from bundles.importer import bundle_import
    from runs.models import Run, Transcript
    from runs.services.transcripts import transcript_write

    if Transcript.objects.filter(run__round__benchmark__slug="bench-transcript").exists():
        return
    doc = {
        "benchmark": {"slug": "bench-transcript", "name": "Transcript bench", "methodology": "scored"},
        "agents": [{"slug": "a", "name": "A"}],
        "tasks": [{"key": "t", "title": "T", "version": "1.0", "kind": "core", "prompt": "Do it."}],
        "rounds": [
            {
                "key": "r1",
                "name": "R1",
                "status": "published",
                "published_at": "2026-03-01T12:00:00Z",
                "entries": [{"agent": "a"}],
            }
        ],
        "runs": [{"id": "long", "round": "r1", "agent": "a", "task": "t", "status": "completed", "score": 0.5}],
    }
    bundle_import(doc=doc)
    rng = random.Random(7)
    messages = []
    for i in range(MESSAGES):
        role = ("user", "assistant", "tool")[i % 3]
        text = _words(rng, MESSAGE_BYTES // 6) + (" needle" if i == 7777 else "")
        m = {"role": role, "text": text}
        if role == "assistant":
            m["tool_calls"] = [{"id": f"c{i}", "function": "shell", "arguments": {"cmd": f"ls /tmp/{i}"}}]
        if role == "tool":
            m["tool_call_id"], m["function"] = f"c{i - 1}", "shell"
        messages.append(m)
    started = time.perf_counter()
    written: list[str] = []
    t = transcript_write(Run.objects.get(key="long"), {"messages": messages}, source="bundle", written=written)
    assert t is not None
    print(
        f"  stored {t.message_count:,} messages, {t.raw_bytes / 1e6:.1f} MB as JSON, {t.stored_bytes / 1e6:.1f} MB "
        f"compressed in {len(written)} pages, in {time.perf_counter() - started:.1f} s"
    )


def timed(client, url: str, repeats: int = 5) -> tuple[float, float, int]:
    times = []
    status = 0
    for _ in range(repeats):
        started = time.perf_counter()
        response = client.get(url, HTTP_HOST="127.0.0.1")
        times.append((time.perf_counter() - started) * 1000)
        status = response.status_code
    return min(times), statistics.median(times), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["search", "transcript"])
    args = parser.parse_args()
    from bench.bench_recompute import ensure_database, machine

    ensure_database(os.environ["DATABASE_URL"])
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    setup_test_environment()
    call_command("migrate", verbosity=0)
    print(machine())
    client = Client()
    # A session cookie makes every request render (the public page cache serves only visitors without one).
    from django.conf import settings

    client.cookies[settings.SESSION_COOKIE_NAME] = "bench-no-page-cache"
    if args.only in (None, "transcript"):
        seed_transcript()
        base = "/b/bench-transcript/r/r1/runs/long/"
        print("transcript page                         best ms  median ms  status")
        for label, url in (
            ("page 1", base),
            ("page 50", base + "?page=50"),
            ("page 100", base + "?page=100"),
            ("message 7777 (?m=)", base + "?m=7777"),
            ("find 'needle' (?q=)", base + "?q=needle"),
        ):
            best, med, status = timed(client, url)
            print(f"  {label:<36} {best:8.1f} {med:10.1f}  {status}")
    if args.only in (None, "search"):
        seed_search()
        base = "/b/bench-search/search/"
        print("search over 100,000 runs                best ms  median ms  status")
        for label, query in (
            ('"permission denied" (0.5% of runs)', f'?q="{RARE_PHRASE}"'),
            ("one common word (1% of entries)", "?q=w17"),
            ("two words", "?q=w17+w42"),
            ("a word, one agent", "?q=w17&agent=agent-007"),
            ("a word, failed only", "?q=denied&outcome=failed"),
            ("no match", "?q=zzzzzz"),
        ):
            best, med, status = timed(client, base + query)
            print(f"  {label:<36} {best:8.1f} {med:10.1f}  {status}")


if __name__ == "__main__":
    main()
