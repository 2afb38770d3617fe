"""Upserts keyed on a bundle's own keys: a row is created when missing, saved only when a value changed, and
counted in the import report either way."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .report import ImportReport


def set_fields(obj, values: dict[str, Any]) -> bool:
    changed = False
    for name, value in values.items():
        field_ = obj._meta.get_field(name)
        if field_.is_relation:
            new_id = value.pk if value is not None else None
            if getattr(obj, field_.attname) != new_id:
                setattr(obj, name, value)
                changed = True
            continue
        current = getattr(obj, name)
        if isinstance(current, Decimal) and value is not None:
            value = Decimal(str(value)).quantize(Decimal("0.000001"))
        if current != value:
            setattr(obj, name, value)
            changed = True
    return changed


def upsert(model, lookup: dict[str, Any], values: dict[str, Any], report: ImportReport, kind: str):
    obj = model.objects.filter(**lookup).first()
    if obj is None:
        obj = model(**lookup)
        set_fields(obj, values)
        obj.save()
        report.count(kind, created=True)
        return obj, True
    if set_fields(obj, values):
        obj.save()
        report.count(kind, created=False)
        return obj, True
    return obj, False


class Rows:
    """The existing rows of one model, keyed by their identity in the bundle; changed rows are saved one by
    one, new rows are created together in `flush`. Reading every row first keeps an import at a handful of
    queries per table instead of several per run."""

    def __init__(self, model, rows, key, report: ImportReport, kind: str) -> None:
        self.model, self.report, self.kind = model, report, kind
        self.by_key = {key(row): row for row in rows}
        self.new: list = []

    def put(self, ident, lookup: dict[str, Any], values: dict[str, Any]):
        obj = self.by_key.get(ident)
        if obj is None:
            obj = self.model(**lookup)
            set_fields(obj, values)
            self.new.append(obj)
            self.by_key[ident] = obj
            self.report.count(self.kind, created=True)
            return obj, True
        if set_fields(obj, values):
            obj.save()
            self.report.count(self.kind, created=False)
            return obj, True
        return obj, False

    def flush(self) -> None:
        # Bundle validation has already checked what the database guards (entries, re-runs), and PostgreSQL's
        # triggers still check every inserted row.
        if self.new:
            self.model.objects.bulk_create(self.new, batch_size=500)
            self.new = []
