"""What the converter's readers share: the error that lists every problem, and checked numbers."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any


class ConversionError(ValueError):
    """The directory cannot be converted; `problems` lists every problem with its file and field."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def number(v: Any, where: str, problems: list[str], lo: float | None = None, hi: float | None = None) -> float | None:
    if not is_number(v):
        problems.append(f"{where}: {v!r} is not a number")
        return None
    if lo is not None and v < lo:
        problems.append(f"{where}: {v!r} is below {lo:g}")
        return None
    if hi is not None and v > hi:
        problems.append(f"{where}: {v!r} is above {hi:g}")
        return None
    return v


def rel_path(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
