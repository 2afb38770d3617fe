"""The catalogue: benchmarks, tasks and their versions, agents, organizations, rounds, entries, API keys (app label
`leaderboard`, whose tables and migrations keep that name)."""
