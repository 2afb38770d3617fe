"""The public site's read layer: selectors (database reads, the board and home pages), details (the pages of
one run, task or agent), tradeoffs (score x cost x time), tables (the builder of each methodology, each in its
own tables_<methodology> module over table_cells), charts (SVG geometry), downloads (CSV), formatting and
links, and the views and URLs over them.

Imports point one way: formatting and links, then table_cells, the tables_<methodology> modules, tables and
charts, then selectors, then details, tradeoffs and downloads, then views and urls. This package reads the
apps (leaderboard, runs, snapshots, scoring); none of them imports it (the root URLconf includes
`pages.urls` by name)."""
