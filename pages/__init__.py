"""The public site's read layer: selectors (database reads and page contexts), tables (one builder per
methodology and tab), charts (SVG geometry), downloads (CSV), formatting and links, and the views and URLs
over them.

Imports point one way: formatting and links, then tables and charts, then selectors, then downloads, then
views and urls. This package reads the apps (leaderboard, runs, snapshots, scoring); none of them imports it
(the root URLconf includes `pages.urls` by name)."""
