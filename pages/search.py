"""Search across a benchmark: every published run whose transcript, judge narrative or reviewers' notes hold the
words, with its agent, task, trial and score and links straight to the matching messages.

On PostgreSQL the words are a `websearch_to_tsquery` (quoted phrases, `-word`, `or`) over the stored tsvector of
each `SearchEntry` (migration runs/0006, a GIN index), and the snippets are `ts_headline`. On SQLite, the
embedded default, every word must appear in one entry (case-insensitive substring), and the snippet is cut
around the first word. Only published rounds are searched, exactly what run pages show; a preview round's texts
appear in no result, count or snippet.

Why SQL: the tsvector match and the headline have no ORM expression that keeps the GIN index usable (Django's
SearchVector wraps the column in COALESCE); bench/README.md, "Search" (2026-12-05): 100,000 runs, each query
under the 300 ms target.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db import connection
from django.db.models import QuerySet
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from leaderboard.models import Benchmark, Entry, Round, in_published_round
from runs.models import Run, SearchEntry

from .links import run_url
from .selectors import benchmark_get, run_summary, runs_standings

PER_PAGE = 20
QUERY_MAX = 200
WORDS_MAX = 12
ANCHORS_SHOWN = 3
# With an outcome filter the matching runs are read and judged one by one: at most this many.
OUTCOME_SCAN = 5_000
START, STOP = "\x02", "\x03"  # ts_headline's markers: characters no text holds, replaced after escaping
HEADLINE = f"StartSel={START}, StopSel={STOP}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter= … "


def search_page(*, bench_slug: str, params: Mapping[str, str]) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    query = " ".join((params.get("q") or "").split())[:QUERY_MAX]
    agents, tasks = _filter_choices(bench)
    agent = params.get("agent") if params.get("agent") in {a for a, _ in agents} else ""
    task = params.get("task") if params.get("task") in tasks else ""
    passes = _runs_pass(bench)
    outcome = params.get("outcome") if passes and params.get("outcome") in ("passed", "failed") else ""
    context: dict[str, Any] = {
        "bench": bench,
        "query": query,
        "agents": agents,
        "tasks": tasks,
        "agent": agent,
        "task": task,
        "outcome": outcome,
        "passes": passes,
        "results": [],
        "total": 0,
        "problem": "",
    }
    if not query:
        return context
    if len(query.split()) > WORDS_MAX:
        return {**context, "problem": f"Ask with at most {WORDS_MAX} words."}
    # The published rounds' ids, read first (a few rows): the entries are then filtered by a plain list, which
    # lets PostgreSQL start from the full-text index instead of from every run of the benchmark.
    rounds = list(Round.objects.published().filter(benchmark=bench).values_list("id", flat=True))
    if not rounds:
        return context  # nothing published yet: nothing to find
    entries = SearchEntry.objects.filter(run__round_id__in=rounds)
    if agent:
        entries = entries.filter(run__entry__agent__slug=agent)
    if task:
        entries = entries.filter(run__task__key=task)
    matching = _matching(entries, query)
    ordered = list(
        matching.values_list("run_id", "run__round__starts_on", "run__key")
        .distinct()
        .order_by("-run__round__starts_on", "run__key")[: OUTCOME_SCAN if outcome else None]
    )
    run_ids = [r[0] for r in ordered]
    capped = bool(outcome) and len(run_ids) >= OUTCOME_SCAN
    if outcome:
        run_ids = _with_outcome(bench, run_ids, outcome)
    total = len(run_ids)
    pages = max(1, -(-total // PER_PAGE))
    page = min(max(int(params["page"]) if (params.get("page") or "").isdigit() else 1, 1), pages)
    shown = run_ids[(page - 1) * PER_PAGE : page * PER_PAGE]
    base = {k: v for k, v in {"q": query, "agent": agent, "task": task, "outcome": outcome}.items() if v}
    return {
        **context,
        "results": _results(bench, shown, query),
        "total": total,
        "capped": capped,
        "page": page,
        "pages": pages,
        "prev": "?" + urlencode({**base, "page": page - 1}) if page > 1 else "",
        "next": "?" + urlencode({**base, "page": page + 1}) if page < pages else "",
    }


def _filter_choices(bench: Benchmark) -> tuple[list[tuple[str, str]], list[str]]:
    """The agents (slug, name) and task keys a reader may filter by."""
    # The filters' choices from the catalogue (a few rows), never from the runs (there may be millions).
    agents = sorted(
        set(
            Entry.objects.filter(in_published_round(), round__benchmark=bench).values_list("agent__slug", "agent__name")
        )
    )
    tasks = sorted(bench.tasks.public().values_list("key", flat=True))
    return agents, tasks


def _postgres() -> bool:
    return connection.vendor == "postgresql"


def _matching(entries: QuerySet, query: str) -> QuerySet:
    if _postgres():
        return entries.extra(where=["runs_searchentry.search @@ websearch_to_tsquery('english', %s)"], params=[query])
    for word in _words(query):
        entries = entries.filter(text__icontains=word)
    return entries


def _words(query: str) -> list[str]:
    return [w for w in re.findall(r'[^\s"]+', query) if w.lower() not in ("or", "and") and not w.startswith("-")]


def _runs_pass(bench: Benchmark) -> bool:
    """Whether a run of the benchmark passes or fails: a counted pass where the board counts outcomes, a score at
    the pass threshold where the methodology has one (scored); checks (003) has neither, and no such filter."""
    return bench.rules.counts_outcomes or bench.pass_mark is not None


def _with_outcome(bench: Benchmark, run_ids: list[int], outcome: str) -> list[int]:
    """The runs that passed (or failed), in the same order: a counted pass where the board counts outcomes,
    else a score at or above the benchmark's pass threshold (a share of its scale)."""
    runs = {r.id: r for r in Run.objects.filter(id__in=run_ids).select_related("round__benchmark")}
    standings = runs_standings(list(runs.values()))
    rules = bench.rules
    mark = (bench.pass_mark or 0.0) * rules.scale
    keep = []
    for run_id in run_ids:
        s = run_summary(runs[run_id], bench.methodology, standings[run_id], bench.pass_mark)
        if rules.counts_outcomes:
            passed = s["outcome"] == "pass" if s["outcome"] else None
        else:
            passed = s["score"] >= mark - 1e-9 if s["score"] is not None else None
        if passed is not None and passed == (outcome == "passed"):
            keep.append(run_id)
    return keep


def _results(bench: Benchmark, run_ids: list[int], query: str) -> list[dict[str, Any]]:
    runs = {r.id: r for r in Run.objects.filter(id__in=run_ids).select_related("round", "entry__agent", "task")}
    standings = runs_standings(list(runs.values()))
    hits: dict[int, list[tuple[str, str, str]]] = {}
    entries = _matching(SearchEntry.objects.filter(run_id__in=run_ids), query).order_by("run_id", "id")
    if _postgres():
        # The text is escaped before ts_headline reads it: its parser drops anything shaped like an HTML tag, so
        # an agent's "<div>" would vanish from the snippet; escaped, it is kept, as text.
        rows = entries.extra(
            select={
                "snippet": "ts_headline('english', replace(replace(replace(runs_searchentry.text, '&', '&amp;'), "
                "'<', '&lt;'), '>', '&gt;'), websearch_to_tsquery('english', %s), %s)"
            },
            select_params=[query, HEADLINE],
        ).values_list("run_id", "anchor", "kind", "snippet")
    else:
        rows = (
            (r, a, k, str(escape(_cut(t, query))))
            for r, a, k, t in entries.values_list("run_id", "anchor", "kind", "text")
        )
    for run_id, anchor, kind, snippet in rows:
        found = hits.setdefault(run_id, [])
        if len(found) < ANCHORS_SHOWN:
            found.append((anchor, kind, snippet))
    out = []
    for run_id in run_ids:
        run = runs[run_id]
        url = run_url(bench.slug, run.round.key, run.key) or ""
        summary = run_summary(run, bench.methodology, standings[run_id], bench.pass_mark)
        out.append(
            {
                "run": run,
                "url": url,
                "summary": summary,
                "hits": [
                    {
                        "anchor": anchor,
                        "href": _hit_href(url, anchor, query),
                        "label": _label(anchor, kind),
                        "snippet": _marked(snippet, query),
                    }
                    for anchor, kind, snippet in hits.get(run_id, [])
                ],
            }
        )
    return out


def _hit_href(url: str, anchor: str, query: str) -> str:
    if anchor.startswith("m-"):
        return f"{url}?{urlencode({'q': _words(query)[0] if _words(query) else query, 'm': anchor[2:]})}#{anchor}"
    return f"{url}#{anchor}"


def _label(anchor: str, kind: str) -> str:
    if anchor.startswith("m-"):
        return f"message {anchor[2:]}"
    return {"judge": "judge's narrative", "note": "reviewer's note", "mark": "moment in the recording"}.get(kind, kind)


def _cut(text: str, query: str) -> str:
    """SQLite: about 200 characters around the first word, the words wrapped in the headline's markers."""
    words = _words(query)
    at = text.lower().find(words[0].lower()) if words else 0
    start = max(0, at - 80)
    piece = ("…" if start else "") + text[start : start + 200] + ("…" if start + 200 < len(text) else "")
    for w in words:
        piece = re.sub(re.escape(w), lambda m: f"{START}{m.group(0)}{STOP}", piece, flags=re.IGNORECASE)
    return piece


def _marked(snippet: str, query: str) -> SafeString:
    """The snippet, already escaped (by the SQL before ts_headline, or by `escape`), its markers turned into
    <mark>: nothing in the text becomes markup (a stray angle bracket is escaped once more, to be sure)."""
    safe = snippet.replace("<", "&lt;").replace(">", "&gt;")
    return mark_safe(safe.replace(START, "<mark>").replace(STOP, "</mark>"))  # noqa: S308 - escaped above
