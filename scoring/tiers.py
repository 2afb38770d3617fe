"""Whose results a board row holds (its tier), and pass^k / any-of-k per task family where tasks have several
trials: what `boards.compute_boards` adds to every overall row, and the boards' tier filter.

Tiers: "team" (the benchmark team ran it), "self-reported" (a submission whose checks pass and whose claims
agree), "verified" (an editor reproduced or audited one, acknowledging any failed disclosure check), "flagged" (a
failed protocol check, a differing claim, an unacknowledged disclosure, or an editor's reason). The default view
shows team, verified and self-reported rows; flagged ones are a filter away. A submission's tier: `tier`; why an
editor may not verify it: `blocking`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .common import assign_ranks
from .passk import ScoreOf, family_figures, is_counted, threshold_success
from .readings import SITE, Readings
from .scored import run_score
from .submission_checks import DISCLOSURE, check_rule, failed_disclosures
from .types import RoundInput, TaskInput

# The one vocabulary of tiers (the entries' and submissions' `tier`, the boards' `?tier=` filter, the pages).
TEAM, SELF_REPORTED, VERIFIED, FLAGGED = "team", "self-reported", "verified", "flagged"
TIERS = (TEAM, SELF_REPORTED, VERIFIED, FLAGGED)
# The boards' default view (the filter "default-view"): flagged rows are one click away (`?tier=flagged`, `all`).
DEFAULT_VIEW, ALL = "default-view", "all"
DEFAULT_TIERS = (TEAM, VERIFIED, SELF_REPORTED)
FILTERS = (*TIERS, DEFAULT_VIEW, ALL)


def tier(
    checks: list[dict],
    figures_: list[dict],
    *,
    flagged: bool = False,
    verified: bool = False,
    acknowledged: bool = False,
) -> str:
    """Flagged by an editor, a failed protocol check or a differing figure; else verified by an editor (who
    acknowledged any failed disclosure); else flagged while a disclosure failed; else self-reported. A figure
    that is not verifiable flags nothing."""
    if flagged or blocking(checks, figures_):
        return FLAGGED
    disclosed = bool(failed_disclosures(checks))
    if verified and (acknowledged or not disclosed):
        return VERIFIED
    return FLAGGED if disclosed else SELF_REPORTED


def blocking(checks: list[dict], figures_: list[dict]) -> list[str]:
    """Why an editor may not verify: each failed protocol check and each differing figure."""
    protocol = [c for c in checks if not c["passed"] and check_rule(c["name"]).kind != DISCLOSURE]
    return [f"{c['name']}: {c['detail']}" for c in protocol] + [
        f"{f['name']}: claimed {f['claimed']}, recomputed {f['recomputed']}" for f in figures_ if f["agrees"] is False
    ]


def board_score(tasks: Iterable[TaskInput], *, readings: Readings = SITE) -> ScoreOf:
    """A run's score as the scored boards have it (seed 002's evaluation types: tests passed / total, the judge,
    the composite, or the score published with the run): the boards' pass^k and a submission's recomputed
    figures read this one rule."""
    by_key = {t.key: t for t in tasks}
    return lambda run: run_score(run, by_key[run.task], readings=readings).score if run.task in by_key else None


def several_trials(round_input: RoundInput) -> bool:
    """Whether any agent has more than one counted trial of any task: the pass^k columns are shown then."""
    score_of = board_score(round_input.tasks)
    counts = Counter((r.agent, r.task) for r in round_input.runs if is_counted(r, score_of))
    return any(n > 1 for n in counts.values())


def with_tiers(boards: dict[str, Any], round_input: RoundInput, *, readings: Readings = SITE) -> dict[str, Any]:
    """Every overall row gains its entry's `tier`; where tasks have several trials, `pass_hat` and `pass_any`
    ({family: {"1": value, ...}} by k, over the family's own task set; None for a family the agent has no
    counted run in)."""
    tiers = {e.agent: e.tier for e in round_input.entries}
    several = several_trials(round_input)
    success = threshold_success(round_input.params)
    score_of = board_score(round_input.tasks, readings=readings)
    for row in boards.get("overall") or []:
        row["tier"] = tiers.get(row["agent"], TEAM)
        if several:
            runs = [r for r in round_input.runs if r.agent == row["agent"]]
            figs = family_figures(round_input.tasks, runs, success, score_of)
            # k as text: a board is stored as JSON, and read back the same as computed.
            row["pass_hat"] = {f: _by_k(v, "pass^k") for f, v in figs.items()}
            row["pass_any"] = {f: _by_k(v, "any-of-k") for f, v in figs.items()}
    return boards


def _by_k(fig: dict[str, Any], name: str) -> dict[str, float | None] | None:
    return {str(k): v for k, v in fig[name].items()} if fig["tested"] else None


def tiers_shown(value: str | None) -> tuple[str, ...]:
    """The tiers a board's `?tier=` shows: one tier, "all", or the default view (also for anything unknown)."""
    if value == ALL:
        return TIERS
    return (value,) if value in TIERS else DEFAULT_TIERS


def rows_in_view(rows: list[dict[str, Any]], value: str | None) -> list[dict[str, Any]]:
    """The rows of the tiers shown, ranked again among themselves (ties share a rank), in their board order."""
    shown = tiers_shown(value)
    kept = [dict(r) for r in rows if r.get("tier", TEAM) in shown]
    order = {r["agent"]: i for i, r in enumerate(rows)}
    ranked = [r for r in kept if r.get("rank") is not None]
    assign_ranks(ranked, lambda r: r["rank"], lambda r: order[r["agent"]])
    return sorted(kept, key=lambda r: order[r["agent"]])
