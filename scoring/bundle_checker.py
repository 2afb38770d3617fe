"""The machinery of bundle validation: a `Checker` that records every problem with its path, the keys the
sections `Declared` so far, and the field lists and patterns the checks use (pure: no database)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .types import (
    KEY_MAX_LENGTH,
    KEY_PATTERN,
    RUN_COUNT_FIELDS,
    RUN_COUNT_PAIRS,
    RUN_MEASURE_FIELDS,
    RUN_TEXT_FIELDS,
    VERSION_PATTERN,
)

SLUG_RE = re.compile(KEY_PATTERN)
VERSION_RE = re.compile(VERSION_PATTERN)
SECTIONS = ("agents", "tasks", "rounds", "runs", "votes")
DISPUTE_REASONS = ("wrong_version", "wrong_plan", "environment", "other")
DISPUTE_STATUSES = ("open", "accepted", "rejected")
EVIDENCE_KINDS = ("recording", "screenshot", "log", "audio", "transcript", "other")
CHECK_KINDS = ("start", "api", "page", "browser", "test")
COUNT_PAIRS = RUN_COUNT_PAIRS
INT_FIELDS = RUN_COUNT_FIELDS
FLOAT_FIELDS = RUN_MEASURE_FIELDS
STRING_FIELDS = RUN_TEXT_FIELDS
MAX_TEXT = 100_000
# The database's integer columns (counts, trials, steps) and its bigint ones (token counts and budgets): a number
# past them is refused by its field's check, not by a failed INSERT.
INT_MAX = 2**31 - 1
BIGINT_MAX = 2**63 - 1
# Deeper than any bundle is (a run's evidence is four levels down, a task's criteria a few more): parameters
# nested past this are refused before a check or a write recurses into them.
MAX_DEPTH = 32
MAX_DOCUMENT_PROBLEMS = 20


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v: Any) -> bool:
    return (isinstance(v, int | float) and not isinstance(v, bool)) and math.isfinite(v)


def is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def text_problem(v: str) -> str | None:
    """Why PostgreSQL cannot store the text `v` (a NUL, or half of a UTF-16 surrogate pair, which JSON's
    ``\\ud800`` escape can carry but UTF-8 cannot encode), else None."""
    if "\x00" in v:
        return "contains a NUL character (\\u0000), which cannot be stored"
    if v.isascii():
        return None
    try:
        v.encode("utf-8")
    except UnicodeEncodeError as exc:
        half = ascii(v[exc.start])[1:-1]
        return f"contains a lone surrogate ({half}), which is not a character; send the text as UTF-8"
    return None


def document_problems(doc: Any) -> list[str]:
    """What no field of a document can hold, wherever it is, each with its path: text the database cannot store
    (`text_problem`, in values and in keys), integers outside 64 bits and nesting deeper than MAX_DEPTH.
    Checked before the sections, whose checks (and the writes after them) assume values the database takes. At
    most MAX_DOCUMENT_PROBLEMS are listed. (NaN and Infinity, which JSON has not, are refused by
    `scoring.bundle.parse_document`; in a document built in Python, by each number's own check.)"""
    problems: list[str] = []
    stack: list[tuple[Any, str, int]] = [(doc, "", 0)]
    while stack and len(problems) < MAX_DOCUMENT_PROBLEMS:
        v, path, depth = stack.pop()
        where = path or "(document)"
        if isinstance(v, dict | list) and depth >= MAX_DEPTH:
            problems.append(f"{where}: nested deeper than {MAX_DEPTH} levels")
        elif isinstance(v, dict):
            for key, item in reversed(v.items()):
                bad_key = text_problem(key) if isinstance(key, str) else None
                if bad_key:
                    problems.append(f"{where}: a key {bad_key}")
                    continue
                stack.append((item, f"{path}.{key}" if path else str(key), depth + 1))
        elif isinstance(v, list):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in reversed(list(enumerate(v))))
        elif isinstance(v, str) and (bad := text_problem(v)):
            problems.append(f"{where}: {bad}")
        elif is_int(v) and not -BIGINT_MAX - 1 <= v <= BIGINT_MAX:
            problems.append(f"{where}: the number is too large (more than 64 bits)")
    return problems


def bundle_id(v: Any) -> Any:
    """An id may be written as an integer; it is the same id as its digits."""
    return str(v) if is_int(v) else v


class Checker:
    """Collects problems, each with its path; every check returns the value when it is usable, else None."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, msg: str) -> None:
        self.problems.append(f"{path}: {msg}")

    def obj(self, v: Any, path: str) -> bool:
        if not isinstance(v, dict):
            self.add(path, f"must be an object, got {type(v).__name__}")
            return False
        return True

    def lst(self, parent: dict, key: str, path: str, required: bool = False) -> list:
        v = parent.get(key)
        if v is None:
            if required:
                self.add(f"{path}{key}", "is required")
            return []
        if not isinstance(v, list):
            self.add(f"{path}{key}", f"must be a list, got {type(v).__name__}")
            return []
        return v

    def objects(self, items: Iterable[Any], path: str) -> Iterator[tuple[int, str, dict]]:
        """The objects among `items`, each with its index and path (``path[i]``); any other item is reported."""
        for i, item in enumerate(items):
            item_path = f"{path}[{i}]"
            if self.obj(item, item_path):
                yield i, item_path, item

    def each(self, parent: dict, key: str, path: str) -> Iterator[tuple[int, str, dict]]:
        """The objects in the optional list ``parent[key]``, each with its path (``path.key[i]``)."""
        yield from self.objects(self.lst(parent, key, f"{path}."), f"{path}.{key}")

    def string(
        self,
        parent: dict,
        key: str,
        path: str,
        required: bool = False,
        slug: bool = False,
        choices: Iterable[str] | None = None,
        max_len: int = 500,
    ) -> str | None:
        v = parent.get(key)
        p = f"{path}.{key}" if path else key
        if v is None:
            if required:
                self.add(p, "is required")
            return None
        if not isinstance(v, str):
            self.add(p, f"must be a string, got {type(v).__name__}")
            return None
        if required and not v.strip():
            self.add(p, "must not be empty")
            return None
        if len(v) > max_len:
            self.add(p, f"is longer than {max_len} characters")
            return None
        if slug and (len(v) > KEY_MAX_LENGTH or not SLUG_RE.match(v)):
            self.add(p, f"{v!r} is not a valid key (letters, digits, '-', '_', '.')")
            return None
        if choices is not None:
            allowed = tuple(choices)
            if v not in allowed:
                self.add(p, f"{v!r} is not one of {', '.join(allowed)}")
                return None
        return v

    def integer(
        self, parent: dict, key: str, path: str, minimum: int = 0, required: bool = False, maximum: int = INT_MAX
    ) -> int | None:
        v = parent.get(key)
        p = f"{path}.{key}"
        if v is None:
            if required:
                self.add(p, "is required")
            return None
        if not is_int(v):
            self.add(p, f"must be an integer or null, got {v!r}")
            return None
        if v < minimum:
            self.add(p, f"{v} is below {minimum}")
            return None
        if v > maximum:
            self.add(p, f"{v} is above {maximum}, the largest this field holds")
            return None
        return v

    def number(
        self, parent: dict, key: str, path: str, minimum: float | None = 0.0, maximum: float | None = None
    ) -> float | None:
        v = parent.get(key)
        p = f"{path}.{key}"
        if v is None:
            return None
        if not is_num(v):
            self.add(p, f"must be a number or null, got {v!r}")
            return None
        if minimum is not None and v < minimum:
            self.add(p, f"{v} is below {minimum}")
            return None
        if maximum is not None and v > maximum:
            self.add(p, f"{v} is above {maximum}")
            return None
        return float(v)


@dataclass
class Declared:
    """What the sections checked so far declare, by key: a later section may refer only to these."""

    agents: dict[str, dict] = field(default_factory=dict)
    tasks: dict[str, dict] = field(default_factory=dict)
    rounds: dict[str, dict] = field(default_factory=dict)
    entries: set[tuple[str, str]] = field(default_factory=set)
    runs: dict[tuple[str | None, str], dict] = field(default_factory=dict)  # by (round, id)
    methodology: str | None = None
