"""The system check that the pages follow the methodology registry (`manage.py check`, and every start).

A methodology is one entry of `scoring.methodologies.REGISTRY`; the pages add, per methodology, a table builder
(`pages.tables.TABLE_BUILDERS`) and the methodology page's text (`pages/templates/pages/methodology/<key>.html`).
Those are keyed by the entry's key, so a new entry without them, a renamed key, or a builder left behind for an
entry that is gone would show an error page or an empty board: this check names the mismatch instead.
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.template import TemplateDoesNotExist
from django.template.loader import get_template

from scoring import methodologies

from .links import methodology_template
from .tables import TABLE_BUILDERS


def methodologies_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    errors: list[checks.CheckMessage] = []
    registered = set(methodologies.REGISTRY)
    for key in sorted(registered - set(TABLE_BUILDERS)):
        errors.append(
            checks.Error(
                f"methodology {key!r} is registered but has no table builder",
                hint="Add its builder to pages.tables.TABLE_BUILDERS.",
                id="pages.E001",
            )
        )
    for key in sorted(set(TABLE_BUILDERS) - registered):
        errors.append(
            checks.Error(
                f"pages.tables.TABLE_BUILDERS has a builder for {key!r}, which no methodology is registered as",
                hint="Register the methodology in scoring.methodologies, or remove the builder.",
                id="pages.E002",
            )
        )
    for key in sorted(registered):
        try:
            get_template(methodology_template(key))
        except TemplateDoesNotExist:
            errors.append(
                checks.Error(
                    f"methodology {key!r} has no methodology page text",
                    hint=f"Write pages/templates/{methodology_template(key)} (what the seed says, the choices made).",
                    id="pages.E003",
                )
            )
    return errors
