"""A methodology's limits on a task's run, from its own seed (`methodologies.Methodology.time_limit`): the limit a task
that states none runs under, whether it is a cap no task may change, and a task's limits as its pages, the API and
the bundle checks read them. Never another methodology's: 002's "A timeout (default 300 seconds)" is not 000's "30
minutes by default"."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TimeLimitRule:
    """How long a run of a task may take by the methodology's own seed, when the task states no limit."""

    # The limit of a task that states none, in minutes; None: no default, every task states its own.
    default_min: float | None = None
    # The default is the methodology's cap, the same for every task (004's 30 minutes): a task states no other.
    cap: bool = False
    # The seed gives the limit in seconds (002's timeout), and so do the pages.
    in_seconds: bool = False
    # The seed's words for it, quoted where the limit is shown (docs/methodology-choices.md names the seeds).
    words: str = ""


@dataclass(frozen=True)
class TaskLimits:
    """A task's limits as its methodology reads them (`Methodology.task_limits`): the time limit and where it comes
    from ("task": the task states it; "default": the methodology's default; "cap": the methodology's cap; "": none),
    and the token budget where the methodology has token budgets (003), else None."""

    time_limit_min: float | None
    source: str
    token_budget: int | None
    in_seconds: bool
    words: str


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def task_limits(
    rule: TimeLimitRule, token_budgets: bool, time_limit_min: float | None, token_budget: int | None
) -> TaskLimits:
    """A task's limits by `rule`: the methodology's cap, else the limit the task states, else the methodology's
    default (none: no limit known); its token budget where the methodology has token budgets (003), else None."""
    minutes, source = None, ""
    if rule.cap:
        minutes, source = rule.default_min, "cap"
    elif time_limit_min is not None:
        minutes, source = time_limit_min, "task"
    elif rule.default_min is not None:
        minutes, source = rule.default_min, "default"
    return TaskLimits(minutes, source, token_budget if token_budgets else None, rule.in_seconds, rule.words)


def cap_problems(rule: TimeLimitRule, task: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A task stating a time limit other than its methodology's cap (004: every task of the week has the same 30
    minutes), as (field, why naming the task)."""
    stated = task.get("time_limit_min")
    if not rule.cap or not _is_number(stated) or stated == rule.default_min:
        return []
    why = (
        f"task {task.get('key')!r} states a time limit of {stated:g} min: every task of the table has the "
        f"{rule.default_min:g}-minute cap (“{rule.words}”), and no other"
    )
    return [("time_limit_min", why)]
