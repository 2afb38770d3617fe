"""What import and export share: the run fields a bundle carries, and its dates and numbers."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from scoring.types import DISPUTE_FIELDS, ENTRY_FIELDS, PRIVATE_RUN_FIELDS, PUBLIC_RUN_SCALARS, RUN_SCALARS

__all__ = ["DISPUTE_FIELDS", "ENTRY_FIELDS", "PRIVATE_RUN_FIELDS", "PUBLIC_RUN_SCALARS", "RUN_SCALARS"]

BLANK_STRING_FIELDS = {
    "language",
    "outcome",
    "plan_label",
    "checks_version",
    "judge_model",
    "execution_mode",
    "preview_url",
}
DATETIME_FIELDS = {"due_at", "started_at"}
RUN_DEFAULTS = {"task_version": "1.0", "trial": 1}


def parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = parse_datetime(value)
    if parsed is None:
        d = parse_date(value)
        if d is None:
            raise ValueError(value)
        parsed = datetime(d.year, d.month, d.day)
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed, timezone.UTC)
    return parsed


def parse_day(value: str | None) -> date | None:
    parsed = parse_time(value)
    return parsed.date() if parsed else None


def iso(value: datetime | date | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(timezone.UTC).isoformat().replace("+00:00", "Z")
    return value.isoformat()


def plain_number(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value
