"""A run's transcript as the run page shows it: one page of messages at a time, each with its role, its tool calls
and results set apart, a stable anchor (``#m-12``), and ``?q=`` matches highlighted and listed.

Model text is untrusted: every piece is escaped here first, and only the <mark> around a match is added, so
nothing a model wrote can become markup (STYLE 15)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db import connection
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from runs.models import Run, SearchEntry, SearchKind, Transcript
from runs.services.transcripts import transcript_page

QUERY_MAX = 200
# A message longer than this is folded (<details>) with its first lines shown.
FOLD_CHARS = 1_500
MATCHES_LISTED = 200
ROLE_LABEL = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool result"}
LIMIT_WORDS = {
    "token": "its token limit",
    "message": "its message limit",
    "time": "its time limit",
    "working": "its working-time limit",
    "context": "the model's context window",
    "cost": "its cost limit",
}


def highlighted(text: str, query: str) -> SafeString:
    """`text` escaped, every case-insensitive occurrence of `query` in <mark>."""
    safe = escape(text)
    if not query:
        return mark_safe(safe)  # noqa: S308 - escaped just above
    pattern = re.compile(re.escape(escape(query)), re.IGNORECASE)
    return mark_safe(pattern.sub(lambda m: f"<mark>{m.group(0)}</mark>", safe))  # noqa: S308 - escaped above


def transcript_view(run: Run, params: Mapping[str, str]) -> dict[str, Any] | None:
    """The transcript part of the run page, or None when the run has none."""
    try:
        t: Transcript = run.transcript
    except Transcript.DoesNotExist:
        return None
    query = (params.get("q") or "").strip()[:QUERY_MAX]
    pages = max(1, -(-t.message_count // max(t.page_size, 1)))
    page = _page_asked(params, t, pages)
    start = page * t.page_size
    messages = [_message(start + i, m, query) for i, m in enumerate(transcript_page(t, page))]
    return {
        "transcript": t,
        "messages": messages,
        "page": page + 1,
        "pages": pages,
        "page_links": _page_links(pages, page, query),
        "query": query,
        "matches": _matches(run, t, query) if query else None,
        "facts": _facts(t.meta or {}, query),
    }


def _page_asked(params: Mapping[str, str], t: Transcript, pages: int) -> int:
    """The 0-based page: the one holding message `m` when asked for (links to an anchor), else `page`."""
    for key, to_page in (("m", lambda v: v // max(t.page_size, 1)), ("page", lambda v: v - 1)):
        raw = params.get(key)
        if raw and raw.isdigit():
            return min(max(to_page(int(raw)), 0), pages - 1)
    return 0


def _page_links(pages: int, page: int, query: str) -> list[dict[str, Any]]:
    if pages <= 1:
        return []
    shown = sorted({0, pages - 1, *range(max(0, page - 2), min(pages, page + 3))})
    extra = {"q": query} if query else {}
    return [{"number": p + 1, "current": p == page, "query": "?" + urlencode({**extra, "page": p + 1})} for p in shown]


def _message(index: int, m: dict[str, Any], query: str) -> dict[str, Any]:
    text = m.get("text") or ""
    calls = [
        {
            "function": c.get("function") or "",
            "id": c.get("id") or "",
            "arguments": highlighted(json.dumps(c.get("arguments"), ensure_ascii=False, indent=2), query),
        }
        for c in m.get("tool_calls") or []
    ]
    return {
        "index": index,
        "anchor": f"m-{index}",
        "role": m.get("role") or "",
        "label": ROLE_LABEL.get(m.get("role") or "", m.get("role") or ""),
        "function": m.get("function") or "",
        "html": highlighted(text, query),
        "fold": len(text) > FOLD_CHARS,
        "preview": text[:300],
        "error": highlighted(m["error"], query) if m.get("error") else None,
        "tool_calls": calls,
        "empty": not text and not calls and not m.get("error"),
    }


def _matches(run: Run, t: Transcript, query: str) -> dict[str, Any]:
    """The messages that hold `query`, each a link to its page and anchor (at most MATCHES_LISTED listed)."""
    entries = SearchEntry.objects.filter(run=run, kind=SearchKind.MESSAGE)
    if connection.vendor == "postgresql" and re.search(r"\w{2}", query):
        # The run's stored tsvector first (its GIN index), then the exact text: a 10,000-message transcript is
        # not read whole for a word it holds once. Why SQL: bench/README.md, "Transcripts and search".
        entries = entries.extra(where=["runs_searchentry.search @@ plainto_tsquery('english', %s)"], params=[query])
    found = list(entries.filter(text__icontains=query).values_list("anchor", flat=True))
    indices = sorted(int(a[2:]) for a in found if a.startswith("m-") and a[2:].isdigit())
    links = [{"index": i, "href": "?" + urlencode({"q": query, "m": i}) + f"#m-{i}"} for i in indices[:MATCHES_LISTED]]
    return {"count": len(indices), "links": links}


def _facts(meta: dict[str, Any], query: str) -> dict[str, Any]:
    """The sample's facts in words: scores with their explanation, the error or limit, usage per model."""
    limit = meta.get("limit") or None
    limit_text = ""
    if limit:
        what = LIMIT_WORDS.get(str(limit.get("type")), f"its {limit.get('type')} limit")
        value = limit.get("limit")
        limit_text = f"The run was stopped at {what}" + (f" ({value})." if value is not None else ".")
    scores = [
        {
            "scorer": s.get("scorer") or "",
            "value": _value_text(s.get("value")),
            "answer": s.get("answer"),
            "explanation": highlighted(s["explanation"], query) if s.get("explanation") else None,
        }
        for s in meta.get("scores") or []
    ]
    return {
        "input": meta.get("input"),
        "output": highlighted(meta["output"], query) if meta.get("output") else None,
        "scores": scores,
        "error": meta.get("error"),
        "limit": limit_text,
        "usage": [
            {"model": model, "input": u.get("input_tokens"), "output": u.get("output_tokens")}
            for model, u in (meta.get("usage") or {}).items()
        ],
    }


def _value_text(value: Any) -> str:
    """A scorer's value as a reader reads it: Inspect's letters named, numbers without float noise."""
    letters = {"C": "correct (C)", "I": "incorrect (I)", "P": "partly correct (P)", "N": "no answer (N)"}
    if isinstance(value, str):
        return letters.get(value, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return json.dumps(value, ensure_ascii=False)
