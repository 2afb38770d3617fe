"""The page of one submission: who sent it and what they declared (never their contact), its checks with their
reasons, each claimed figure beside the one recomputed from its runs (a difference marked, a claim without runs
"not verifiable"), its runs through the run pages (the transcript viewer) and the search, and its history.

A submission's page is public once its round is (its runs' pages are); until then only staff and the submitting
organization's members see it, and anyone else gets the 404 of a page that does not exist."""

from __future__ import annotations

import re
from typing import Any

from django.http import Http404
from django.urls import reverse

from leaderboard.models import Benchmark, Round
from leaderboard.roles import user_is_editor, user_organization_id
from runs.models import Run
from scoring.submission_checks import check_rule, failed_disclosures, ran_instead
from scoring.tiers import blocking
from submissions import formats
from submissions.actions import acknowledgment_asked, may_withdraw
from submissions.models import Submission, SubmissionStatus

from .links import run_url
from .selectors import benchmark_get, sees_unpublished
from .tiers import TIER_LABELS, TIER_PILLS, TIER_TITLES

VERDICTS = {True: ("agrees", "good"), False: ("differs", "bad"), None: ("not verifiable", "neutral")}
NOT_CLAIMED = ("not claimed", "neutral")


def submission_for(bench: Benchmark, pk: int, viewer) -> Submission:
    """The submission `pk` of `bench`, if the viewer may see it; else 404."""
    sub = (
        Submission.objects.filter(benchmark=bench, pk=pk)
        .select_related("benchmark", "round", "agent", "organization")
        .first()
    )
    if sub is None or not may_see(viewer, sub):
        raise Http404("No such submission")
    return sub


def may_see(viewer, sub: Submission) -> bool:
    if sub.round.is_published or sees_unpublished(viewer):
        return True
    return user_organization_id(viewer) == sub.organization_id


def _number(value: Any, decimals: int | None) -> str:
    if value is None:
        return "–"
    places = min((decimals if decimals is not None else 2) + 2, 6)
    return f"{float(value):.{places}f}"


def figure_rows(sub: Submission) -> list[dict[str, Any]]:
    """Claimed beside recomputed, each with its verdict: agrees, differs (marked), not verifiable."""
    decimals = {c.get("name"): c.get("decimals") for c in sub.claims or []}
    rows = []
    for f in sub.figures or []:
        # A figure recomputed but not claimed agrees with nothing: "not claimed", not "not verifiable".
        verdict, pill = VERDICTS[f.get("agrees")] if f.get("claimed") is not None else NOT_CLAIMED
        d = f.get("decimals", decimals.get(f["name"]))
        claimed = f.get("claimed")
        rows.append(
            {
                "name": f["name"],
                "claimed": "–" if claimed is None else (f"{float(claimed):.{d}f}" if d is not None else str(claimed)),
                "recomputed": _number(f.get("recomputed"), d),
                "difference": (
                    _number(float(f["recomputed"]) - float(claimed), d)
                    if f.get("recomputed") is not None and claimed is not None
                    else ""
                ),
                "verdict": verdict,
                "pill": pill,
                "differs": f.get("agrees") is False,
            }
        )
    return rows


# What the per-task figures a submission's page lists are, by name (as the boards name them: pages/tables_passk.py).
FIGURE_MEANINGS = (
    (
        re.compile(r"(?:.+ )?pass\^\d+"),
        "pass^k",
        "the share of tasks where all k of k trials drawn pass: per task C(c, k) / C(n, k) (n trials, c of them "
        "passing), averaged over the task set, a task without runs counting 0.",
    ),
    (
        re.compile(r"(?:.+ )?any-of-\d+"),
        "any-of-k",
        "the share of tasks where at least one of k trials drawn passes: per task 1 − C(n − c, k) / C(n, k), "
        "averaged over the task set (any-of-1 is pass^1). It is the unbiased estimate Terminal-Bench's harness "
        "writes as pass_at_k and some papers call pass@k; on this site pass@k is seed 002's share of an agent's "
        "trials of a task that pass, another figure.",
    ),
)


def figure_meanings(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(name, meaning) of each kind of per-task figure among `rows`, in FIGURE_MEANINGS' order."""
    return [
        (term, meaning) for pattern, term, meaning in FIGURE_MEANINGS if any(pattern.fullmatch(r["name"]) for r in rows)
    ]


def _declared(declared: dict[str, Any]) -> list[tuple[str, str]]:
    """The declared fields, flattened to dotted names (results are the claims, shown in their own table)."""
    out: list[tuple[str, str]] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else str(k), v)
        elif value not in (None, "", [], {}):
            out.append((prefix, ", ".join(map(str, value)) if isinstance(value, list) else str(value)))

    for key, value in (declared or {}).items():
        if key in ("results", "contact_info"):
            continue
        walk(key, value)
    return out


def natural(text: str) -> tuple:
    """`text` as a reader orders it, its numbers by their value: airline-2 before airline-10 (as text, "airline-10"
    comes before "airline-2")."""
    return tuple(int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", text))


def run_rows(sub: Submission) -> list[dict[str, Any]]:
    """The runs the submission put on its round (none once it is withdrawn or superseded), by task family, then
    task (`natural`: airline-0, airline-1, airline-2 ... airline-10), then trial."""
    if sub.status != SubmissionStatus.LIVE:
        return []
    runs = Run.objects.filter(
        round_id=sub.round_id, entry__agent_id=sub.agent_id, key__startswith=f"s{sub.pk}-"
    ).select_related("task")
    rows = []
    for run in sorted(runs, key=lambda r: (natural(r.task.family), natural(r.task.key), r.trial, natural(r.key))):
        rows.append(
            {
                "key": run.key,
                "task": run.task.key,
                "family": run.task.family,
                "trial": run.trial,
                "status": run.get_status_display(),
                "score": "–" if run.score is None else f"{run.score:g}",
                "href": run_url(sub.benchmark.slug, sub.round.key, run.key),
            }
        )
    return rows


def submission_page(*, bench_slug: str, pk: int, viewer) -> dict[str, Any]:
    bench = benchmark_get(bench_slug)
    sub = submission_for(bench, pk, viewer)
    rnd: Round = sub.round
    events = list(sub.events.select_related("by").order_by("at", "id"))
    checks = [{**c, "label": check_rule(c["name"]).label, "kind": check_rule(c["name"]).kind} for c in sub.checks or []]
    editor = user_is_editor(viewer)
    live = sub.status == SubmissionStatus.LIVE
    runs = run_rows(sub)
    figures = figure_rows(sub)
    return {
        "bench": bench,
        "round": rnd,
        "sub": sub,
        "format_label": formats.label(sub.format),
        "tier": sub.tier,
        "tier_label": TIER_LABELS.get(sub.tier, sub.tier),
        "tier_pill": TIER_PILLS.get(sub.tier, "neutral"),
        "tier_title": TIER_TITLES.get(sub.tier, ""),
        "checks": checks,
        "failed": sum(1 for c in checks if not c["passed"]),
        "checks_said": checks_said(sub),
        "as_ran": as_ran(sub),
        "figures": figures,
        "figure_meanings": figure_meanings(figures),
        "declared": _declared(sub.declared),
        "notes": sub.notes or [],
        "runs": runs,
        "families": sorted({r["family"] for r in runs if r["family"]}),
        "search_url": reverse("search", args=[bench.slug]) + f"?agent={sub.agent.slug}",
        "board_url": reverse("board_round", args=[bench.slug, rnd.key]) + "?tier=all",
        "events": events,
        "editor": editor and live,
        "can_withdraw": live and may_withdraw(viewer, sub),
        "problems": blocking(sub.checks or [], sub.figures or []),
        "asked": acknowledgment_asked(sub),
    }


def as_ran(sub: Submission) -> dict[str, Any] | None:
    """Where a disclosure check failed: what the runs ran, each beside what was declared, and the verifying
    editor's note acknowledging it (blank until verified); None when what was declared is what ran."""
    rows = ran_instead(sub.checks or [])
    if not rows:
        return None
    return {
        "rows": rows,
        "acknowledged": sub.disclosure_note,  # set only by verifying (flagging clears it)
    }


def run_as_ran(run: Run) -> dict[str, Any] | None:
    """For a run of a submission whose runs ran another model or user simulator than it declares: `as_ran`, and
    the submission's page. No query for the team's runs (their entry's tier is the team's)."""
    if run.entry.tier == "team":
        return None
    sub = Submission.objects.live().filter(round_id=run.round_id, agent_id=run.entry.agent_id).first()
    shown = as_ran(sub) if sub is not None else None
    return {**shown, "url": sub.get_absolute_url()} if sub is not None and shown else None


def checks_said(sub: Submission) -> str:
    """The checks in one sentence: how many failed, and what that stops."""
    checks = sub.checks or []
    failed = [c for c in checks if not c["passed"]]
    if not failed:
        return f"All {len(checks)} checks passed."
    said = f"{len(failed)} of {len(checks)} checks failed"
    if blocking(checks, []):
        return said + ": the submission is flagged, and cannot be verified while a protocol check fails."
    disclosures = len(failed_disclosures(checks))
    kind = "a disclosure" if disclosures == 1 else f"{disclosures} disclosures"
    said += f", {kind} only: what the submission declares is not what its runs ran. "
    if sub.tier == "verified":
        return said + "An editor verified it, acknowledging that; the pages show what ran, the declared beside it."
    return said + "It is flagged until an editor verifies it with a note acknowledging that."
