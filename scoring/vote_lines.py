"""A votes file (JSON lines, one vote a line) read straight into tallies: the recount's reading of millions of votes.

The file comes as blocks of whole lines (`bundles.management.files.read_line_blocks`). Each line is decoded
by msgspec into a small typed record holding only what a tally needs (task, a, b, winner, counts); the other
fields of a line (id, voter, cast_at) are checked as JSON and skipped, never made into Python objects. The
records are counted as they come (`Counter.update`, in C), so memory grows with the distinct tallies, not with
the votes, and each distinct tally is checked against the bundle once.

A line the typed reader refuses (not JSON, a field of the wrong type, a blank line) is read again on its own by
the strict reader (orjson, as strict as the bundle's own parser), which names what is wrong with it and its line
number; so is every line of a block that is not valid UTF-8 (msgspec skips over the fields it does not keep
without checking their text). When a tally names a task or agent the bundle lacks, the whole file is read a
second time line by line (`parsed_lines`, the same two readers in the same order) so every bad line is listed by
its number. Either way the result is the same as reading the file line by line: tested on random files, bad
lines included, in tests/scoring/test_vote_lines.py.

One thing the typed reader reads that orjson alone would refuse: a number too large for a double (`1e999`) in a
field the tally does not read. It is valid JSON (RFC 8259 leaves the range to the reader) and says nothing about
the vote, so the line counts; msgspec does not look at the value of a field it skips.

bench/README.md, "Votes at scale": the reading against its floor (decompressing the file and decoding every
line, nothing kept).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from operator import length_hint
from typing import Any

import msgspec
import orjson
from msgspec.structs import asdict, astuple

from .bundle import BundleError
from .types import WINNERS

# A votes file with more bad lines than this stops listing them (the count of the rest is reported).
MAX_LISTED_PROBLEMS = 20


# A blank line of a votes file, passed on so that the lines after it keep their numbers.
BLANK_LINE = object()


def vote_tallies(doc: dict, votes: Iterable[Any]) -> list[tuple[str, str, str, str, int]]:
    """The counted votes of a votes file (one dict per line, the fields of `votes[]`) as
    ``(task, a, b, winner, n)`` tallies, checked against the bundle's tasks and agents. Memory grows with
    the distinct tallies, not with the votes. Raises `BundleError` naming each bad line (1-based).
    (`scoring.vote_lines` reads a file's bytes to the same tallies, several times faster.)"""
    check = VoteCheck(doc)
    seen: Counter[tuple] = Counter()
    for line, v in enumerate(votes, start=1):
        key = check.line(line, v)
        if key is not None:
            seen[key] += 1
    return check.tallies(seen)


class VoteCheck:
    """The checks of a votes file's lines against the bundle, and the bad lines found so far. A vote is checked
    by its (task, a, b, winner, counts): the few distinct ones once each, not millions of lines one by one
    (bench/README.md, "Votes at scale": the recount against parsing the file alone)."""

    def __init__(self, doc: dict):
        self.tasks = {t.get("key") for t in doc.get("tasks") or []}
        self.agents = {a.get("slug") for a in doc.get("agents") or []}
        self.checked: dict[tuple, str] = {}
        self.problems: list[str] = []
        self.bad = 0

    def line(self, line: int, v: Any) -> tuple | None:
        """The tally key ``(task, a, b, winner, counts)`` of line number `line` parsed as `v`; None for a blank
        line, and for a bad one after noting what is wrong with it."""
        if v is BLANK_LINE:
            return None
        try:
            get = v.get
            key = (get("task"), get("a"), get("b"), get("winner"), get("counts", True) is not False)
            problem = self.checked[key]
        except KeyError:
            problem = self.checked[key] = _vote_problem(v, self.tasks, self.agents)
        except (AttributeError, TypeError):  # not an object; or a list where a string belongs
            problem = (
                _vote_problem(v, self.tasks, self.agents)
                if type(v) is not dict
                else "task, a, b and winner must be strings"
            )
        if problem:
            self.bad += 1
            if len(self.problems) < MAX_LISTED_PROBLEMS:
                self.problems.append(f"votes file line {line}: {problem}")
            return None
        return key

    def tallies(self, seen: Counter[tuple]) -> list[tuple[str, str, str, str, int]]:
        """The sorted tallies of the counted votes among `seen` (good lines by key); raises `BundleError`
        listing the bad lines noted, if any."""
        problems = list(self.problems)
        if self.bad > len(problems):
            problems.append(f"votes file: {self.bad - len(problems)} more bad line(s)")
        if problems:
            raise BundleError(problems)
        tally: Counter[tuple] = Counter()
        for (task, a, b, winner, counts), n in seen.items():
            if counts:
                tally[(task, a, b, winner)] += n
        return [(*key, n) for key, n in sorted(tally.items())]


def _vote_problem(v: Any, tasks: set, agents: set) -> str:
    if not isinstance(v, dict):
        return "not a JSON object"
    return _field_problem(v.get("task"), v.get("a"), v.get("b"), v.get("winner"), tasks, agents)


def _field_problem(task: Any, a: Any, b: Any, winner: Any, tasks: set, agents: set) -> str:
    """What is wrong with a vote's fields against the bundle ("" for nothing)."""
    if task not in tasks:
        return f"task {task!r} is not in the bundle"
    for side, agent in (("a", a), ("b", b)):
        if agent not in agents:
            return f"{side}: agent {agent!r} is not in the bundle"
    if a == b:
        return "an agent cannot be matched against itself"
    if winner not in WINNERS:
        return f"winner {winner!r} is not one of {', '.join(WINNERS)}"
    return ""


class _Vote(msgspec.Struct, frozen=True, gc=False):
    """What a tally needs of a vote line; hashable, so equal votes are counted together."""

    task: str
    a: str
    b: str
    winner: str
    counts: bool = True


_DECODE = msgspec.json.Decoder(_Vote).decode
# What the typed reader raises for a line it will not read: the strict reader then reads that line again.
_REFUSED = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)

Tally = tuple[str, str, str, str, int]


def vote_line_tallies(doc: dict, blocks: Callable[[], Iterable[bytes]]) -> list[Tally]:
    """The counted votes of a votes file as sorted ``(task, a, b, winner, n)`` tallies, equal to
    `vote_tallies` over the file's lines parsed one by one. `blocks()` gives the file's content as blocks of
    whole lines (each block ends with a newline, except perhaps the last); it is called a second time only when
    a vote names a task or agent the bundle lacks, to number every such line. Raises `BundleError` naming each
    bad line (1-based, blank lines counted)."""
    check = VoteCheck(doc)
    records: Counter[_Vote] = Counter()  # votes the typed reader read
    keys: Counter[tuple] = Counter()  # lines only the strict reader could read
    first = 1  # the number of the block's first line
    for block in blocks():
        lines, typed = _block_lines(block)
        if typed:
            remaining = iter(lines)
            while True:
                try:
                    records.update(map(_DECODE, remaining))
                    break
                except _REFUSED:
                    at = len(lines) - length_hint(remaining) - 1  # the line just refused
                    _strict(check, keys, first + at, lines[at])
        else:
            for at, line in enumerate(lines):
                _strict(check, keys, first + at, line)
        first += len(lines)
    for record, n in records.items():
        task, a, b, winner, counts = key = astuple(record)
        if _field_problem(task, a, b, winner, check.tasks, check.agents):
            # Some votes name what the bundle lacks: read every line again to list each by its number.
            return vote_tallies(doc, parsed_lines(blocks()))
        keys[key] += n
    return check.tallies(keys)


def parsed_lines(blocks: Iterable[bytes]) -> Iterator[Any]:
    """Each line of `blocks` read as `vote_line_tallies` reads it, one at a time: a vote the typed reader
    accepts as a dict of its fields; else the line parsed by orjson (no NaN, no invalid UTF-8, a depth limit);
    the line's text when it is not JSON (reported as such); or `BLANK_LINE` for a blank line, which is skipped
    but keeps the numbering."""
    for block in blocks:
        lines, typed = _block_lines(block)
        for line in lines:
            yield _parse(line, typed)


def _parse(line: bytes, typed: bool = False) -> Any:
    if typed:
        try:
            return asdict(_DECODE(line))
        except _REFUSED:
            pass
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return line.decode("utf-8", errors="replace") if line.strip() else BLANK_LINE


def _strict(check: VoteCheck, keys: Counter[tuple], number: int, line: bytes) -> None:
    key = check.line(number, _parse(line))
    if key is not None:
        keys[key] += 1


def _block_lines(block: bytes) -> tuple[list[bytes], bool]:
    """A block's lines (its final newline dropped), and whether the typed reader may read them: only valid
    UTF-8, since msgspec does not check the text of the fields it skips."""
    lines = block.split(b"\n")
    if not lines[-1]:
        lines.pop()
    if block.isascii():
        return lines, True
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        return lines, False
    return lines, True
