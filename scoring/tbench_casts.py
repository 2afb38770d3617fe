"""A terminal recording in asciinema's asciicast v2 format (a header line, a JSON object with `version` 2, `width`
and `height`; then one event per line, `[seconds, "o" | "i", text]`: what the terminal printed, what was typed),
read into the transcript the run page and the search read (docs/transcripts.md): what was typed as the
assistant's messages, what the terminal printed between as the tool's ("terminal"), its escape sequences
taken out and each line as it was left (a carriage return writes over the line). Pure: bytes in, plain values out.
The recording itself is kept as it was sent and played by asciinema's own player."""

from __future__ import annotations

import re
from typing import Any

import msgspec
import orjson

TRANSCRIPT_FORMAT = "agent-leaderboard-transcript/1"
# The events a recording may hold (a real trial's: hundreds to tens of thousands): more is refused before parsing.
MAX_EVENTS = 500_000
# A message's text is cut here (the whole recording stays playable): a search entry stays small.
MESSAGE_CHARS = 20_000
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class CastError(ValueError):
    """Not an asciicast v2 recording; the message says where."""


def _header(line: bytes) -> dict[str, Any]:
    try:
        head = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise CastError("line 1: the header is not JSON") from None
    if not isinstance(head, dict) or head.get("version") != 2:
        raise CastError("line 1: not an asciicast v2 header (version 2)")
    for key in ("width", "height"):
        if not isinstance(head.get(key), int) or isinstance(head.get(key), bool) or head[key] <= 0:
            raise CastError(f"line 1: the header's {key} is not a positive whole number")
    return head


def _line(number: int, line: bytes) -> object:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        raise CastError(f"line {number}: not JSON") from None


EVENTS = msgspec.json.Decoder(list[tuple[float, str, str]])


def _typed(lines: list[bytes]) -> list[tuple[float, str, str]] | None:
    """The events' lines parsed at once, as one JSON array of [seconds, code, text], their kinds checked as it
    parses; None when any line is not such an event (then read line by line, to say which)."""
    try:
        parsed = EVENTS.decode(b"[" + b",".join(lines) + b"]")
    except msgspec.DecodeError:
        return None
    return parsed if len(parsed) == len(lines) else None  # else a line held two events


def _checked(number: int, line: bytes) -> tuple[float, str, str]:
    event = _line(number, line)
    if not (isinstance(event, list) and len(event) == 3 and isinstance(event[1], str) and isinstance(event[2], str)):
        raise CastError(f"line {number}: an event is [seconds, code, text]")
    if isinstance(event[0], bool) or not isinstance(event[0], int | float):
        raise CastError(f"line {number}: its time {event[0]!r} is not a number")
    return float(event[0]), event[1], event[2]


def events(data: bytes) -> list[tuple[float, str, str]]:
    """The recording's events, checked: times that never go back, codes "o" and "i" (others, "r" resize or
    "m" marker, are left out)."""
    lines = data.splitlines()
    if not lines:
        raise CastError("empty")
    _header(lines[0])
    if len(lines) > MAX_EVENTS + 1:
        raise CastError(f"{len(lines) - 1:,} events, more than the {MAX_EVENTS:,} a recording may hold")
    typed = _typed(lines[1:])  # (a blank line, rare, makes this None: then each line is read and numbered)
    numbers: range | list[int] = range(2, len(lines) + 1)
    if typed is None:
        numbered = [(number, line) for number, line in enumerate(lines[1:], start=2) if line.strip()]
        typed = [_checked(number, line) for number, line in numbered]
        numbers = [number for number, _ in numbered]
    last = 0.0
    for i, (at, _, _) in enumerate(typed):
        if at < last:
            raise CastError(f"line {numbers[i]}: its time {at!r} is not a number at or after the one before")
        last = at
    return [event for event in typed if event[1] in ("o", "i")]


def screen_text(raw: str) -> str:
    """Printed terminal output as text: escape sequences out, each line as a carriage return left it."""
    text = ANSI.sub("", raw).replace("\r\n", "\n")
    if "\r" in text:  # (no carriage return but at the lines' ends: every line is as it was printed)
        lines = []
        for line in text.split("\n"):
            lines.append(line.rsplit("\r", 1)[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r"))
        text = "\n".join(lines)
    return CONTROL.sub("", text)


def cast_transcript(data: bytes) -> dict[str, Any]:
    """The transcript of a recording: the typed input and the printed output, in turn; CastError when it is no
    asciicast v2 recording."""
    messages: list[dict[str, Any]] = []
    run: list[str] = []
    code = ""
    for _, kind, text in events(data):
        if kind != code and run:
            messages.append(_message(code, "".join(run)))
            run = []
        code = kind
        run.append(text)
    if run:
        messages.append(_message(code, "".join(run)))
    return {"format": TRANSCRIPT_FORMAT, "messages": [m for m in messages if m["text"].strip()]}


def _message(code: str, raw: str) -> dict[str, Any]:
    text = screen_text(raw).strip("\n")
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + " …"
    if code == "i":
        return {"role": "assistant", "text": text}
    return {"role": "tool", "function": "terminal", "text": text}
