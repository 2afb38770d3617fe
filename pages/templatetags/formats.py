"""The site's number formats for templates: each filter is the `pages.formatting` or `pages.figures` function of
the same kind, so a value reads the same on the board, the run page, the task page, the agent pages, the compare
and the trade-offs pages (tokens 2.16M, times 10m 46s, money $0.002; a run's published time with the recorded
one beside it, its marks)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django import template
from django.utils.safestring import SafeString

from pages.figures import marks_html, time_html
from pages.formatting import fmt_money, fmt_seconds, fmt_tokens

register = template.Library()


@register.filter
def money(value: float | Decimal | None) -> str:
    return fmt_money(value)


@register.filter
def seconds(value: float | None) -> str:
    return fmt_seconds(value)


@register.filter
def tokens(value: int | None) -> str:
    return fmt_tokens(value)


@register.filter
def run_time(summary: Mapping[str, Any]) -> SafeString:
    """A run's time from its summary (`pages.selectors.run_summary`): as published, the recorded one beside it."""
    return time_html(summary["time"])


@register.filter
def time_figure(view: Mapping[str, Any]) -> SafeString:
    """A time view (`pages.figures.time_view`) as a page shows it: as published, the recorded one beside it."""
    return time_html(view)


@register.filter
def run_marks(summary: Mapping[str, Any]) -> SafeString:
    """A run's marks from its summary (`pages.selectors.run_summary`), as badges."""
    return marks_html(summary["marks"])


@register.filter
def badges(marks: list) -> SafeString:
    """An agent's marks on a board (`pages.figures.row_badges`), as badges."""
    return marks_html(marks)
