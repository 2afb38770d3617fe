"""Where a vote's server CPU goes, in-process: Django's test client on the demo data, no HTTP server.

    .venv/bin/python bench/profile_vote.py                  # 20 voters, 200 votes: CPU ms and queries per vote
    .venv/bin/python bench/profile_vote.py --cprofile 40    # and the 40 costliest functions (a CPU-time clock)
    .venv/bin/python bench/profile_vote.py --parts          # and the CPU time of each of PARTS, per vote
    .venv/bin/python bench/profile_vote.py --screen --parts # the same for reloads of the vote screen (GET /vote/)

Set-up (not timed): the database `leaderboard_bench_profile` with the demo data (made once, kept), Redis
database 7 (flushed), `--voters` accounts three days old signed in through `Client.force_login`. Then each
voter in turn casts a vote the way the vote screen's htmx does (`HX-Request: true`): the first request opens
the screen, every later one is the vote's POST, whose answer carries the next pair. Reported: the process CPU
time (user + system) per vote and the database queries per request. `bench/bench_votes.py` measures the same
cycle through gunicorn under load; this script is for finding where the time goes, its figures are not the
recorded ones.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_pages import bench_env, ensure_database, flush_redis, prepare_site  # noqa: E402

DATABASE = "leaderboard_bench_profile"
HTMX = {"HX-Request": "true"}
# The parts `--parts` times: (module, attribute) where the caller looks the function up. Nested parts are
# counted in each (the vote's claim inside the casting).
PARTS = [
    ("django.contrib.auth", "get_user"),
    ("django.contrib.sessions.backends.cached_db", "SessionStore.load"),
    ("voting.views", "_rate_limited"),
    ("voting.views", "vote_pool"),
    ("voting.views", "matchup_open"),
    ("voting.views", "voter_status"),
    ("voting.views", "vote_scopes"),
    ("voting.views", "matchup_sides"),
    ("voting.views", "vote_cast"),
    ("voting.services.counting", "standing_take"),
    ("voting.queries", "claim_target"),
    ("voting.queries", "matchup_use"),
    ("voting.services.counting", "cells_apply"),
    ("voting.services.counting", "snapshots_mark_stale"),
    ("voting.views", "matchup_draw"),
    ("voting.draw.matchups", "drawable_run_ids"),
    ("voting.queries", "voter_pairs"),
    ("voting.draw.matchups", "_matchup_store"),
    ("voting.views", "render"),
    ("voting.views", "HttpResponse"),
    ("voting.views", "_jinja"),
    ("django.middleware.csrf", "get_token"),
]


def parts_wrap(spent: dict[str, float]) -> None:
    """Wrap each of PARTS so that the process CPU time spent in it adds to `spent[name]`."""
    import functools
    import importlib

    for module_name, attribute in PARTS:
        owner = importlib.import_module(module_name)
        *path, name = attribute.split(".")
        for step in path:
            owner = getattr(owner, step)
        original = getattr(owner, name)

        def timed(*args, __original=original, __key=f"{module_name}.{attribute}", **kwargs):
            started = time.process_time()
            try:
                return __original(*args, **kwargs)
            finally:
                spent[__key] = spent.get(__key, 0.0) + time.process_time() - started

        setattr(owner, name, functools.wraps(original)(timed))


KEY_RE = re.compile(r'action="/vote/m/([^/"]+)/"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voters", type=int, default=20)
    parser.add_argument("--votes", type=int, default=200)
    parser.add_argument("--sql", action="store_true", help="print the statements of one vote")
    parser.add_argument("--cprofile", type=int, default=0, metavar="N", help="print the N costliest functions")
    parser.add_argument(
        "--parts",
        action="store_true",
        help="time named parts of the request (each function wrapped where the caller looks it up: PARTS)",
    )
    parser.add_argument(
        "--screen", action="store_true", help="time the vote screen's GET (a reload of the open pair) instead"
    )
    args = parser.parse_args()

    env = bench_env(
        database=DATABASE,
        redis_db=7,
        extra={"VOTE_RATE_LIMIT": "100000", "VOTE_DRAW_RATE_LIMIT": "100000", "ALLOWED_HOSTS": "testserver"},
    )
    ensure_database(DATABASE)
    prepare_site(env, large=False)
    flush_redis(7, 8)
    os.environ.update(env)

    import django

    django.setup()
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from config.celery import app

    app.conf.task_always_eager = False  # refits are queued, as in production; no worker runs them here
    User = get_user_model()
    names = [f"profile-voter-{i:03d}@example.org" for i in range(args.voters)]
    User.objects.filter(username__in=names).delete()
    joined = timezone.now() - timedelta(days=3)
    User.objects.bulk_create([User(username=n, email=n, date_joined=joined) for n in names])
    clients, keys = [], []
    for user in User.objects.filter(username__in=names):
        client = Client(enforce_csrf_checks=False)
        client.force_login(user)
        page = client.get("/vote/", headers=HTMX).content.decode()
        clients.append(client)
        keys.append(KEY_RE.search(page).group(1))

    def reload(n: int, i: int) -> None:
        response = clients[n].get("/vote/")  # the whole page, as a browser's reload asks for it
        assert response.status_code == 200 and KEY_RE.search(response.content.decode()), response.content[:300]

    def vote(n: int, i: int) -> None:
        response = clients[n].post(f"/vote/m/{keys[n]}/", {"winner": ("a", "b", "tie")[i % 3]}, headers=HTMX)
        assert response.status_code == 200, response.content[:300]
        found = KEY_RE.search(response.content.decode())
        if not found:  # an answer without the next pair: the screen asks for it
            found = KEY_RE.search(clients[n].get("/vote/", headers=HTMX).content.decode())
        keys[n] = found.group(1)

    spent: dict[str, float] = {}
    if args.parts:
        parts_wrap(spent)
    profile = cProfile.Profile(time.process_time) if args.cprofile else None
    cpu = time.process_time()
    if profile:
        profile.enable()
    step = reload if args.screen else vote
    what = "reloads of the vote screen" if args.screen else "votes"
    for i in range(args.votes):
        step(i % len(clients), i)
    if profile:
        profile.disable()
    cpu = time.process_time() - cpu
    queries: list[int] = []  # counted apart: recording the queries costs CPU of its own
    for i in range(len(clients)):
        with CaptureQueriesContext(connection) as captured:
            step(i, i)
        queries.append(len(captured))
    print(f"{args.votes} {what} by {args.voters} voters: {1000 * cpu / args.votes:.2f} ms CPU each")
    print(f"queries each: min {min(queries)}, max {max(queries)}")
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {1000 * seconds / args.votes:6.2f} ms  {name}")
    if args.sql:
        with CaptureQueriesContext(connection) as captured:
            step(0, 1)
        for q in captured.captured_queries:
            print(" ", q["sql"][:160])
    if profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.cprofile)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.cprofile)
        profile.dump_stats(str(Path(tempfile.gettempdir()) / "profile_vote.prof"))
        print(f"(the whole profile: {Path(tempfile.gettempdir()) / 'profile_vote.prof'}, for pstats)")


if __name__ == "__main__":
    main()
