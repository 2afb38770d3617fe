"""The catalogue's writes: benchmarks, tasks and their versions, agents, rounds, their parameters and their
changelog. Each write checks who may make it, asks for a reason once a round it reaches is published, logs
the change in that round's changelog and says "this changed" (`snapshots.stale.snapshots_mark_stale`).

- `changes`: the rules every write shares (the editor check, the reason, the changelog);
- `catalogue`: agents, benchmarks, tasks, rounds and round parameters;
- `versions`: task versions (seed 000 §9).

A round's publication is a decision about its runs (open disputes, re-runs, the preview window) and lives
with them, in `runs.services.publication`.
"""
