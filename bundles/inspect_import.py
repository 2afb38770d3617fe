"""Importing Inspect eval logs: the bundle they make (bundles.inspect_logs), merged into what the benchmark and
round already hold, then written by `bundle_import` with its validation and its one transaction.

The merge keeps what is stored: an existing benchmark, agent or task is written back as exported (so its
name, its position and its frozen wording stay as they are), an existing round keeps its status and dates, and
only the logs' entries and runs are new or updated. A sample already stored as a task with other wording is
refused by its sample id. Importing the same logs again changes nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.db import transaction

from leaderboard.models import Agent, Benchmark, Round
from scoring.bundle import BundleError, check_bundle

from .export import _agent_doc, bundle_export
from .importer import bundle_import, imports_one_at_a_time
from .inspect_logs import Conversion, NamedLog, logs_to_bundle
from .report import ImportReport

ANY_STATUS = ("draft", "preview", "published")


@dataclass(frozen=True)
class InspectImport:
    """The bundle the logs made (`doc`), and what writing it did (`report`; None on a dry run)."""

    doc: dict
    report: ImportReport | None


def inspect_import(
    *,
    logs: list[NamedLog],
    benchmark: str,
    round_key: str,
    agent_from: str = "model",
    scorer: str | None = None,
    dry_run: bool = False,
    round_statuses: Collection[str] = ANY_STATUS,
    by_key: bool = False,
    title: str | None = None,
    description: str | None = None,
) -> InspectImport:
    """Convert `logs` and write them into `benchmark` (created, methodology `scored`, when missing) and its
    round `round_key` (created as a draft when missing; an existing one must have a status in
    `round_statuses`). `title` and `description`, when given, name the benchmark (its board's heading and the
    line under it); without them a new benchmark is titled by its slug and an existing one keeps its own.
    Raises `InspectLogError` or `BundleError` listing every problem; nothing is written then, nor on a dry
    run."""
    conversion = logs_to_bundle(logs, benchmark=benchmark, round_key=round_key, agent_from=agent_from, scorer=scorer)
    naming = {k: v for k, v in (("name", title), ("description", description)) if v is not None}
    conversion.doc["benchmark"].update(naming)
    with transaction.atomic():
        # One import at a time, taken before the benchmark's row (bundle_import's order, so two imports never
        # wait on each other's locks): two uploads to one round would otherwise merge into stale copies.
        imports_one_at_a_time()
        bench = Benchmark.objects.select_for_update().filter(slug=benchmark).first()
        doc = _new_benchmark(conversion.doc) if bench is None else _merged(conversion, bench, round_key, round_statuses)
        doc["benchmark"].update(naming)
        if dry_run:
            check_bundle(doc)
            return InspectImport(conversion.doc, None)
        return InspectImport(conversion.doc, bundle_import(doc=doc, by_key=by_key))


# A team that runs its own Inspect evals has no vendors to wait for (the 48-hour fact check is ARTB's rule,
# seed 000 §6): a benchmark made by an Inspect import publishes straight from draft. An editor may set a window
# on the benchmark in the admin; an existing benchmark keeps its own.
INSPECT_PREVIEW_HOURS = 0


def _new_benchmark(doc: dict) -> dict:
    params = {**doc["benchmark"].get("params", {}), "preview_hours": INSPECT_PREVIEW_HOURS}
    return {**doc, "benchmark": {**doc["benchmark"], "params": params}}


def _merged(conversion: Conversion, bench: Benchmark, round_key: str, round_statuses: Collection[str]) -> dict:
    new = conversion.doc
    made = new["benchmark"]["methodology"]  # the methodology the conversion's boards are made by
    if bench.methodology != made:
        uses = f"benchmark {bench.slug!r} uses the {bench.methodology!r} methodology"
        raise BundleError([f"{uses}; Inspect scores make `{made}` boards"])
    stored_round = Round.objects.filter(benchmark=bench, key=round_key).first()
    if stored_round is not None and stored_round.status not in round_statuses:
        raise BundleError(
            [
                f"round {round_key!r} is {stored_round.status}: import into a draft or preview round (publishing and "
                "corrections of a published round are made in the admin)"
            ]
        )
    doc = bundle_export(benchmark=bench, include_unpublished=True, round_keys=[round_key], include_votes=False)
    _merge_agents(doc, new)
    _merge_tasks(doc, new, conversion.samples)
    if not doc["rounds"]:
        doc["rounds"] = new["rounds"]
    else:
        entries = {e["agent"]: e for e in doc["rounds"][0]["entries"]}
        entries.update({e["agent"]: {**entries.get(e["agent"], {}), **e} for e in new["rounds"][0]["entries"]})
        doc["rounds"][0]["entries"] = [entries[a] for a in sorted(entries)]
    runs = {str(r["id"]): r for r in doc["runs"]}
    runs.update({r["id"]: r for r in new["runs"]})
    doc["runs"] = list(runs.values())
    return doc


def _merge_agents(doc: dict, new: dict) -> None:
    """Agents keep their stored name and organization; only unknown ones are created."""
    have = {a["slug"] for a in doc["agents"]}
    wanted = [a for a in new["agents"] if a["slug"] not in have]
    stored = {
        a.slug: a for a in Agent.objects.filter(slug__in=[a["slug"] for a in wanted]).select_related("organization")
    }
    doc["agents"].extend(_agent_doc(stored[a["slug"]]) if a["slug"] in stored else a for a in wanted)


def _merge_tasks(doc: dict, new: dict, samples: dict[str, str]) -> None:
    """A sample becomes a task the first time it is seen; afterwards its wording is frozen, and a log whose
    sample of the same id reads differently is refused by that sample's id."""
    stored = {t["key"]: t for t in doc["tasks"]}
    problems = []
    for task in new["tasks"]:
        have = stored.get(task["key"])
        if have is None:
            doc["tasks"].append(task)
        elif have.get("prompt") != task["prompt"]:
            problems.append(
                f"{samples[task['key']]}: its input differs from the wording stored for task {task['key']!r}; "
                "a task's wording is frozen once stored (give the changed sample a new id)"
            )
    if problems:
        raise BundleError(problems)
