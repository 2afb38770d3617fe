"""How often the reviewers agree (outcomes seed 000, §5 "Review").

§5: "The tester records an outcome ... A second reviewer scores the same run from the evidence alone, without
seeing the first outcome. If they disagree, a third reviewer decides. All three outcomes are published."
Every verdict is published; this module summarises them for one round:

* **Second reviews**: the runs with both a tester's and a second reviewer's outcome whose review is complete
  (the two agree, or a third decided). A disagreement still waiting for its third reviewer is counted only
  under *in review*, with the runs still waiting for a second: the figures never tell a tester or a second
  reviewer how the other judged a run before the review is over (§5: the second scores "without seeing the
  first outcome").
* **Agreement**: the share of those where the two gave the same *counted* outcome (each verdict read as the
  boards read it: the lowest matched row, a violation off a safety task a fail), so a violation and a fail on
  a core task are no disagreement, exactly as `common.reviewed_outcome` decides whether a third is needed.
* **Cohen's kappa** over the outcome categories: (p_o - p_e) / (1 - p_e), where p_o is the agreement and
  p_e = sum over categories of (tester's share in it) x (second's share in it), the agreement two reviewers
  would reach by chance with the same habits. Undefined (None, never 0) with no second reviews, or when both
  reviewers gave one and the same category to every run (p_e = 1: chance already explains everything).
* **Third reviews**: the runs with a third verdict; *in review*: runs with a verdict and more still to come.
* **Tasks with the most disagreements** (their criteria may be ambiguous), most first, then by key.

Reviewers appear by role only (tester, second, third): no name or account is read. The runs are those that
can count (`common.effective_runs`: not replaced by a re-run, of an entered agent). Pure: no Django.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TypedDict

from .common import effective_runs, reviewed_outcome, tasks_by_key, verdict_outcome
from .types import RoundInput, RunInput, TaskInput

# How many tasks the summary names.
TOP_TASKS = 5


class TaskDisagreements(TypedDict):
    task: str
    second_reviews: int
    disagreements: int


class ReviewAgreement(TypedDict):
    second_reviews: int  # runs with a tester's and a second reviewer's outcome
    agreed: int
    agreement: float | None  # agreed / second_reviews; None with no second review
    kappa: float | None  # Cohen's kappa; None when undefined (no second review, or p_e = 1)
    p_observed: float | None
    p_chance: float | None
    categories: list[str]  # the outcomes either reviewer gave, sorted
    third_reviews: int  # runs with a third reviewer's outcome
    in_review: int  # runs with a verdict whose review is not complete (a second, or a third, still to come)
    tasks: list[TaskDisagreements]  # the tasks with the most disagreements (at least one), at most TOP_TASKS


def review_pairs(
    round_input: RoundInput, violation_possible: Callable[[TaskInput], bool] | None = None
) -> list[tuple[str, str | None, str | None, bool]]:
    """(task, tester's counted outcome, second's, has a third verdict) for every run with a verdict."""
    tasks = tasks_by_key(round_input)
    out = []
    for run in effective_runs(round_input):
        if not run.verdicts:
            continue
        allow = bool(violation_possible and violation_possible(tasks[run.task]))
        by_role = {v.role: verdict_outcome(v, allow) for v in run.verdicts}
        out.append((run.task, by_role.get("tester"), by_role.get("second"), by_role.get("third") is not None))
    return out


def _in_review(
    round_input: RoundInput,
    violation_possible: Callable[[TaskInput], bool] | None,
    run_counts: Callable[[RunInput, TaskInput], bool] | None,
    run_outcome: Callable[[RunInput, TaskInput], str | None] | None,
) -> int:
    """Runs that count but whose review has not given them an outcome yet."""
    tasks = tasks_by_key(round_input)
    n = 0
    for run in effective_runs(round_input):
        task = tasks[run.task]
        if run_counts is not None and not run_counts(run, task):
            continue
        if run_outcome is not None:
            n += run_outcome(run, task) is None
        else:
            n += reviewed_outcome(run, allow_violation=bool(violation_possible and violation_possible(task))) is None
    return n


def cohen_kappa(pairs: list[tuple[str, str]]) -> tuple[float | None, float | None, float | None]:
    """(kappa, p_o, p_e) of two raters' labels; kappa None when there are no pairs or p_e is 1."""
    n = len(pairs)
    if n == 0:
        return None, None, None
    p_o = sum(1 for a, b in pairs if a == b) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    # Exact integers first, one division at the end: p_e = sum(n_a(k) * n_b(k)) / n^2.
    p_e = sum(first[k] * second[k] for k in first) / (n * n)
    if p_e >= 1.0:
        return None, p_o, p_e
    return (p_o - p_e) / (1.0 - p_e), p_o, p_e


def review_agreement(
    round_input: RoundInput,
    violation_possible: Callable[[TaskInput], bool] | None = None,
    run_counts: Callable[[RunInput, TaskInput], bool] | None = None,
    run_outcome: Callable[[RunInput, TaskInput], str | None] | None = None,
) -> ReviewAgreement:
    """The review agreement of one round (module docstring). `violation_possible` is the methodology's rule
    for where a violation counts (elsewhere a violation verdict is read as a fail); `run_counts` its rule for
    which runs are counted (all when None) and `run_outcome` the outcome the board gives one (None: in review;
    by default `common.reviewed_outcome`), over which `in_review` counts the undecided ones, with or without a
    verdict, so the figure moves only when a review completes (an unsupported run is never in review)."""
    rows = review_pairs(round_input, violation_possible)
    complete = [
        (task, t, s, third) for task, t, s, third in rows if t is not None and s is not None and (t == s or third)
    ]
    doubled = complete
    kappa, p_o, p_e = cohen_kappa([(t, s) for _, t, s, _ in doubled if t is not None and s is not None])
    per_task: Counter[str] = Counter()
    disagreed: Counter[str] = Counter()
    for task, t, s, _ in doubled:
        per_task[task] += 1
        if t != s:
            disagreed[task] += 1
    agreed = len(doubled) - sum(disagreed.values())
    worst = sorted(disagreed, key=lambda k: (-disagreed[k], k))[:TOP_TASKS]
    return {
        "second_reviews": len(doubled),
        "agreed": agreed,
        "agreement": agreed / len(doubled) if doubled else None,
        "kappa": kappa,
        "p_observed": p_o,
        "p_chance": p_e,
        "categories": sorted({o for _, t, s, _ in doubled for o in (t, s) if o is not None}),
        "third_reviews": sum(1 for *_, third in rows if third),
        "in_review": _in_review(round_input, violation_possible, run_counts, run_outcome),
        "tasks": [{"task": k, "second_reviews": per_task[k], "disagreements": disagreed[k]} for k in worst],
    }
