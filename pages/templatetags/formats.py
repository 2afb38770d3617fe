"""The site's number formats for templates: each filter is the `pages.formatting` function of the same kind,
so a value reads the same on the board, the run page, the task page, the compare and the trade-offs pages
(tokens 2.16M, times 10m 46s, money $0.002)."""

from __future__ import annotations

from decimal import Decimal

from django import template

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
