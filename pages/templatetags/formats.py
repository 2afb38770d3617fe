"""The site's one style for money, times and token counts, for templates: `{% load formats %}` then
`{{ run.cost_usd|money }}`, `{{ run.wall_seconds|duration }}`, `{{ run.tokens|tokens }}`. Each calls the
formatter in pages.formatting that the tables and charts use, so a value reads the same on every page
($0.002 is never $0.00 elsewhere; 646 s reads 10m 46s; 2,160,000 tokens read 2.16M)."""

from __future__ import annotations

from django import template

from pages.formatting import fmt_money, fmt_seconds, fmt_tokens

register = template.Library()


@register.filter
def money(value):
    return fmt_money(value)


@register.filter
def duration(value):
    return fmt_seconds(value)


@register.filter
def tokens(value):
    return fmt_tokens(value)
