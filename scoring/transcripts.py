"""A run's transcript: the one documented JSON format (docs/transcripts.md), checked before anything is written.

A transcript is what happened in a run: the input, every message with its role, the assistant's tool calls and
each tool's result, the final output, every scorer's value and explanation, the sample's error or the limit it
hit, and the usage per model. Inspect logs are converted to it (`bundles.inspect_logs`); any other harness
writes it next to its bundle (`{"kind": "transcript", "path": ...}`) or inline (`runs[].transcript`).

    {"format": "agent-leaderboard-transcript/1",
     "input": "text",
     "messages": [{"role": "system" | "user" | "assistant" | "tool", "text": "...",
                   "tool_calls": [{"id": "...", "function": "...", "arguments": {...}}],   # assistant
                   "tool_call_id": "...", "function": "...", "error": "..."}],            # tool
     "output": "the final answer",
     "scores": [{"scorer": "...", "value": ..., "answer": "...", "explanation": "...", "metadata": {...}}],
     "error": "..." | null,
     "limit": {"type": "token", "limit": 1000} | null,
     "usage": {"model": {"input_tokens": 1, "output_tokens": 2, ...}}}

Only `messages` is required. Model text is untrusted: it is kept as text and never interpreted. Pure: no Django.
"""

from __future__ import annotations

import json
from typing import Any

FORMAT = "agent-leaderboard-transcript/1"
ROLES = ("system", "user", "assistant", "tool")
TOP_KEYS = frozenset({"format", "input", "messages", "output", "scores", "error", "limit", "usage"})
MESSAGE_KEYS = frozenset({"role", "text", "tool_calls", "tool_call_id", "function", "error"})
# A message's searchable text is cut here: a search index entry stays small whatever a tool printed.
SEARCH_TEXT_LIMIT = 20_000


def transcript_problems(doc: Any, where: str, *, max_bytes: int | None = None) -> list[str]:
    """Every problem of a transcript document, each under `where` (empty when it is well formed). With
    `max_bytes`, a transcript whose JSON is larger is refused with its size."""
    if not isinstance(doc, dict):
        return [f'{where}: a transcript is a JSON object with "messages"']
    problems = [f"{where}.{k}: unknown field" for k in sorted(set(doc) - TOP_KEYS)]
    if doc.get("format", FORMAT) != FORMAT:
        problems.append(f"{where}.format: {doc.get('format')!r} is not {FORMAT!r}")
    messages = doc.get("messages")
    if not isinstance(messages, list):
        return [*problems, f"{where}.messages: a list of messages is required"]
    for i, m in enumerate(messages):
        problems += _message_problems(m, f"{where}.messages[{i}]")
        if len(problems) > 20:
            problems.append(f"{where}: more problems not listed")
            return problems
    for key in ("input", "output", "error"):
        if doc.get(key) is not None and not isinstance(doc[key], str):
            problems.append(f"{where}.{key}: text expected")
    scores = doc.get("scores")
    if scores is not None and not (isinstance(scores, list) and all(isinstance(s, dict) for s in scores)):
        problems.append(f"{where}.scores: a list of objects expected")
    for key in ("limit", "usage"):
        if doc.get(key) is not None and not isinstance(doc[key], dict):
            problems.append(f"{where}.{key}: an object expected")
    if max_bytes is not None and not problems:
        size = len(json.dumps(doc, ensure_ascii=False).encode())
        if size > max_bytes:
            problems.append(f"{where}: the transcript is {size:,} bytes, over the limit of {max_bytes:,}")
    return problems


def _message_problems(m: Any, where: str) -> list[str]:
    if not isinstance(m, dict):
        return [f"{where}: a message is an object with a role"]
    problems = [f"{where}.{k}: unknown field" for k in sorted(set(m) - MESSAGE_KEYS)]
    if m.get("role") not in ROLES:
        problems.append(f"{where}.role: one of {', '.join(ROLES)}")
    for key in ("text", "tool_call_id", "function", "error"):
        if m.get(key) is not None and not isinstance(m[key], str):
            problems.append(f"{where}.{key}: text expected")
    calls = m.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            problems.append(f"{where}.tool_calls: a list expected")
        else:
            for j, call in enumerate(calls):
                if not isinstance(call, dict) or not isinstance(call.get("function"), str):
                    problems.append(f"{where}.tool_calls[{j}]: an object with a function name expected")
    return problems


def message_search_text(m: dict[str, Any]) -> str:
    """What a search reads of a message: its text, its tool calls (function and arguments) and its error."""
    parts = [m.get("text") or ""]
    for call in m.get("tool_calls") or []:
        parts.append(f"{call.get('function', '')} {json.dumps(call.get('arguments'), ensure_ascii=False)}")
    if m.get("error"):
        parts.append(m["error"])
    return "\n".join(p for p in parts if p)[:SEARCH_TEXT_LIMIT]


def transcript_facts(doc: dict[str, Any]) -> dict[str, Any]:
    """The sample-level facts shown beside the messages (everything but the messages)."""
    return {k: doc[k] for k in ("input", "output", "scores", "error", "limit", "usage") if doc.get(k) is not None}
