"""What every board's table is made of: columns, and cells that carry their text, their link to the runs
behind the number, and a sort value; the board's context (`BoardContext`) and the cell helpers every
methodology's builders use (`rank_cell`, `agent_cell`, `num_cell`, `rating_cell`). The rows come from the
stored snapshot, so nothing here computes a score."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

from leaderboard.models import Benchmark, Entry, Round, Task
from scoring.common import alphabetical
from scoring.types import BaseRow, RatingRow

from .figures import range_text
from .formatting import fmt_range, fmt_rating
from .links import round_agent_url, run_url


@dataclass
class Column:
    key: str
    label: str
    num: bool = True
    title: str = ""
    query: str = ""
    aria_sort: str = ""
    arrow: str = ""
    csv: bool = True  # a column of links only (head-to-head) is left out of the CSV
    sortable: bool = True  # a column of links only has no order to sort by
    card: bool = False  # one of the agent's headline figures, kept on its phone card (`tables.mark_card_columns`)
    # The CSV's columns for this one when it holds more than one value (a range: its two ends), each cell's
    # `raw` then a tuple of as many values.
    csv_keys: tuple[str, ...] = ()


@dataclass
class Cell:
    text: str
    sort: Any = None
    href: str | None = None
    title: str = ""
    sub: str = ""
    badges: list[tuple[str, str]] = field(default_factory=list)
    rating: dict | None = None
    raw: Any = None
    pill: str = ""
    ci: dict[str, str] | None = None  # the 95% interval beside the number (pages.intervals.ci_label)
    # The figures' marks beside the text (`figures.mark_badges`, `figures.row_badges`: mark, text, css class),
    # tagged for the crawler as every page tags them; `badges` are the table's own words (partial, in review).
    marks: list[tuple[str, str, str]] = field(default_factory=list)
    time: dict[str, Any] | None = None  # a run's time as published, the recorded one beside it (figures.time_view)


@dataclass
class Table:
    caption: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    note: str = ""
    empty: str = "No agents on this board yet."
    empty_links: list[dict[str, str]] = field(default_factory=list)  # other views of an empty one: label, query
    # Columns only the CSV has, their values in each row's "extra" (the interval's bounds).
    extra_columns: list[str] = field(default_factory=list)
    # The columns the board is ranked by, in the order they decide it: shown first after the agent
    # (`tables.lead_with_ranked_by`), so a reader sees what decides the order without scrolling.
    ranked_by: list[str] = field(default_factory=list)


def rank_cell(row: BaseRow) -> Cell:
    return Cell(
        text=str(row["rank"]) if row.get("rank") is not None else "–", sort=row.get("rank"), raw=row.get("rank")
    )


def agent_cell(row: BaseRow, ctx: BoardContext) -> Cell:
    entry = ctx.entries.get(row["agent"])
    sub = " · ".join(x for x in (entry.product_version, entry.model) if x) if entry else ""
    return Cell(
        text=row["name"],
        sort=alphabetical(row["name"]),
        href=reverse("agent", args=[row["agent"]]),
        sub=sub,
        raw=row["agent"],
    )


def num_cell(value: float | None, text: str, href: str | None = None, title: str = "", **kw: Any) -> Cell:
    return Cell(text=text, sort=value, href=href, title=title, raw=value, **kw)


def range_cell(
    low: float | None, high: float | None, methodology: str, href: str | None = None, runs: int | None = None
) -> Cell:
    """A range shown as "44.0–86.0" (`fmt_range`), sorted by its low end; the CSV gets both ends (`RANGE_CSV`).
    Given the number of runs it spans, it reads as every page reads an agent's range on a task
    (`figures.range_text`: "one run" for a single one)."""
    text = fmt_range(low, high, methodology) if runs is None else range_text(runs, low, high, methodology) or "–"
    return Cell(text=text, sort=low, href=href, raw=(low, high))


RANGE_CSV = ("range_min", "range_max")
# A vote rating in the CSV: the rating and its own 95% interval.
RATING_CSV = ("rating", "rating_ci_low", "rating_ci_high")


def rating_cell(row: RatingRow | None) -> Cell:
    rating = fmt_rating(row)
    if rating is None:
        return Cell(text="–", sort=None)
    return Cell(
        text=rating["text"],
        sort=row["rating"] if row else None,
        rating=rating,
        title=rating["title"],
        raw=(row["rating"], row["ci_low"], row["ci_high"]) if row else None,
    )


@dataclass
class BoardContext:
    bench: Benchmark
    rnd: Round
    data: dict[str, Any]  # the round's boards as shown, in the shape of the methodology's board types
    entries: dict[str, Entry]
    ratings: dict[str, RatingRow]
    task_ratings: dict[str, dict[str, RatingRow]]
    tasks: list[Task]

    @property
    def methodology(self) -> str:
        """The key of the benchmark's methodology (`scoring.methodologies`)."""
        return self.bench.methodology

    def agent_href(self, agent: str) -> str:
        return round_agent_url(self.bench.slug, self.rnd.key, agent)

    def run_href(self, run_id: str | None) -> str | None:
        return run_url(self.bench.slug, self.rnd.key, run_id)
