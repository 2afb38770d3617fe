"""The Jinja2 environment of the templates a request renders on the vote path (`voting/jinja2/`).

The site's pages are Django templates. The vote screen's stage and its reveal bar, which every vote renders
(the reveal, and the next pair drawn with it) and every vote screen shows, are Jinja2 templates through
Django's own Jinja2 backend: they render in about a third of the CPU time (bench/README.md, "Votes under
load"). What they use of Django is here, with the Django template filter of the same name behind each.
"""

from __future__ import annotations

from datetime import datetime

from django.template.defaultfilters import date as date_filter
from django.template.defaultfilters import linebreaks_filter
from django.urls import reverse
from django.utils.timezone import template_localtime
from jinja2 import Environment


def _date(value: datetime | None, format_string: str) -> str:
    """Django's `date` filter, on the value in the current time zone (as a Django template shows it)."""
    return date_filter(template_localtime(value), format_string) if value is not None else ""


def _url(name: str, *args: object) -> str:
    """`{% url name arg ... %}`."""
    return reverse(name, args=args)


def environment(**options: object) -> Environment:
    env = Environment(**options)  # type: ignore[arg-type]
    env.globals["url"] = _url
    env.filters["date"] = _date
    env.filters["linebreaks"] = lambda value: linebreaks_filter(value, autoescape=True)
    return env
