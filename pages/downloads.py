"""The downloads: every run of a benchmark (runs.csv) and a board as shown (board.csv), full-precision values,
a missing number left blank. Nothing about owners, reviewers or voters."""

from __future__ import annotations

import csv
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.http import HttpResponse

from leaderboard.models import Benchmark
from runs.models import Run

from .selectors import benchmark_get, board_page, checks_passed, run_counts, run_score, snapshots_for, standing_runs
from .tables import Table


def csv_response(name: str, rows: list[list]) -> HttpResponse:
    """`rows` as an attached `<name>.csv`."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response, lineterminator="\n")
    writer.writerows(rows)
    return response


RUN_CSV_COLUMNS = [
    "benchmark",
    "round",
    "run",
    "agent",
    "agent_name",
    "cli",
    "model",
    "product_version",
    "task",
    "task_version",
    "trial",
    "language",
    "status",
    "counted",
    "median_run",
    "score",
    "outcome",
    "checks_passed",
    "checks_total",
    "tests_passed",
    "tests_total",
    "tokens",
    "tokens_input",
    "tokens_output",
    "tokens_cache_write",
    "cost_usd",
    "plan_label",
    "wall_seconds",
    "interventions",
    "checks_version",
    "rerun_of",
]


def runs_csv_rows(*, bench_slug: str) -> tuple[Benchmark, list[list[Any]]]:
    """Every run of the benchmark's published rounds, one CSV row each, with whether it counts and whether it
    stands for its agent on its task (`median_run`). Nothing about owners, reviewers or voters."""
    bench = benchmark_get(bench_slug)
    runs = list(
        Run.objects.published()
        .filter(round__benchmark=bench)
        .select_related("round", "entry__agent", "task", "rerun_of")
        .order_by("round__starts_on", "round__key", "entry__agent__slug", "task__position", "task__key", "trial", "key")
    )
    snaps, _ = snapshots_for(bench, list({r.round_id for r in runs}))
    standing: dict[int, set[str]] = {rid: standing_runs(bench.methodology, s.data) for rid, s in snaps.items()}
    replaced = {r.rerun_of_id for r in runs if r.rerun_of_id}
    m = bench.methodology
    out = []
    for r in runs:
        passed, total = checks_passed(r)
        score = run_score(r, m)
        e = r.entry
        out.append(
            [
                bench.slug,
                r.round.key,
                r.key,
                e.agent.slug,
                e.agent.name,
                e.cli,
                e.model,
                e.product_version,
                r.task.key,
                r.task_version,
                r.trial,
                r.language,
                r.status,
                "yes" if run_counts(r, m, r.id in replaced) else "no",
                "yes" if r.key in standing.get(r.round_id, set()) else "no",
                "" if score is None else round(score, 6),
                r.outcome,
                _blank(passed),
                _blank(total),
                _blank(r.tests_passed),
                _blank(r.tests_total),
                _blank(r.tokens),
                _blank(r.tokens_input),
                _blank(r.tokens_output),
                _blank(r.tokens_cache_write),
                _blank(r.cost_usd),
                r.plan_label,
                _blank(r.wall_seconds),
                _blank(r.interventions),
                r.checks_version,
                r.rerun_of.key if r.rerun_of else "",
            ]
        )
    return bench, out


def _blank(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value


def board_csv(*, bench_slug: str, round_key: str, params: Mapping[str, str]) -> tuple[str, list[list[Any]]]:
    """The board as shown (the tab in `params`), one row per agent, full-precision values; the agent's CLI and
    model beside it."""
    page = board_page(bench_slug=bench_slug, round_key=round_key, params=params)
    table: Table | None = page["table"]
    entries = {e.agent.slug: e for e in page["entries"]}
    name = f"{page['bench'].slug}-{page['round'].key}-{page['tab']}"
    if table is None:
        return name, [["state"], [page["state"]]]
    head = ["agent", "cli", "model"] + [c.key if c.key != "agent" else "agent_name" for c in table.columns if c.csv]
    rows = [head + table.extra_columns]
    for row in table.rows:
        e = entries.get(row["agent"])
        vals = [row["agent"], e.cli if e else "", e.model if e else ""]
        for col, cell in zip(table.columns, row["cells"], strict=True):
            if col.csv:
                vals.append(cell.text if col.key == "agent" else _blank(cell.raw if cell.raw is not None else None))
        vals += [_blank(v) for v in row.get("extra") or [None] * len(table.extra_columns)]
        rows.append(vals)
    return name, rows
