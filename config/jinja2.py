"""The Jinja2 environment of the templates a request renders on the vote path (`voting/jinja2/`).

The site's pages are Django templates. The vote screen's page, its stage and its reveal bar, which every vote
renders (the reveal, and the next pair drawn with it) and every vote screen shows, are Jinja2 templates through
Django's own Jinja2 backend: they render in about a third of the CPU time (bench/README.md, "Votes under
load"). What they use of Django is here, with the Django template tag or filter of the same name behind each.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.defaultfilters import date as date_filter
from django.template.defaultfilters import linebreaks_filter
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.timezone import template_localtime
from jinja2 import Environment, pass_context
from jinja2.runtime import Context

from voting.views.csrf import masked_token

from .context_processors import nav_urls


def _date(value: datetime | None, format_string: str) -> str:
    """Django's `date` filter, on the value in the current time zone (as a Django template shows it)."""
    return date_filter(template_localtime(value), format_string) if value is not None else ""


def _url(name: str, *args: object) -> str:
    """`{% url name arg ... %}`."""
    return reverse(name, args=args)


@cache
def _static(path: str, script_prefix: str) -> str:
    return static(path)


def _static_url(path: str) -> str:
    """`{% static path %}`, worked out once per process and script prefix (the stored files' names do not change
    while the site runs; a test that changes where they are served forgets them)."""
    return _static(path, get_script_prefix())


@receiver(setting_changed)
def _static_forget(*, setting: str, **kwargs: object) -> None:
    if setting in ("STATIC_URL", "STATIC_ROOT", "STORAGES", "FORCE_SCRIPT_NAME"):
        _static.cache_clear()


@pass_context
def _csrf_token(context: Context) -> str:
    """`{{ csrf_token }}`, masked once per answer."""
    return masked_token(context["request"])


@pass_context
def _csrf_input(context: Context) -> SafeString:
    """`{% csrf_token %}`: the hidden field of a form that posts, with the token masked once per answer."""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', _csrf_token(context))


def environment(**options: object) -> Environment:
    env = Environment(**options)  # type: ignore[arg-type]
    env.globals["url"] = _url
    env.globals["static"] = _static_url
    # Django's backend gives each render `csrf_input` and `csrf_token` values that mask the token afresh at each
    # use; these mask it once for the whole answer, however many forms and renders it has.
    env.globals["csrf_field"] = _csrf_input
    env.globals["csrf_value"] = _csrf_token
    # What the site's context processors give a Django page's frame (voting/jinja2/voting/base.html).
    env.globals["messages_of"] = get_messages  # `messages`
    env.globals["nav_urls"] = nav_urls  # `NAV`
    env.globals["site_name"] = lambda: settings.SITE_NAME  # `SITE_NAME`, as the settings say when asked
    env.filters["date"] = _date
    env.filters["linebreaks"] = lambda value: linebreaks_filter(value, autoescape=True)
    return env
