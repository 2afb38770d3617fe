"""Progress of long work on a terminal (imports, exports, recomputes): a bar with counts, elapsed time and an
ETA, drawn by rich on standard error. When standard error is not a terminal (a pipe, a log file, cron, a test)
nothing is drawn at all, so output that other programs read stays as it was."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def drawn(stream: TextIO | None = None) -> bool:
    stream = stream if stream is not None else sys.stderr
    return hasattr(stream, "isatty") and stream.isatty()


@contextmanager
def progress(description: str, total: int, stream: TextIO | None = None) -> Iterator[Callable[..., None]]:
    """Yield `advance(n=1, note=None)`; draws `description` with done/total and an ETA while the block runs."""
    stream = stream if stream is not None else sys.stderr
    if not drawn(stream):
        yield lambda n=1, note=None: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=stream), transient=False) as bar:
        task = bar.add_task(description, total=total)

        def advance(n: int = 1, note: str | None = None) -> None:
            bar.update(task, advance=n, description=f"{description} {note}" if note else description)

        yield advance
