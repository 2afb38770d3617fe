"""What a benchmark team's key may write through the upload API: its own benchmark's draft and preview rounds,
and agents, organizations and tasks that do not exist yet; never a stored row other boards read (`by_key`:
`bundles.shared`).

Publishing stays a human step in the admin, so an upload never names a published round (nor makes one), and
carries no votes (those are the public's) and no changelog lines (the site's own record, public at
publication). Everything else is `bundle_import` / `inspect_import`, with their
validation and their one transaction: a refused upload writes nothing."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from leaderboard.models import Benchmark, Round, RoundStatus
from runs.services.preview import preview_restart
from scoring.bundle import BundleError
from scoring.bundle_checker import document_problems

from .importer import bundle_import
from .inspect_import import InspectImport, inspect_import
from .inspect_logs import NamedLog
from .report import ImportReport

UPLOAD_STATUSES = ("draft", "preview")


def upload_problems(doc: Any, benchmark: Benchmark) -> list[str]:
    """Why a key scoped to `benchmark` may not write `doc`, problem by problem (empty when it may)."""
    if not isinstance(doc, dict):
        return ["(document): must be a bundle object"]
    unstorable = document_problems(doc)
    if unstorable:
        return unstorable  # before the round keys below reach a query
    problems = []
    slug = (doc.get("benchmark") or {}).get("slug") if isinstance(doc.get("benchmark"), dict) else None
    if slug != benchmark.slug:
        problems.append(f"benchmark.slug: {slug!r} is not {benchmark.slug!r}, the benchmark this key is for")
    rounds: list[Any] = doc["rounds"] if isinstance(doc.get("rounds"), list) else []
    keys = [r.get("key") for r in rounds if isinstance(r, dict)]
    stored = dict(
        Round.objects.filter(benchmark=benchmark, key__in=[k for k in keys if isinstance(k, str)]).values_list(
            "key", "status"
        )
    )
    for i, r in enumerate(rounds):
        if not isinstance(r, dict):
            continue
        status, now = r.get("status"), stored.get(r.get("key"))
        if now is not None and now not in UPLOAD_STATUSES:
            problems.append(f"rounds[{i}].key: round {r['key']!r} is published; corrections are made in the admin")
        if status not in UPLOAD_STATUSES:
            problems.append(f"rounds[{i}].status: {status!r}; uploads go into draft or preview rounds")
        elif now is None and status != "draft":
            # Starting the vendor preview is the editor's step (seed 000 §6: vendors get their 48 hours).
            problems.append(f"rounds[{i}].status: a new round starts as a draft; an editor starts its vendor preview")
        elif now is not None and now in UPLOAD_STATUSES and status != now:
            problems.append(
                f"rounds[{i}].status: round {r['key']!r} is {now}; an upload does not change a round's status"
            )
        for field in ("preview_started_at", "published_at"):
            if r.get(field) is not None:
                problems.append(f"rounds[{i}].{field}: set by the site when an editor starts the preview or publishes")
        problems += _tier_problems(r, i)
        if r.get("changelog"):
            problems.append(
                f"rounds[{i}].changelog: the changelog is the site's own record of corrections and publication; "
                "an upload key does not write it: leave it out"
            )
    if doc.get("votes"):
        problems.append("votes: an upload carries no votes")
    return problems


def _tier_problems(r: dict, i: int) -> list[str]:
    """An entry's tier is the submission checks' (`submissions`): an upload says none but the team's."""
    return [
        f"rounds[{i}].entries[{j}].tier: set by the submission checks; an upload key sends none"
        for j, e in enumerate(r.get("entries") or [])
        if isinstance(e, dict) and e.get("tier") not in (None, "team")
    ]


def bundle_upload(*, doc: Any, benchmark: Benchmark) -> ImportReport:
    """Import `doc` into `benchmark` if its key may write it; raise `BundleError` (nothing written) otherwise."""
    problems = upload_problems(doc, benchmark)
    if problems:
        raise BundleError(problems)
    with transaction.atomic():
        report = bundle_import(doc=doc, by_key=True)
        # Results an upload changes in a round in its vendor preview restart the window (`preview_restart`):
        # vendors get the whole window with the results as they will be published. An upload that changes
        # nothing restarts nothing (a key cannot put publication off by sending the same body again).
        if _changed(report):
            keys = [r["key"] for r in doc.get("rounds") or [] if isinstance(r, dict)]
            keys += [run["round"] for run in doc.get("runs") or [] if isinstance(run, dict)]
            _restart_previews(benchmark, keys)
    return report


def _changed(report: ImportReport | None) -> bool:
    return report is not None and bool(report.created or report.updated)


def _restart_previews(benchmark: Benchmark, keys: list[str]) -> None:
    for rnd in Round.objects.filter(benchmark=benchmark, key__in=set(keys), status=RoundStatus.PREVIEW):
        preview_restart(rnd)


def inspect_upload(
    *, logs: list[NamedLog], benchmark: Benchmark, round_key: str, agent_from: str, scorer: str | None
) -> InspectImport:
    """Import Inspect logs into a draft or preview round of `benchmark` (the round is made a draft if missing);
    runs added to a round in its vendor preview restart the window, as a bundle's do."""
    with transaction.atomic():
        result = inspect_import(
            logs=logs,
            benchmark=benchmark.slug,
            round_key=round_key,
            agent_from=agent_from,
            scorer=scorer,
            round_statuses=UPLOAD_STATUSES,
            by_key=True,
        )
        if _changed(result.report):
            _restart_previews(benchmark, [round_key])
    return result
