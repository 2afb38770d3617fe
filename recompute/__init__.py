"""Recomputing board snapshots: `boards` reads a round through the bundle export and scores it exactly as
`recount` does (the worker, the sweep, the ratings fit); `effects` computes what a correction would do to a
round's boards without writing anything. Above the bundles (it reads through their export), below the edges
that call it (the Celery tasks, the pages, the commands)."""
