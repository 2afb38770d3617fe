"""The downloads: every run of a benchmark (runs.csv) and a board as shown (board.csv), full-precision values,
a missing number left blank. Nothing about owners, reviewers or voters."""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.http import HttpResponse

from leaderboard.models import Benchmark
from runs.models import Run
from scoring.run_figures import HEURISTIC, marks_of
from scoring.standings import COUNTS, UPDATING
from scoring.types import PUBLIC_RUN_SCALARS, RunStanding

from .figures import published_seconds
from .selectors import benchmark_get, board_page, checks_passed, round_tasks_page, run_label, runs_standings
from .tables import Table

# A spreadsheet reads a cell that starts with one of these as a formula (OWASP "CSV Injection": = + - @, tab
# and carriage return; their fullwidth forms, which some spreadsheets fold to them).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    """A cell as it is written to every CSV download: text from outside (an agent's or a task's name, a CLI, a
    plan, a key) that starts like a formula gets a leading "'", which spreadsheets take as "this is text" and
    do not show, so `=HYPERLINK(...)` is shown, never run. Numbers stay numbers: a number, or text that is one
    (a cost written out as -0.5), is written as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_response(name: str, rows: list[list]) -> HttpResponse:
    """`rows` as an attached `<name>.csv`, each cell through `csv_cell`. No CSV is read back by the site or by
    `recount` (they read the JSON bundle), so nothing needs to undo the escape. Rows end in CRLF (RFC 4180):
    with "\n" alone, Python's writer left a carriage return inside a cell unquoted, and a reader split the
    row there."""
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    writer = csv.writer(response, lineterminator="\r\n")
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return response


# runs.csv's columns, in order: what the boards and the site make of the run (`_run_row`), and the run's own
# public fields (`PUBLIC_RUN_SCALARS` of scoring/types.py), named as the run and its bundle name them.
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
    "standing",
    "counted",
    "why_not_counted",
    "replaced_by",
    "median_run",
    "score",
    "heuristic",
    "judge_model",
    "execution_mode",
    "marks",
    "outcome",
    "label",
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
    "seconds",
    "wall_seconds",
    "interventions",
    "checks_version",
    "rerun_of",
]


def runs_csv_rows(*, bench_slug: str) -> tuple[Benchmark, list[list[Any]]]:
    """Every run of the benchmark's published rounds, one CSV row each, as its round's stored boards decided it
    (`selectors.runs_standings`): its standing, whether it counts (and why not, and the run that replaced it),
    whether it stands for its agent on its task (`median_run`: the median run, best trial or counted run), its
    score, and the outcome the board counts it with beside the label it was stored with (`label`; none while
    its review is under way). Nothing about owners, reviewers or voters."""
    bench = benchmark_get(bench_slug)
    runs = list(
        Run.objects.published()
        .filter(round__benchmark=bench)
        .select_related("round", "entry__agent", "task", "rerun_of")
        .order_by("round__starts_on", "round__key", "entry__agent__slug", "task__position", "task__key", "trial", "key")
    )
    standings = runs_standings(runs)
    return bench, [_run_row(bench, r, standings[r.pk]) for r in runs]


def _run_row(bench: Benchmark, r: Run, standing: RunStanding) -> list[Any]:
    """One run's row of runs.csv (`RUN_CSV_COLUMNS`): the columns the boards and the site decide (its score and
    outcome are the board's, not the stored ones), and the run's own public fields by name."""
    passed, total = checks_passed(r)
    state, e = standing["standing"], r.entry
    decided: dict[str, Any] = {
        "benchmark": bench.slug,
        "round": r.round.key,
        "run": r.key,
        "agent": e.agent.slug,
        "agent_name": e.agent.name,
        "cli": e.cli,
        "model": e.model,
        "product_version": e.product_version,
        "task": r.task.key,
        "standing": state,
        "counted": "" if state == UPDATING else ("yes" if state == COUNTS else "no"),
        "why_not_counted": standing["why"] or "",
        "replaced_by": standing["replaced_by"] or "",
        "median_run": "yes" if standing["stands"] else "no",
        "score": "" if standing["score"] is None else round(standing["score"], 6),
        "heuristic": _heuristic(bench, standing),
        "marks": " ".join(marks_of(standing)),
        "seconds": _blank(published_seconds(standing, r.wall_seconds)),
        "outcome": standing["outcome"] or "",
        "label": run_label(r, bench.methodology, standing),
        "checks_passed": _blank(passed),
        "checks_total": _blank(total),
        "tokens": _blank(r.tokens),
        "rerun_of": r.rerun_of.key if r.rerun_of else "",
    }
    # The run's own fields are public ones only: a column neither decided here nor public (a live preview's
    # address) is a KeyError, never a leak.
    row = {c: _blank(getattr(r, c)) for c in RUN_CSV_COLUMNS if c in PUBLIC_RUN_SCALARS} | decided
    return [row[c] for c in RUN_CSV_COLUMNS]


def _heuristic(bench: Benchmark, standing: RunStanding) -> str:
    """runs.csv's mark of a score resting on the heuristic fallback (seed 002: "This is clearly marked in
    results"), from the run's marks (`scoring.run_figures`): yes or no where the methodology has such a fallback,
    blank elsewhere."""
    if not bench.rules.has_heuristic:
        return ""
    return "yes" if HEURISTIC in marks_of(standing) else "no"


def _blank(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return value


def board_csv(
    *, bench_slug: str, round_key: str, params: Mapping[str, str], viewer=None
) -> tuple[str, list[list[Any]]]:
    """The board as shown (the tab in `params`), one row per agent, full-precision values; the agent's CLI and
    model beside it."""
    page = board_page(bench_slug=bench_slug, round_key=round_key, params=params, viewer=viewer)
    table: Table | None = page["table"]
    entries = {e.agent.slug: e for e in page["entries"]}
    name = f"{page['bench'].slug}-{page['round'].key}-{page['tab']}"
    if table is None:
        return name, [["state"], [page["state"]]]
    head = ["agent", "cli", "model"]
    for c in table.columns:
        if c.csv:
            head += list(c.csv_keys) if c.csv_keys else [c.key if c.key != "agent" else "agent_name"]
    rows = [head + table.extra_columns]
    for row in table.rows:
        e = entries.get(row["agent"])
        vals = [row["agent"], e.cli if e else "", e.model if e else ""]
        for col, cell in zip(table.columns, row["cells"], strict=True):
            if not col.csv:
                continue
            if col.csv_keys:
                vals += [_blank(v) for v in (cell.raw or (None,) * len(col.csv_keys))]
            else:
                vals.append(cell.text if col.key == "agent" else _blank(cell.raw))
        vals += [_blank(v) for v in row.get("extra") or [None] * len(table.extra_columns)]
        rows.append(vals)
    return name, rows


TASKS_CSV_COLUMNS = ["task", "title", "agents", "mean", "pass_share", "spread", "discrimination", "flag"]


def round_tasks_csv(*, bench_slug: str, round_key: str, viewer=None) -> tuple[str, list[list[Any]]]:
    """The round's task statistics (docs/statistics.md, `statistics.tasks`), one row per task at full
    precision, then the round's split-half reliability in a last row named in the task column."""
    page = round_tasks_page(bench_slug=bench_slug, round_key=round_key, params={}, viewer=viewer)
    name = f"{page['bench'].slug}-{page['round'].key}-tasks"
    rows: list[list[Any]] = [TASKS_CSV_COLUMNS]
    for r in page["rows"]:
        t = r["raw"]
        rows.append(
            [t["task"], r["title"], t["agents"], *(_blank(t[k]) for k in TASKS_CSV_COLUMNS[3:7]), t["flag"] or ""]
        )
    reliability = ((page["statistics"] or {}).get("reliability") or {}).get("value")
    rows.append(["(split-half reliability)", "", "", _blank(reliability), "", "", "", ""])
    return name, rows
