"""What an import did: rows created and updated per kind, and the boards and ratings it touched."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ImportReport:
    benchmark: str
    created: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    round_ids: set[int] = field(default_factory=set)
    rating_tasks: set[int] = field(default_factory=set)

    def count(self, kind: str, created: bool, changed: bool = True) -> None:
        if created:
            self.created[kind] = self.created.get(kind, 0) + 1
        elif changed:
            self.updated[kind] = self.updated.get(kind, 0) + 1

    def summary(self) -> str:
        made = ", ".join(f"{n} {k}" for k, n in sorted(self.created.items())) or "nothing"
        changed = ", ".join(f"{n} {k}" for k, n in sorted(self.updated.items())) or "nothing"
        return f"{self.benchmark}: created {made}; updated {changed}"
