"""A run as the pure scoring code reads it (`scoring.types.RunInput`), for the site's pages and services."""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal

from scoring.bundle import run_input as bundle_run_input
from scoring.types import RunInput

from .models import Run

RUN_INPUT_FIELDS = {f.name for f in fields(RunInput)} - {"id", "round", "agent", "task", "verdicts", "rerun_of"}


def run_input(run: Run, *, with_verdicts: bool = False) -> RunInput:
    """A run as the pure scoring code sees it (`scoring.types.RunInput`), for pages and services: its fields
    as a bundle document would carry them (numbers as floats, a blank string as null), read by the boards'
    own conversion (`scoring.bundle.run_input`), so the two cannot drift apart."""
    doc: dict = {}
    for name in RUN_INPUT_FIELDS:
        value = getattr(run, name)
        doc[name] = float(value) if isinstance(value, Decimal) else (None if value == "" else value)
    # Only outcome boards read verdicts; their callers prefetch them (one query per list of runs).
    verdicts = [
        {"role": v.role, "outcome": v.outcome or None, "matched": v.matched, "note": v.note}
        for v in (run.verdicts.all() if with_verdicts else ())
    ]
    doc.update(id=run.key, round="", agent="", task=run.task.key, verdicts=verdicts, rerun_of=None)
    return bundle_run_input(doc)
