"""Reading JSON from outside within limits: its size, its nesting depth and how many values it holds are counted
as its bytes arrive, before any of it is parsed, so a small upload cannot make a large document of tiny values
(90 MB of `[[],[],…]` parses into gigabytes of Python objects). Pure: bytes in, plain values out.

`Budget` is what one upload may hold in all (several files share it); `JsonScan` counts one document chunk by
chunk, a chunk at a time at C speed (escapes and strings cut out with bytes' own methods, brackets counted and
their running depth taken with numpy), carrying across chunk boundaries only whether it is inside a string.
`loads` parses a counted document with orjson and refuses what no field can hold: JSON's missing numbers (NaN,
Infinity, a number past the largest float), a lone surrogate, a NUL. Every refusal is a `JsonRefused` naming
the file and the field (`simulations[3].messages[0].content`), found by walking the text up to the fault.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson

NOT_SHAPE = bytes(range(256)).translate(None, b'"[]{},')  # every byte but quotes, brackets, commas: deleted
NOT_SHAPE_OR_ESCAPE = bytes(range(256)).translate(None, b'"[]{},\\')  # and backslashes kept too
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{},:]', re.DOTALL)
MAX_VALUES = 1_500_000
MAX_DEPTH = 64
SHORT = 512  # brackets counted in Python up to this many in a chunk, with numpy past it
OPENING = frozenset(b"[{")


class JsonRefused(ValueError):
    """A document refused: `file`, the field (`where`, "" for the whole document) and why."""

    def __init__(self, file: str, where: str, why: str):
        self.file, self.where, self.why = file, where, why
        super().__init__(f"{file}: {where}: {why}" if where else f"{file}: {why}")


@dataclass
class Budget:
    """What one upload may hold in all: bytes, values (an array's or object's items, counted by their commas
    and brackets) and depth; `bytes_used` and `values_used` grow with each document counted."""

    max_bytes: int
    max_values: int = MAX_VALUES
    max_depth: int = MAX_DEPTH
    bytes_used: int = 0
    values_used: int = 0


class JsonScan:
    """One document counted as its chunks arrive (`feed`), refusing at the first limit passed."""

    def __init__(self, name: str, budget: Budget, *, keep: bool = True):
        self.name, self.budget, self.keep = name, budget, keep
        self.depth = 0
        self.in_string = False
        self.escape_pending = False
        self.chunks: list[bytes] = []

    def feed(self, chunk: bytes) -> None:
        b = self.budget
        b.bytes_used += len(chunk)
        if b.bytes_used > b.max_bytes:
            raise JsonRefused(self.name, "", f"the upload is over {b.max_bytes:,} bytes")
        if self.keep:
            self.chunks.append(chunk)
        if self.escape_pending:
            chunk, self.escape_pending = chunk[1:], False
        # Everything but quotes, brackets, commas and backslashes goes (a few bytes of a document are left);
        # where a backslash is left, escapes go first (an escaped backslash, then an escaped quote: only these
        # hold a backslash or a quote), then the rest again. Two quotes with nothing left between them (a string
        # or a gap, either way nothing counted) go: an even number of quotes goes, the rest keep their turns.
        # Then every string, told apart by the quotes left: what lies between them alternates.
        shape = chunk.translate(None, NOT_SHAPE_OR_ESCAPE)
        if b"\\" in shape:  # (most chunks of a small document hold no escape at all)
            bare = chunk.replace(b"\\\\", b"")
            if bare.endswith(b"\\"):  # an escape cut in two by the chunk's end
                bare, self.escape_pending = bare[:-1], True
            shape = bare.replace(b'\\"', b"").translate(None, NOT_SHAPE)
        shape = shape.replace(b'""', b"")
        if b'"' in shape:
            parts = shape.split(b'"')
            outside = b"".join(parts[1::2] if self.in_string else parts[0::2])
            self.in_string = (len(parts) % 2 == 1) == self.in_string
        else:
            outside = b"" if self.in_string else shape
        opened = outside.count(b"[") + outside.count(b"{")
        b.values_used += outside.count(b",") + opened
        if b.values_used > b.max_values:
            raise JsonRefused(self.name, "", f"more than {b.max_values:,} values in the upload: too large to read")
        self._nesting(outside, opened)

    def _nesting(self, outside: bytes, opened: int) -> None:
        """The running depth over this chunk's brackets (`outside`: its brackets and commas outside strings,
        `opened` of them opening), refused past the limit."""
        if self.depth + opened <= self.budget.max_depth:  # cannot go deeper than every bracket opened: no walk
            self.depth += 2 * opened - (len(outside) - outside.count(b","))
            return
        brackets = outside.replace(b",", b"")
        if len(brackets) <= SHORT:  # a small document's few brackets: counted here, not worth numpy's setup
            depth, deepest = self.depth, self.depth
            for b in brackets:
                depth += 1 if b in OPENING else -1
                deepest = max(deepest, depth)
            if deepest > self.budget.max_depth:
                self._refuse_depth()
            self.depth = depth
            return
        steps = np.frombuffer(brackets, dtype=np.uint8)
        running = self.depth + np.cumsum(np.where((steps == ord("[")) | (steps == ord("{")), 1, -1))
        if int(running.max()) > self.budget.max_depth:
            self._refuse_depth()
        self.depth = int(running[-1])

    def _refuse_depth(self) -> None:
        text = b"".join(self.chunks).decode("utf-8", errors="replace")
        raise JsonRefused(self.name, _path_where(text, deeper=self.budget.max_depth), self._too_deep())

    def _too_deep(self) -> str:
        return f"nested deeper than {self.budget.max_depth} levels"

    def data(self) -> bytes:
        return self.chunks[0] if len(self.chunks) == 1 else b"".join(self.chunks)


def counted(name: str, chunks: Iterable[bytes], budget: Budget, *, keep: bool = True) -> bytes:
    """The bytes of one document, counted against `budget` as they arrive (b"" when not kept: counted only)."""
    scan = JsonScan(name, budget, keep=keep)
    for chunk in chunks:
        scan.feed(chunk)
    return scan.data()


def _slices(data: bytes, size: int = 1 << 20) -> Iterable[bytes]:
    return (data[i : i + size] for i in range(0, len(data), size))


def loads(name: str, data: bytes, budget: Budget | None = None) -> Any:
    """The document in `data`, counted against `budget` first when one is given (bytes already counted on their
    way in are not counted again), or `JsonRefused` naming the file and the field."""
    if budget is not None:
        counted(name, _slices(data), budget)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        raise JsonRefused(name, _path_where(text, at=exc.pos), _why(text, exc)) from None
    where = _nul_at(doc) if b"\\u0000" in data else None  # JSON carries a NUL only escaped
    if where is not None:
        raise JsonRefused(name, where, "contains a NUL character (\\u0000), which cannot be stored")
    return doc


def _why(text: str, exc: orjson.JSONDecodeError) -> str:
    rest = text[exc.pos : exc.pos + 40]
    for word in ("NaN", "Infinity", "-Infinity"):
        if rest.startswith(word):
            return f"not valid JSON ({word} is not a JSON number)"
    if "infinity" in exc.msg:
        return f"the number {rest.split(',')[0].split('}')[0].split(']')[0].strip()} is past the largest float"
    if "surrogate" in exc.msg:
        return "contains a lone surrogate, which is not a character; send the text as UTF-8"
    if "depth" in exc.msg:
        return "nested too deeply"
    return f"not readable JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"


def _path_where(text: str, *, at: int | None = None, deeper: int | None = None) -> str:
    """The field the text is in at offset `at` (or where its nesting first passes `deeper`), as a path:
    `simulations[3].messages[0].content`."""
    stack: list[list[Any]] = []  # [bracket, key or index]
    last = ""
    for m in TOKEN.finditer(text, 0, len(text) if at is None else at):
        tok = m.group()
        c = tok[0]
        if c == '"':
            last = tok
        elif c in "[{":
            stack.append([c, 0 if c == "[" else None])
            if deeper is not None and len(stack) > deeper:
                break
        elif c in "]}":
            if stack:
                stack.pop()
        elif c == ":" and stack and stack[-1][0] == "{":
            stack[-1][1] = _key(last)
        elif c == "," and stack:
            stack[-1][1] = stack[-1][1] + 1 if stack[-1][0] == "[" else None
    return _rendered(stack[: (deeper or len(stack))])


def _key(token: str) -> str:
    try:
        return str(orjson.loads(token))
    except orjson.JSONDecodeError:
        return token.strip('"')


def _rendered(stack: list[list[Any]], shown: int = 12) -> str:
    out = ""
    for n, (bracket, at) in enumerate(stack):
        if at is None:
            break
        if n == shown:
            return out + "…"
        out += f"[{at}]" if bracket == "[" else (f".{at}" if out else str(at))
    return out


def _nul_at(doc: Any) -> str | None:
    """The path of the first text (a value or a key) holding a NUL, or None."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if "\x00" in value:
                return path
        elif isinstance(value, dict):
            for k, v in value.items():
                here = f"{path}.{k}" if path else str(k)
                if "\x00" in k:
                    return here
                stack.append((v, here))
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(value))
    return None
